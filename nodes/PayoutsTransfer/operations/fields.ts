import type { INodeProperties } from 'n8n-workflow';

/** Parameters that card and standard transfers share, written once. */

export const transferIdProperty: INodeProperties = {
	displayName: 'Transfer ID',
	name: 'transferId',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'e.g. payout_2026_11_0001',
	description:
		'Your unique ID of this transfer: letters, digits and underscore, at most 40. Keep it stable for a row: the service refuses a second transfer with the same ID, which is what prevents paying twice.',
};

export const remarksProperty: INodeProperties = {
	displayName: 'Remarks',
	name: 'remarks',
	type: 'string',
	default: '',
	description: 'Letters, digits and spaces, at most 70 characters',
};

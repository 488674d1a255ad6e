import type { INodeProperties } from 'n8n-workflow';

/** Parameters that the transfer operations share, written once. */

/**
 * The amount, in every transfer operation: text, so the editor never changes what was typed (a
 * number field clamps and rounds when it loses focus), empty until filled in, so n8n flags a
 * forgotten amount. Our own rules check it (rules.ts `amount()`), and a number from a saved
 * workflow or an expression passes the same rules.
 */
export function amountProperty(rule: string): INodeProperties {
	return {
		displayName: 'Amount',
		name: 'amount',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 100.50',
		description: `${rule}. Sent exactly as typed: a value that cannot be sent exactly is refused, never rounded.`,
	};
}

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

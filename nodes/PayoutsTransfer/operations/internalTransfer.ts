import type { z } from 'zod';

import { amount, fields, itemSchema, text } from '../../shared/rules';
import { additionalFields } from '../../shared/describe';
import type { PayoutOperation } from '../../shared/types';
import { amountProperty } from './fields';

const schema = itemSchema({
	amount: amount({ min: 1, sendAs: 'number' }),
	rechargeAccount: text({ required: true, ...fields.alphanumeric }),
	transferId: text(fields.internalTransferId),
});

/** Fits the internal transfer's rule: letters, digits, hyphen and underscore, at most 40. */
function stableTransferId(executionId: string, nodeId: string, index: number): string {
	const compact = (value: string) => value.replace(/[^A-Za-z0-9]/g, '');
	return `n8n-${compact(executionId).slice(-16)}-${compact(nodeId).slice(0, 8)}-${index}`.slice(0, 40);
}

export const internalTransfer: PayoutOperation<z.output<typeof schema>> = {
	value: 'internalTransfer',
	api: 'internalTransfer',
	name: 'Internal Transfer',
	description: "Move an amount between the merchant's own payout accounts",
	action: 'Send an internal transfer',
	movesMoney: true,
	host: 'payout',
	properties: [
		amountProperty('Decimal amount, at least 1.00'),
		{
			displayName: 'Recharge Account',
			name: 'rechargeAccount',
			type: 'string',
			default: '',
			required: true,
			description: 'Number of the internal recharge account (letters and digits)',
		},
		additionalFields([
			{
				displayName: 'Transfer ID',
				name: 'transferId',
				type: 'string',
				default: '',
				description:
					'Your unique ID of this transfer: letters, digits, hyphen and underscore, at most 40. When empty, the node sends an ID made of the execution, the node and the item, so a re-run of the node in the same execution cannot pay twice.',
			},
		]),
	],
	// Never let the service pick the ID: a retry could not then be recognised as a duplicate.
	itemDefaults: ({ executionId, nodeId, index }) => (executionId ? { transferId: stableTransferId(executionId, nodeId, index) } : {}),
	schema: () => schema,
	request: (transfer) => ({ method: 'POST', path: '/payout/v1/internalTransfer', body: transfer }),
	output: (answer, transfer) => [
		{
			status: answer.status,
			subCode: answer.subCode,
			message: answer.message,
			transferId: (answer.data?.transferId as string | undefined) ?? transfer.transferId ?? null,
		},
	],
};

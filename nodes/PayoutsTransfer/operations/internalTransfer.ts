import { createHash } from 'crypto';
import type { z } from 'zod';

import { amount, fields, itemSchema, text } from '../../shared/rules';
import { additionalFields } from '../../shared/describe';
import type { PayoutOperation, TransferOrigin } from '../../shared/types';
import { amountProperty } from './fields';

const schema = itemSchema({
	amount: amount({ min: 1, sendAs: 'number' }),
	rechargeAccount: text({ required: true, ...fields.alphanumeric }),
	transferId: text(fields.internalTransferId),
});

/**
 * A row without a Transfer ID gets one made of what it is (workflow, node, amount, account, and
 * how many identical rows came before it in the run), never of the execution: n8n's Retry On Fail,
 * its execution retry and a re-run after a crash all send the same row with the same ID, so the
 * node's record of sent transfers recognises it. Fits the rule: letters, digits, hyphen, 40 at most.
 */
function transferIdOf({ amount, rechargeAccount }: { amount: string | number; rechargeAccount?: string }, origin: TransferOrigin): string {
	const what = JSON.stringify([origin.workflowId, origin.nodeId, String(amount), rechargeAccount, origin.occurrence]);
	return `n8n-${createHash('sha256').update(what).digest('hex').slice(0, 36)}`;
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
					'Your unique ID of this transfer: letters, digits, hyphen and underscore, at most 40. When empty, the node sends an ID made of the row (amount and account): a re-run or retry of the same row is recognised and not paid twice, so the same top-up again on a later run needs its own Transfer ID.',
			},
		]),
	],
	// Never let the service pick the ID: a retry could not then be recognised as the same transfer.
	transferIdWhenEmpty: transferIdOf,
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

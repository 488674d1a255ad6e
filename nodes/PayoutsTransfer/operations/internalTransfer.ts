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
 * A row without a Transfer ID gets one made of what it is (workflow, node, amount, account, how
 * many identical rows came before it in the run) and of its scope (its Top-Up Key, or the node's
 * top-up round), never of the execution: n8n's Retry On Fail, its execution retry and a re-run
 * after a crash send the same row with the same ID, so the node's record recognises it, while the
 * next round's top-up gets a new one. Fits the rule: letters, digits, hyphen, 40 at most.
 */
function transferIdOf({ amount, rechargeAccount }: { amount: string | number; rechargeAccount?: string }, origin: TransferOrigin): string {
	const what = JSON.stringify([origin.workflowId, origin.nodeId, origin.scope, String(amount), rechargeAccount, origin.occurrence]);
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
					"Your unique ID of this transfer: letters, digits, hyphen and underscore, at most 40. When empty, the node makes one of the row (amount and account) and its top-up round: while the run that sent the row is unfinished (a crash, a stop, n8n's Retry) the same row is the same top-up and is not paid twice; once that run finished, the next run's row is a new top-up. Options > 'Top-Up Key' names the top-up instead.",
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

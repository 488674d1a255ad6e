import { createHash } from 'crypto';
import type { IDataObject } from 'n8n-workflow';
import type { z } from 'zod';

import { amount, fields, itemSchema, text } from '../../shared/input/rules';
import { additionalFields } from '../../shared/input/describe';
import type { PayoutOperation, TransferOrigin } from '../../shared/types';
import { amountProperty } from './fields';
import { endpoints } from '../../shared/transport/endpoints';

const schema = itemSchema({
	amount: amount({ min: 1, maxDecimals: 2, sendAs: 'number' }),
	rechargeAccount: text({ required: true, ...fields.alphanumeric }),
	transferId: text(fields.internalTransferId),
	// Not sent: it names the transfer (below).
	topUpKey: text({ max: 500 }),
});

/** Fits the rule of an internal Transfer ID: letters, digits, hyphen and underscore, at most 40. */
const MAX_ID = 40;
const digest = (parts: unknown[], length: number) =>
	createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, length);

/**
 * A row without a Transfer ID gets one the user can see before it is sent (in the output and in a
 * dry run), never a guess from how n8n ran the node:
 * - with a Top-Up Key: made of the key and the recharge account only, what the user typed. The
 *   same key for the same account is the same Transfer ID in any run, any Payouts Transfer node, a
 *   copy of the workflow and another n8n: where the service refuses a repeat, it refuses it there
 *   too. Its first characters show the key, so the transfer is easy to find in the dashboard;
 * - with Options > Pay Again on Every Run: made of the execution's run, the node's run and the row,
 *   so each new execution is a new transfer, while n8n's Retry of a failed execution and Retry On
 *   Fail (the same run again) are not.
 */
function transferIdOf(
	transfer: { topUpKey?: string; rechargeAccount?: string },
	origin: TransferOrigin,
): { transferId: string } | { issue: string; hint: string } {
	if (transfer.topUpKey !== undefined) {
		const shown = transfer.topUpKey.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 15) || 'key';
		return {
			transferId: `${shown}-${digest([transfer.rechargeAccount, transfer.topUpKey], MAX_ID - shown.length - 1)}`,
		};
	}
	if (origin.payEveryRun)
		return {
			transferId: `run-${digest([origin.workflowId, origin.nodeId, origin.runId, origin.runIndex, origin.itemIndex], MAX_ID - 4)}`,
		};
	return {
		issue:
			"is empty, and so is 'Transfer ID': the node cannot tell this top-up from a repeat of it",
		hint: "Set 'Top-Up Key' to what makes it the same top-up in any run, e.g. the event's ID ({{ $json.body.eventId }}), a column of your sheet, or {{ $today.toISODate() }} for once a day; or give the row a 'Transfer ID' under Additional Fields; or, if every run should pay again, turn on Options > 'Pay Again on Every Run'.",
	};
}

const withoutKey = (transfer: IDataObject): IDataObject =>
	Object.fromEntries(Object.entries(transfer).filter(([field]) => field !== 'topUpKey'));

export const internalTransfer: PayoutOperation<z.output<typeof schema>> = {
	value: 'internalTransfer',
	api: 'internalTransfer',
	name: 'Internal Transfer',
	description: "Move an amount between the merchant's own payout accounts",
	action: 'Send an internal transfer',
	movesMoney: true,
	host: 'payout',
	properties: [
		amountProperty('Decimal amount, at least 1.00, with at most 2 decimal places'),
		{
			displayName: 'Recharge Account',
			name: 'rechargeAccount',
			type: 'string',
			default: '',
			required: true,
			description: 'Number of the internal recharge account (letters and digits)',
		},
		{
			displayName: 'Top-Up Key',
			name: 'topUpKey',
			type: 'string',
			default: '',
			placeholder: 'e.g. {{ $json.body.eventId }}',
			description:
				"Same key and account, one top-up, paid once by this workflow: e.g. the event's ID, or {{ $today.toISODate() }} for once a day. A copy of the workflow, or another n8n, pays it again.",
		},
		additionalFields([
			{
				displayName: 'Transfer ID',
				name: 'transferId',
				type: 'string',
				default: '',
				description:
					"Your ID of this transfer: letters, digits, hyphen and underscore, at most 40. The same Transfer ID is the same transfer, paid once by this workflow in any run. Takes the place of 'Top-Up Key'.",
			},
		]),
	],
	transferIdWhenEmpty: transferIdOf,
	schema: () => schema,
	// The Top-Up Key names the transfer; the service never sees it.
	request: (transfer) => endpoints.internalTransfer(withoutKey(transfer)),
	output: (answer, transfer) => [
		{
			status: answer.status,
			subCode: answer.subCode,
			message: answer.message,
			transferId: (answer.data?.transferId as string | undefined) ?? transfer.transferId ?? null,
		},
	],
};

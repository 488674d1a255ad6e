/**
 * What the unit tests share: the real operations, a fixed clock, and rows checked and planned as
 * the node plans them (input/planned.ts `plannedTransfer`), without n8n: each Planned row is made
 * by the operation's own schema, Transfer ID rule and request, never written by hand.
 */
import { DateTime } from 'luxon';

import { get as getBeneficiary } from '../../nodes/PayoutsBeneficiary/operations/get';
import { getMany as getIncidents } from '../../nodes/PayoutsIncident/operations/getMany';
import { generateToken } from '../../nodes/PayoutsOAuth/operations/generateToken';
import { getStatus as getPaylinkStatus } from '../../nodes/PayoutsPaylink/operations/getStatus';
import { cardTransfer } from '../../nodes/PayoutsTransfer/operations/cardTransfer';
import { internalTransfer } from '../../nodes/PayoutsTransfer/operations/internalTransfer';
import { standardTransfer } from '../../nodes/PayoutsTransfer/operations/standardTransfer';
import type {
	Clock,
	OperationName,
	Params,
	PayoutOperation,
	Planned,
	TransferOrigin,
} from '../../nodes/shared/types';

/** Every operation of every node, by its name in the service (the error table's names). */
export const OPERATIONS: Record<OperationName, PayoutOperation> = {
	cardTransfer,
	standardTransfer,
	internalTransfer,
	getBeneficiary,
	getIncidents,
	getPaylinkStatus,
	generateToken,
};

/** A workflow timezone without daylight saving time, so that day arithmetic is plain. */
export const TIMEZONE = 'Asia/Kolkata';
export const CLOCK: Clock = {
	timezone: TIMEZONE,
	now: DateTime.fromISO('2026-11-27T12:00:00', { zone: TIMEZONE }),
};

export const ORIGIN: TransferOrigin = {
	workflowId: 'wf1',
	nodeId: 'node1',
	runId: 'run1',
	runIndex: 0,
	itemIndex: 0,
	payEveryRun: false,
};

/** A row that passes the operation's rules, as the user would fill it in. */
export const VALID_ROWS: Record<OperationName, Params> = {
	cardTransfer: {
		token: 'tok_4111_card_1',
		amount: '100.50',
		transferId: 'card_payout_0001',
		cardType: 'DEBIT',
	},
	standardTransfer: {
		beneId: 'JOHN18011343',
		amount: '1500.50',
		transferId: 'nov_payout_0001',
		transferMode: 'IMPS',
	},
	internalTransfer: {
		amount: '500',
		rechargeAccount: 'RECHARGE001',
		transferId: 'topup-2026-11-27',
	},
	getBeneficiary: { beneId: 'JOHN18011343' },
	getIncidents: { status: 'ALL' },
	getPaylinkStatus: { paylinkId: 'invoice_2026_0042' },
	generateToken: { authCode: 'auth-code-1' },
};

/** A row's field issues as [field, words], in the order the schema reports them (zod issue path). */
export function issuesOf(
	operation: PayoutOperation,
	row: Params,
	clock: Clock = CLOCK,
): Array<[string, string]> {
	const result = operation.schema(clock).safeParse(row);
	return result.success
		? []
		: result.error.issues.map((issue) => [issue.path.join('.'), issue.message]);
}

/** The values the row is sent with; throws, naming the issues, when the row does not pass. */
export function valuesOf(operation: PayoutOperation, row: Params, clock: Clock = CLOCK): Params {
	const result = operation.schema(clock).safeParse(row);
	if (!result.success)
		throw new Error(`${operation.value}: ${JSON.stringify(result.error.issues)}`);
	return result.data;
}

/** A row as the node plans it: checked, given its Transfer ID (internal rows without one), with its request. */
export function plan(
	operation: PayoutOperation,
	row: Params = VALID_ROWS[operation.api],
	index = 0,
	origin: Omit<TransferOrigin, 'itemIndex'> = ORIGIN,
): Planned {
	let params = valuesOf(operation, row);
	let madeForRun = false;
	if (operation.transferIdWhenEmpty && params.transferId === undefined) {
		const made = operation.transferIdWhenEmpty(params, { ...origin, itemIndex: index });
		if ('issue' in made) throw new Error(`${operation.value}: ${made.issue}`);
		params = { ...params, transferId: made.transferId };
		madeForRun = params.topUpKey === undefined;
	}
	const entry: Planned = {
		index,
		params,
		request: operation.request(params),
		...(madeForRun ? { madeForRun: true as const } : {}),
	};
	if (operation.movesMoney) entry.transferId = String(params.transferId);
	return entry;
}

/**
 * What the service holds, read as a user reads it, for the engine suites' assertions: the
 * sandbox's ledger (what was booked), its request log (what reached it) and the dashboard's export
 * (each Transfer ID's status, as a CSV the user maps into Settle With Dashboard Status).
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { Sandbox } from '../../harness/sandbox';

export interface Booked {
	transferId: string;
	amount: number;
	status: string;
	operation: string;
}

/** Every transfer the service booked, in the order booked. */
export const booked = (sandbox: Sandbox) => sandbox.state().transfers as Booked[];

/** The Transfer ID of every transfer request that reached the service, in the order received. */
export const transferRequests = (sandbox: Sandbox) =>
	sandbox
		.requests()
		.filter(
			(request) =>
				request.method === 'POST' &&
				/\/payout\/v[\d.]+\/(cardpay|requestTransfer|internalTransfer)$/.test(request.path),
		)
		.map((request) => (request.body as { transferId?: string }).transferId);

/** Each Transfer ID booked once, and the amounts booked are exactly the payouts meant: each paid once. */
export function expectEachPaidOnce(sandbox: Sandbox, amounts: number[]) {
	const transfers = booked(sandbox);
	expect(transfers.map((transfer) => transfer.transferId)).toEqual([
		...new Set(transfers.map((transfer) => transfer.transferId)),
	]);
	expect(transfers.map((transfer) => transfer.amount).sort((a, b) => a - b)).toEqual(
		[...amounts].sort((a, b) => a - b),
	);
}

/**
 * The dashboard's export as it stands now (the sandbox's CSV): each Transfer ID's status, NOT_FOUND
 * for one it does not list. Taken once and used later, it is an export older than what came since.
 */
export function dashboardExport(sandbox: Sandbox): (transferId: unknown) => string {
	const statusOf = new Map(
		sandbox
			.dashboardCsv()
			.split('\r\n')
			.slice(1)
			.map((line) => line.split(',') as [string, string]),
	);
	return (transferId) => statusOf.get(String(transferId)) ?? 'NOT_FOUND';
}

/** How many items have each status, e.g. { SUCCESS: 2, UNKNOWN: 1 }. */
export const statusCount = (items: INodeExecutionData[]) =>
	items.reduce<Record<string, number>>(
		(counts, item) => ({
			...counts,
			[String(item.json.status)]: (counts[String(item.json.status)] ?? 0) + 1,
		}),
		{},
	);

/** Each item's status, in output order. */
export const statuses = (items: Array<{ json: IDataObject }>) =>
	items.map((item) => item.json.status);

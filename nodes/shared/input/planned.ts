import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { DASHBOARD_STATUS_OPTION, readDashboardStatus } from './dashboardStatus';
import { parameterValue, shown } from './parameters';
import type { EarlierReport, Params, PayoutOperation, Planned, TransferOrigin } from '../types';

/**
 * What a row that passed its rules becomes: the transfer as it will be sent, and the batch's rule
 * that one Transfer ID is one transfer. A row refused here is refused before anything is sent;
 * items.ts makes the refusal that names the item.
 */

/** Why a row is not sent: the rule it breaks, and what to do. */
interface Refusal {
	rule: string;
	hint: string;
}

/** Where the run is, for Transfer IDs made for rows without one (TransferOrigin without the row). */
export type RunOrigin = Omit<TransferOrigin, 'itemIndex'>;

/**
 * A valid row as it will be sent: for an internal row without a Transfer ID, the one made of its
 * Top-Up Key (or of the run, where every run pays); for a transfer the node guards, what the
 * dashboard says of it (Options > Dashboard Status).
 */
export function plannedTransfer(
	context: IExecuteFunctions,
	operation: PayoutOperation,
	names: Map<string, string>,
	index: number,
	item: INodeExecutionData | undefined,
	checked: Params,
	origin: RunOrigin,
): { entry: Planned } | { refused: Refusal } {
	let params = checked;
	let madeForRun = false;
	if (operation.transferIdWhenEmpty && params.transferId === undefined) {
		const made = operation.transferIdWhenEmpty(params, { ...origin, itemIndex: index });
		if ('issue' in made)
			return {
				refused: {
					rule: `'${names.get('topUpKey') ?? 'Top-Up Key'}' ${made.issue}`,
					hint: made.hint,
				},
			};
		params = { ...params, transferId: made.transferId };
		madeForRun = params.topUpKey === undefined;
	}
	const entry: Planned = {
		index,
		params,
		request: operation.request(params),
		...(madeForRun ? { madeForRun: true as const } : {}),
	};
	if (!operation.movesMoney) return { entry };
	entry.transferId = String(params.transferId);
	const given = parameterValue(context, 'options.dashboardStatus', index, item);
	const dashboard = readDashboardStatus(given);
	const option = DASHBOARD_STATUS_OPTION.replace(/^Options > /, '');
	if (dashboard && 'issue' in dashboard)
		return {
			refused: {
				rule: `${option} ${dashboard.issue} (given: ${shown(given)})`,
				hint: `Map ${option} to the dashboard's status of this row's Transfer ID, or leave it empty.`,
			},
		};
	// What an earlier Payouts Transfer node said of the row (a retry branch on its error output): run/ judges it.
	const earlier = earlierReport(item);
	if (earlier) entry.earlier = earlier;
	return { entry: dashboard ? { ...entry, dashboard } : entry };
}

/** What an earlier Payouts Transfer node said of the row, where its error item reaches this node (On Error: Continue (using error output)). */
function earlierReport(item: INodeExecutionData | undefined): EarlierReport | undefined {
	const error = item?.json.error as IDataObject | undefined;
	if (!error || typeof error !== 'object' || typeof error.transferId !== 'string') return undefined;
	if (error.status !== 'UNKNOWN' && error.status !== 'ALREADY_EXISTS') return undefined;
	return {
		status: error.status,
		transferId: error.transferId,
		hint: typeof error.hint === 'string' ? error.hint : undefined,
		nextStep: typeof error.nextStep === 'string' ? error.nextStep : undefined,
	};
}

/** Two rows with one Transfer ID would be one transfer: neither is sent, and each names the other. */
export function sharedTransferIds(planned: Planned[]): Map<number, Refusal> {
	const byId = new Map<string, number[]>();
	for (const { index, params } of planned) {
		if (typeof params.transferId === 'string')
			byId.set(params.transferId, [...(byId.get(params.transferId) ?? []), index]);
	}
	const refusals = new Map<number, Refusal>();
	for (const [transferId, indexes] of byId) {
		if (indexes.length < 2) continue;
		for (const index of indexes) {
			const others = indexes.filter((other) => other !== index).join(', ');
			const key = planned.find((entry) => entry.index === index)?.params.topUpKey;
			refusals.set(
				index,
				key === undefined
					? {
							rule: `'Transfer ID' ${transferId} is also used by item ${others}`,
							hint: "Give each row its own 'Transfer ID': one Transfer ID is one transfer.",
						}
					: {
							rule: `'Top-Up Key' ${shown(key)} is also used by item ${others}`,
							hint: "Give each top-up its own 'Top-Up Key' (e.g. add the row's own column to it): one key is one transfer, paid once.",
						},
			);
		}
	}
	return refusals;
}

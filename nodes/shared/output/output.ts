import type { IDataObject, IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { Failure, Outcomes, ApiRequest, Params, PayoutOperation } from '../types';
import type { SendTarget } from '../transport/target';

/**
 * The routine's last step: what the user sees. Items in input order, each paired with the item it
 * came from; failures as error items (Continue On Fail, the error output) or as the error that
 * stops the run, with the hint and, for a stopped batch, every item whose request went out.
 */

type Node = ReturnType<IExecuteFunctions['getNode']>;

export function outputItems(
	node: Node,
	count: number,
	outcomes: Outcomes,
	notes: Map<number, IDataObject>,
	paramsOf: Map<number, Params>,
): INodeExecutionData[][] {
	const errorOutput = node.onError === 'continueErrorOutput';
	const output: INodeExecutionData[] = [];
	for (let index = 0; index < count; index++) {
		const outcome = outcomes.get(index);
		if (!outcome) continue;
		const note = notes.get(index);
		if ('items' in outcome) {
			for (const json of outcome.items)
				output.push({ json: { ...json, ...note }, pairedItem: { item: index } });
		} else {
			const params = paramsOf.get(index);
			const json = errorOutput
				? errorOutputItem(outcome.failure, params)
				: errorItem(outcome.failure, params);
			// The error output routes items whose only field is `error`: a note goes inside it.
			if (note && errorOutput) Object.assign(json.error as IDataObject, note);
			else if (note) Object.assign(json, note);
			output.push({ json, pairedItem: { item: index } });
		}
	}
	return [output];
}

/**
 * Items refused before the first request (invalid, or refused by the Incident Guard) stop the whole
 * batch unless the user chose to continue on failure: a batch with a bad row moves no money.
 */
export function refuseBatchIfAny(
	node: Node,
	outcomes: Outcomes,
	continueOnFail: boolean,
	what: string,
) {
	if (continueOnFail) return;
	const refused = [...outcomes.keys()]
		.filter((index) => (outcomes.get(index) as { failure?: Failure }).failure?.invalid)
		.sort((a, b) => a - b);
	if (refused.length === 0) return;
	const first = outcomes.get(refused[0]) as { failure: Failure };
	const rest = refused.slice(1);
	const others =
		rest.length > 0 ? ` Also ${what}: item${rest.length > 1 ? 's' : ''} ${rest.join(', ')}.` : '';
	const error = toNodeError(
		node,
		refused[0],
		first.failure,
		`No item was sent: every item is checked before the first request.${others}`,
	);
	Object.assign(error.context, { rows: rowsOf(outcomes, new Map()), nothingSent: true });
	throw error;
}

/** Every row's status, for tools that read an error that ended the run (`context.rows`). */
function rowsOf(outcomes: Outcomes, paramsOf: Map<number, Params>): IDataObject[] {
	return [...outcomes.entries()]
		.sort(([a], [b]) => a - b)
		.map(([index, outcome]) =>
			'failure' in outcome
				? {
						item: index,
						status: outcome.failure.status,
						nextStep: outcome.failure.nextStep,
						message: outcome.failure.message,
						hint: outcome.failure.hint,
						transferId:
							outcome.failure.transferId ??
							(paramsOf.get(index)?.transferId as string | undefined) ??
							null,
					}
				: {
						item: index,
						status: outcome.items[0]?.status ?? null,
						message: outcome.items[0]?.message ?? null,
						transferId:
							outcome.items[0]?.transferId ??
							(paramsOf.get(index)?.transferId as string | undefined) ??
							null,
					},
		);
}

/**
 * Without Continue On Fail, a run whose rows need the user ends with one error, once every row
 * that could go out went out: it names each such row with its status and what to do, and, for
 * transfers, every row sent in the run with what is known of it and its bank references, so that
 * no paid row is left unaccounted for. `context.rows` holds the same, one entry per row.
 */
export function throwIfAnyFailed(
	node: Node,
	outcomes: Outcomes,
	sent: { items: number[]; madeForRun: Set<number> } | undefined,
	paramsOf: Map<number, Params>,
) {
	const sentItems = sent?.items;
	const failed = [...outcomes.entries()]
		.filter((entry): entry is [number, { failure: Failure }] => 'failure' in entry[1])
		.sort(([a], [b]) => a - b);
	if (failed.length === 0) return;
	const [firstIndex, { failure: first }] = failed[0];
	const others = failed
		.slice(1)
		.map(
			([index, { failure }]) =>
				`item ${index}: ${failure.status} (${failure.nextStep}): ${failure.message.replace(/ \[item \d+\]$/, '')}`,
		);
	const listed =
		others.length > 0
			? ` ${others.length} other row${others.length > 1 ? 's' : ''} need${others.length > 1 ? '' : 's'} you too: ${others.join('; ')}.`
			: '';
	const sentWords = sent
		? ` ${sentNote(
				sent.items.filter((index) => !failed.some(([failedIndex]) => failedIndex === index)),
				outcomes,
				sent.madeForRun,
			)}`
		: '';
	const before = [...outcomes.entries()]
		.filter(
			([index, outcome]) =>
				'items' in outcome &&
				outcome.items[0]?.status === 'ALREADY_SUBMITTED' &&
				!sentItems?.includes(index),
		)
		.map(([index]) => index);
	const paidBefore =
		before.length > 0
			? ` Not sent, paid before (ALREADY_SUBMITTED): item${before.length > 1 ? 's' : ''} ${before.sort((a, b) => a - b).join(', ')}.`
			: '';
	const error = toNodeError(
		node,
		firstIndex,
		failed.length > 1
			? {
					...first,
					message: `${needYou(failed.map(([, { failure }]) => failure))}; the first: ${first.message}`,
				}
			: first,
		`${listed}${sentWords}${paidBefore}`.trim(),
	);
	Object.assign(error.context, { rows: rowsOf(outcomes, paramsOf) });
	throw error;
}

/** What the rows that need the user are, by status: a row in doubt may have been paid, and is never called unpaid. */
const WHAT_THEY_ARE: Record<Failure['status'], { alone: string; part: string }> = {
	ERROR: { alone: 'were not paid', part: 'not paid' },
	UNKNOWN: {
		alone: 'are in doubt (they may have been paid)',
		part: 'in doubt, may have been paid',
	},
	ALREADY_EXISTS: {
		alone: 'are held by the service under their Transfer ID',
		part: 'held by the service under their Transfer ID',
	},
};

/** "3 rows were not paid and need you", or, of rows of several kinds, "3 rows need you (2 not paid, 1 in doubt, …)". */
function needYou(failures: Failure[]): string {
	const counts = (Object.keys(WHAT_THEY_ARE) as Array<Failure['status']>)
		.map((status) => ({ status, count: failures.filter((f) => f.status === status).length }))
		.filter(({ count }) => count > 0);
	if (counts.length === 1)
		return `${failures.length} rows ${WHAT_THEY_ARE[counts[0].status].alone} and need you`;
	const parts = counts.map(({ status, count }) => `${count} ${WHAT_THEY_ARE[status].part}`);
	return `${failures.length} rows need you (${parts.join(', ')})`;
}

/**
 * Every other row whose request went out in this run, with what is known of it and its bank
 * references, and what running the same rows again does to them: nothing where each has a key of
 * its own; where a Transfer ID was made for this execution (Pay Again on Every Run), a new
 * execution pays those rows again.
 */
function sentNote(sentItems: number[], outcomes: Outcomes, madeForRun: Set<number>): string {
	if (sentItems.length === 0) return 'No other transfer was sent in this run.';
	const describe = (index: number) => {
		const outcome = outcomes.get(index);
		if (!outcome || 'failure' in outcome)
			return `item ${index}: ${outcome ? outcome.failure.status : 'no answer'}`;
		const { status, referenceId, utr } = outcome.items[0] ?? {};
		const references = [
			referenceId ? `referenceId ${String(referenceId)}` : '',
			utr ? `utr ${String(utr)}` : '',
		]
			.filter(Boolean)
			.join(', ');
		return `item ${index}: ${String(status)}${references ? ` (${references})` : ''}`;
	};
	const paid = (index: number) => {
		const outcome = outcomes.get(index);
		return outcome !== undefined && !('failure' in outcome);
	};
	const again = sentItems.filter((index) => madeForRun.has(index) && paid(index));
	const rerun =
		madeForRun.size > 0
			? `Options > 'Pay Again on Every Run' is on: once the causes are fixed, retry this execution (n8n's Retry, from the Executions list): it sends the rows that need you under the same Transfer IDs and pays none twice. Do not run them in a new execution as well: there every row is a new transfer${again.length > 0 ? `, and item${again.length > 1 ? 's' : ''} ${again.sort((a, b) => a - b).join(', ')}, paid in this execution, would be paid again` : ''}.`
			: 'Running the same rows again pays none of them twice.';
	return `Sent in this run: ${[...sentItems]
		.sort((a, b) => a - b)
		.map(describe)
		.join('; ')}. ${rerun}`;
}

function toNodeError(node: Node, itemIndex: number, failure: Failure, note: string) {
	const description = note ? `${failure.hint} ${note}` : failure.hint;
	if (!failure.fromService)
		return new NodeOperationError(node, failure.message, { itemIndex, description });
	const response: JsonObject = {
		status: failure.status,
		subCode: failure.subCode ?? null,
		message: failure.serviceMessage ?? failure.message,
	};
	return new NodeApiError(node, response, {
		message: failure.message,
		description,
		httpCode: failure.subCode,
		itemIndex,
	});
}

function errorItem(failure: Failure, params: Params | undefined): IDataObject {
	const item: IDataObject = {
		error: failure.message,
		status: failure.status,
		subCode: failure.subCode ?? null,
		message: failure.serviceMessage ?? failure.message,
		hint: failure.invalid ? `${failure.hint} Nothing was sent for this item.` : failure.hint,
		nextStep: failure.nextStep,
	};
	const transferId = failure.transferId ?? params?.transferId;
	if (typeof transferId === 'string') item.transferId = transferId;
	return item;
}

/**
 * For On Error "Continue (using error output)": n8n routes an item whose only field is `error`
 * to the error output and adds the input item's fields to it, so the failed row arrives whole,
 * with the details under `error`.
 */
function errorOutputItem(failure: Failure, params: Params | undefined): IDataObject {
	const { error, message, ...details } = errorItem(failure, params);
	return { error: { message: error, serviceMessage: message, ...details } };
}

export function dryRunItem(
	operation: PayoutOperation,
	target: SendTarget,
	request: ApiRequest,
): IDataObject {
	const body = request.body ? { ...request.body } : undefined;
	for (const field of operation.secretFields ?? [])
		if (body && body[field] !== undefined) body[field] = '***';
	const query = request.qs
		? `?${new URLSearchParams(request.qs as Record<string, string>).toString()}`
		: '';
	const item: IDataObject = {
		dryRun: true,
		method: request.method,
		url: `${target.baseUrl}${request.path}${query}`,
	};
	if (body) item.body = body;
	return item;
}

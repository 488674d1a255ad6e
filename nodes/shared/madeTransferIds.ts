import type { IExecuteFunctions } from 'n8n-workflow';

import { fingerprint } from './record';
import type { Failure, Outcome, Outcomes, Planned, Run } from './routine';

/**
 * Internal transfers without a Transfer ID get one made of what they are (the workflow, the node,
 * the amount and account, how many identical rows came before them in the run) and of their
 * scope: the row's Top-Up Key if it has one, else the node's current top-up round (record/rounds.ts):
 * the same row is the same top-up while the run that sent it is unfinished, a new one after.
 */
export async function withTransferIds(context: IExecuteFunctions, run: Run, planned: Planned[], outcomes: Outcomes) {
	const { operation, record, workflowId } = run;
	const keyOf = (index: number) => String(context.getNodeParameter('options.topUpKey', index, '') ?? '').trim();
	const needing = operation.transferIdWhenEmpty ? planned.filter((entry) => entry.params.transferId === undefined) : [];
	const keys = new Map(needing.map((entry) => [entry.index, keyOf(entry.index)]));
	const inRound = needing.filter((entry) => !keys.get(entry.index)).map((entry) => entry.index);
	// A dry run asks the record nothing: its rows show where the made ID goes.
	const round = inRound.length > 0 && record ? await record.round() : undefined;
	const seen = new Map<string, number>();
	const result: Planned[] = [];
	for (const entry of planned) {
		if (!keys.has(entry.index)) {
			result.push(entry);
			continue;
		}
		const key = keys.get(entry.index);
		if (!key && round && 'cannotTell' in round) {
			outcomes.set(entry.index, { failure: cannotTellTopUp(entry, round.cannotTell) });
			continue;
		}
		const scope = key ? `key:${key}` : round && 'round' in round ? `round:${round.round}` : undefined;
		const values = fingerprint(operation.value, entry.request.body ?? {});
		const occurrence = seen.get(`${scope}|${values}`) ?? 0;
		seen.set(`${scope}|${values}`, occurrence + 1);
		const transferId = scope === undefined ? MADE_WHEN_SENT : operation.transferIdWhenEmpty?.(entry.params, { workflowId, nodeId: context.getNode().id, scope, occurrence });
		const params = { ...entry.params, transferId };
		result.push({ ...entry, params, request: operation.request(params) });
	}
	return { planned: result, round: round && 'round' in round ? round.round : undefined, inRound };
}

export const MADE_WHEN_SENT = '(made when sent)';

/** An outcome that ends a row's part in its top-up round: answered, or refused with no money moved. */
export function definite(outcome: Outcome | undefined): boolean {
	if (!outcome) return false;
	if ('items' in outcome) return true;
	return outcome.failure.status === 'ERROR' && (outcome.failure.fromService || outcome.failure.invalid === true);
}

export function cannotTellTopUp(entry: Planned, why: string): Failure {
	return {
		message: `The node cannot tell whether this top-up repeats an earlier one: ${why} [item ${entry.index}]`,
		hint: "Give the row a 'Transfer ID' under Additional Fields, or set Options > 'Top-Up Key' to name the top-up (e.g. {{ $today.toISODate() }}): rows with the same key, amount and account are one top-up, paid once.",
		status: 'ERROR',
		fromService: false,
		retryable: false,
		invalid: true,
	};
}

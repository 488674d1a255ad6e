import type { IDataObject } from 'n8n-workflow';

import { marks } from './marks';
import type { NodeStore } from './store';

/**
 * Top-up rounds: when an internal transfer without a Transfer ID is "the same top-up" again.
 * The rule is the dedup scope "while the earlier job is unfinished" (Queuert's `completed`
 * strategy, ../shared/STYLE.md): rows get IDs of the node's current round; a run that ends with
 * every such row answered or refused finishes the round, and the next run starts a new one.
 * - a re-run after a crash, a stop on an error or an unknown outcome, or n8n's Retry, is in the
 *   same round: the same IDs, so nothing is paid twice;
 * - next week's run of the same top-up, or a re-run of a completed batch, is in a new round: paid.
 * Runs of the node in one execution (a loop, Retry On Fail) share a round. When a round was
 * shared that way and finished, the node cannot tell whether the execution that shared it
 * finished too, so the next execution's rows are refused with what to set, never guessed.
 *
 * The store only tests-and-sets, so finding the current round records what it asks about; what
 * that recorded wrongly is forgotten again in the same check, and `round:checking` stays recorded
 * if a crash interrupts the check, after which the node says it cannot tell.
 */

export type Round = { round: number } | { cannotTell: string };

/** Rounds asked about per call beyond the last one known. */
const AHEAD = 4;
/** The last round each node used, as far as this process knows (the static data knows it across restarts for production runs). */
const known = new Map<string, number>();
/** The round each execution uses, so that its later runs of the node (loops, retries) share it. */
const joined = new Map<string, { round: number; finished: boolean }>();
const MAX_JOINED = 1000;
const joinKey = (store: NodeStore, executionId: string) => `${executionId}|${store.key}`;

/**
 * The round of this run. A run joins the last round even when it is finished, instead of starting
 * a new one, when it `repeats` another: n8n's Retry of a failed execution (it never makes new
 * top-ups), or a run that waited for another run of the node (two executions at once are one).
 */
export async function currentRound(store: NodeStore, executionId: string, staticData: IDataObject, repeats: boolean, full: () => Promise<boolean>): Promise<Round> {
	const shared = joined.get(joinKey(store, executionId));
	if (shared) {
		// A loop runs the node again after it finished the round; Retry On Fail runs it again unfinished.
		if (shared.finished) await store.mark([marks.roundOpen(shared.round), marks.roundShared(shared.round)]);
		shared.finished = false;
		return { round: shared.round };
	}
	const hint = Math.max(1, known.get(store.key) ?? 0, Number(staticData.payoutsRound) || 0);
	const found = await findRound(store, hint, repeats, full);
	if ('round' in found) {
		known.set(store.key, found.round);
		staticData.payoutsRound = found.round;
		joined.set(joinKey(store, executionId), { round: found.round, finished: false });
		if (joined.size > MAX_JOINED) joined.delete(joined.keys().next().value as string);
	}
	return found;
}

/** The run ended with every row of the round answered or refused. */
export async function finishRound(store: NodeStore, executionId: string, round: number): Promise<void> {
	await store.forget([marks.roundOpen(round)]);
	const shared = joined.get(joinKey(store, executionId));
	if (shared) shared.finished = true;
}


async function findRound(store: NodeStore, hint: number, repeats: boolean, full: () => Promise<boolean>): Promise<Round> {
	const recorded = new Set<string>();
	const ask = async (wanted: string[]) => {
		const { value: seen } = await store.mark(wanted);
		for (const mark of wanted) if (!seen.has(mark)) recorded.add(mark);
		return seen;
	};
	const first = await ask([marks.roundChecking, marks.round(1), marks.round(hint), marks.roundOpen(hint), marks.roundShared(hint)]);
	// Back to this state in the end: only what the decision keeps stays recorded (`round:checking`
	// included, unless an earlier, interrupted check had left it).
	const undo = async () => await store.forget(recorded);
	const finish = async (round: number, keep: string[]) => {
		await store.mark(keep);
		for (const mark of keep) recorded.delete(mark);
		await undo();
		return { round };
	};
	const cannotTell = async (why: string) => {
		await undo();
		return { cannotTell: why };
	};
	if (first.has(marks.roundChecking)) return await cannotTell('a check of its record was interrupted (n8n stopped at that moment), so it cannot tell whether its last run of these top-ups finished');
	if (!first.has(marks.round(1))) {
		// No round yet, unless the record is full and has dropped its oldest marks.
		if (await full()) return await cannotTell('its record is full and may have dropped the marks of its top-up rounds');
		return await finish(1, [marks.round(1), marks.roundOpen(1)]);
	}
	if (!first.has(marks.round(hint))) return await cannotTell('its record no longer holds the round it last used (it was cleared, or is full and dropped it)');
	// The last round started: the first one not recorded, minus one.
	let last = hint;
	for (let from = hint + 1; ; from += AHEAD) {
		const wanted = Array.from({ length: AHEAD }, (_, offset) => marks.round(from + offset));
		const seen = await ask(wanted);
		const free = wanted.findIndex((mark) => !seen.has(mark));
		if (free >= 0) {
			last = from + free - 1;
			break;
		}
	}
	const state = last === hint ? first : await ask([marks.roundOpen(last), marks.roundShared(last)]);
	if (state.has(marks.roundOpen(last))) return await finish(last, []);
	if (repeats) return await finish(last, [marks.roundOpen(last)]);
	if (state.has(marks.roundShared(last))) {
		return await cannotTell('its last round of these top-ups was shared by several runs of the node in one execution (a loop) and then finished, and it cannot tell whether that execution finished too');
	}
	return await finish(last + 1, [marks.round(last + 1), marks.roundOpen(last + 1)]);
}

import type { IDataObject } from 'n8n-workflow';

import { NO_ANSWER_IN_A_ROW, rowOutcome, serviceDown } from '../outcomes/messages';
import { redactor } from '../redact';
import type { Claim } from '../record';
import type { Run } from './run';
import { cancelled, dryRun, digestOf, sendRow } from './sendRow';
import type { Outcome, Outcomes, Planned } from '../types';

/**
 * Step 2 of the routine: the checked items sent in lanes, at most Concurrency at once and Requests
 * Per Second a second, each row by sendRow.ts. A row that needs the user never keeps the others
 * from going out: the run stops sending only on a failure that every row would meet (a refused
 * account, a wrong Base URL, the record unwritable or full) or when the service gives no answer
 * several times in a row, and says so on each row it did not send.
 */

interface Sent {
	/** Items whose request went out in this run, for the error that ends a batch. */
	sentItems: number[];
}

export async function sendItems(
	run: Run,
	planned: Planned[],
	outcomes: Outcomes,
	secretsOf: Map<number, unknown[]>,
	notes: Map<number, IDataObject>,
): Promise<Sent> {
	const sent: Sent = { sentItems: [] };
	if (run.options.dryRun) {
		for (const entry of planned) outcomes.set(entry.index, { items: [dryRun(run, entry)] });
		return sent;
	}
	const claims = claimsAhead(run, planned);
	let noAnswerInARow = 0;
	await forEachBounded(planned, run.options.concurrency, async (entry, position) => {
		let outcome: Outcome;
		// The run sends nothing more; where a record holds the rows, each still reads what it holds (paid, in doubt).
		if (run.stopped && !run.record)
			outcome = rowOutcome(entry, { kind: 'notSentAfter', stopped: run.stopped }, run);
		else if (cancelled(run)) outcome = rowOutcome(entry, { kind: 'stoppedBeforeSending' }, run);
		else {
			if (!run.stopped) await run.pace?.();
			const redact = redactor(secretsOf.get(entry.index) ?? []);
			outcome = await sendRow(run, entry, {
				claim: () => claims.of(position),
				redact,
				onSend: () => sent.sentItems.push(entry.index),
				notes,
			});
		}
		outcomes.set(entry.index, outcome);
		if (!('failure' in outcome)) noAnswerInARow = 0;
		else if (outcome.failure.stopsBatch) run.stopped ??= outcome.failure;
		// A request Stop cut off says nothing of the service.
		else if (outcome.failure.noAnswer && !cancelled(run)) {
			noAnswerInARow++;
			if (noAnswerInARow >= NO_ANSWER_IN_A_ROW && run.operation.movesMoney)
				run.stopped ??= serviceDown(outcome.failure);
		} else noAnswerInARow = 0;
	});
	return sent;
}

/**
 * Rows are claimed a little ahead of the lanes, so that sending seldom waits for the store: as far
 * as the lanes get while two store calls go by, never more than Concurrency rows ahead, and none
 * where requests are paced (a claim waits for its turn then). Where this node guards, after a crash
 * those rows and the ones in flight are claimed but unsent or unanswered: at most twice Concurrency.
 * Where the service guards, a new row claimed and never sent costs nothing (a re-run sends it, and
 * the service books it once), so claims go in chunks more: a store call reads and writes the whole
 * record, and costs about the same for one row as for a hundred. A chunk starts at Concurrency rows
 * and doubles up to CLAIM_CHUNK × Concurrency while every row claimed was new; a row the record
 * held (a re-run) brings it back to Concurrency, because asking about a paid row writes "no clear
 * answer" until its forget lands, and n8n killed meanwhile leaves those rows in doubt. The next
 * chunk is asked for once half of one is left, so that the lanes never wait for it on a large
 * record, where a claim may wait behind another call as long as its own.
 */
const CLAIM_CHUNK = 8;

function claimsAhead(run: Run, planned: Planned[]) {
	const { record, options } = run;
	const claims: Array<Promise<Claim>> = [];
	const started = Date.now();
	let next = 0;
	let chunk = run.guard === 'service' && !run.pace ? options.concurrency : 0;
	// The last chunk's claims: how many, how many have come back, and whether one found a row the record held.
	let last = { asked: 0, back: 0, held: false };
	const ahead = (taken: number) => {
		if (!record || run.pace) return 0;
		const perSecond = taken / Math.max(0.2, (Date.now() - started) / 1000);
		return Math.min(options.concurrency, Math.ceil((perSecond * 2 * record.lastCallMs()) / 1000));
	};
	const claim = (entry: Planned) => {
		const claimed = record!.claim(
			entry.index,
			String(entry.transferId),
			digestOf(run, entry),
			entry.dashboard,
		);
		const of = last;
		void claimed.then((found) => {
			of.back++;
			if (found.kind !== 'claimed' || found.earlier !== 'none') of.held = true;
		});
		return claimed;
	};
	/** The next chunk: back to Concurrency after a row the record held, twice the last once all of it came back new. */
	const nextChunk = () => {
		if (last.held) return options.concurrency;
		if (last.back < last.asked) return chunk;
		return Math.min(CLAIM_CHUNK * options.concurrency, chunk * 2);
	};
	return {
		async of(position: number): Promise<Claim | undefined> {
			if (!record) return undefined;
			const lead = position + 1 + ahead(position);
			if (next < lead + chunk / 2) {
				if (chunk > 0) chunk = nextChunk();
				const until = Math.min(planned.length, lead + chunk);
				last = { asked: Math.max(0, until - next), back: 0, held: false };
				for (; next < until; next++) {
					// A row the run will not reach (stopped) is not claimed.
					if (next > position && (run.stopped || cancelled(run))) break;
					claims[next] = claim(planned[next]);
				}
			}
			return await (claims[position] ?? claim(planned[position]));
		},
	};
}

/** Runs `work` over `list` with at most `limit` in flight. */
async function forEachBounded<T>(
	list: T[],
	limit: number,
	work: (entry: T, position: number) => Promise<void>,
) {
	let next = 0;
	const lane = async () => {
		while (next < list.length) {
			const position = next++;
			await work(list[position], position);
		}
	};
	await Promise.all(Array.from({ length: Math.min(limit, list.length) }, lane));
}

import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import {
	alreadyExists,
	alreadySubmitted,
	cannotPayUnder,
	heldByService,
	inDoubt,
	interpret,
	notPaidByDashboard,
	notSentAfter,
	otherValues,
	recordFailure,
	recordFull,
	refusedResend,
	stoppedBeforeSending,
} from './answers';
import { dryRunItem } from './output';
import { redactor } from './redact';
import { fingerprint } from './record';
import type { Claim } from './record';
import { sentInExecution } from './record/inProcess';
import { ROOM_FOR_NEW } from './record/journal';
import type { Failure, Outcome, Outcomes, Planned, Run } from './routine';
import { send } from './transport';

/**
 * Step 2 of the routine: the checked items sent, at most Concurrency at once and Requests Per
 * Second a second. A transfer goes out only once the record (record/) has claimed it for this run;
 * what the record says of the others becomes ALREADY_SUBMITTED, UNKNOWN or an error here, and each
 * answer tells the record what to keep. A row that needs the user never keeps the others from going
 * out: the run stops sending only on a failure that every row would meet (a refused account, a
 * wrong Base URL, the record unwritable or full) or when the service gives no answer several times
 * in a row, and says so on each row it did not send.
 */

export interface Sent {
	/** Items whose request went out in this run, for the error that ends a batch. */
	sentItems: number[];
}

/** Transfers in a row without any answer after which the service looks down: the run sends nothing more. */
const NO_ANSWER_IN_A_ROW = 3;

export async function sendItems(run: Run, planned: Planned[], outcomes: Outcomes, secretsOf: Map<number, unknown[]>, notes: Map<number, IDataObject>): Promise<Sent> {
	const sent: Sent = { sentItems: [] };
	if (run.options.dryRun) {
		for (const entry of planned) outcomes.set(entry.index, { items: [dryRun(run, entry)] });
		return sent;
	}
	run.pace = pacer(run.options.requestsPerSecond);
	const claims = claimsAhead(run, planned);
	let noAnswerInARow = 0;
	await forEachBounded(planned, run.options.concurrency, async (entry, position) => {
		let outcome: Outcome;
		// The run sends nothing more; where a record holds the rows, each still reads what it holds (paid, in doubt).
		if (run.stopped && !run.record) outcome = { failure: notSentAfter(entry, run.stopped) };
		else if (cancelled(run)) outcome = { failure: stoppedBeforeSending(entry) };
		else {
			if (!run.stopped) await run.pace?.();
			const redact = redactor(secretsOf.get(entry.index) ?? []);
			outcome = await sendOne(run, entry, () => claims.of(position), redact, () => sent.sentItems.push(entry.index), notes);
		}
		outcomes.set(entry.index, outcome);
		if (!('failure' in outcome)) noAnswerInARow = 0;
		else if (outcome.failure.stopsBatch) run.stopped ??= outcome.failure;
		else if (outcome.failure.noAnswer) {
			noAnswerInARow++;
			if (noAnswerInARow >= NO_ANSWER_IN_A_ROW && run.operation.movesMoney) run.stopped ??= serviceDown(outcome.failure);
		} else noAnswerInARow = 0;
	});
	return sent;
}

/** One row: what the record (or this execution, where an earlier step holds the claim) says of it, else sent. */
async function sendOne(run: Run, entry: Planned, claimOf: () => Promise<Claim | undefined>, redact: (text: string) => string, onSend: () => void, notes: Map<number, IDataObject>): Promise<Outcome> {
	if (run.guard === 'earlierStep') return await sendUnderEarlierClaim(run, entry, redact, onSend, notes);
	const claim = await claimOf();
	if (!claim) return (await sendWithRetries(run, entry, redact, onSend)).outcome;
	const record = run.record!;
	if (entry.dashboard) notes.set(entry.index, { ...notes.get(entry.index), ...dashboardNote(entry, claim) });
	switch (claim.kind) {
		case 'recordFailed':
			return { failure: recordFailure(entry, claim.reason) };
		case 'full':
			return { failure: recordFull(entry, claim.size) };
		case 'answered':
			return { items: [alreadySubmitted(entry, claim)] };
		case 'inDoubt':
			return { failure: inDoubt(entry) };
		case 'notPaid':
			return { failure: notPaidByDashboard(entry, claim.word) };
		case 'otherValues':
			return { failure: otherValues(entry) };
	}
	const note = reachNote(run, claim);
	if (note) notes.set(entry.index, { ...notes.get(entry.index), recordNote: note });
	if (run.stopped) {
		record.notSent(entry.index);
		return { failure: notSentAfter(entry, run.stopped) };
	}
	// The service holds this Transfer ID (the dashboard says so) and it moved no money: it never will under it.
	if (entry.dashboard?.verdict === 'failed') {
		if (claim.earlier === 'inDoubt') record.inDoubt(entry.index);
		else record.refused(entry.index);
		return { failure: cannotPayUnder(entry, entry.dashboard.word) };
	}
	// Stop (or the workflow's timeout) came before the request went out: it never will.
	if (cancelled(run)) {
		record.notSent(entry.index);
		return { failure: stoppedBeforeSending(entry) };
	}
	record.sending(entry.index);
	const { outcome, resent } = await sendWithRetries(run, entry, redact, onSend);
	if (!('failure' in outcome)) {
		record.answered(entry.index, referencesOf(outcome.items[0]));
		return outcome;
	}
	const { failure } = outcome;
	const earlierInDoubt = claim.earlier === 'inDoubt' || resent || entry.earlierInDoubt === true;
	if (failure.repeatRefused) {
		const said = { subCode: failure.subCode, message: failure.serviceMessage ?? failure.message };
		if (!earlierInDoubt) {
			// Not this node's (or not in its record): nothing this run sent moved money.
			record.refused(entry.index);
			return { failure: alreadyExists(entry, said) };
		}
		if (!resent && (await record.paidAfterAll(entry.index))) {
			record.paidEarlier(entry.index);
			return { items: [alreadySubmitted(entry)] };
		}
		record.inDoubt(entry.index);
		return { failure: heldByService(entry, said, entry.dashboard?.verdict === 'notFound' ? entry.dashboard.word : undefined) };
	}
	if (failure.status === 'UNKNOWN') {
		record.inDoubt(entry.index);
		return outcome;
	}
	// A clear refusal. Of a re-send of a row in doubt, it says nothing of the earlier request, which may have paid.
	if (earlierInDoubt) {
		record.inDoubt(entry.index);
		return { failure: refusedResend(entry, failure) };
	}
	record.refused(entry.index);
	return outcome;
}

/**
 * Claim Held by an Earlier Step: the earlier step's claims table keeps a transfer to one execution,
 * and within it the node remembers what each transfer came to: n8n's Retry On Fail runs the node
 * again in the same execution, and a retry branch hands its rows to a second node.
 */
async function sendUnderEarlierClaim(run: Run, entry: Planned, redact: (text: string) => string, onSend: () => void, notes: Map<number, IDataObject>): Promise<Outcome> {
	notes.set(entry.index, { ...notes.get(entry.index), claim: CLAIM_HELD_EARLIER });
	const sentHere = sentInExecution(run.executionId);
	const key = `${run.operation.value}|${String(entry.transferId)}|${printOf(run, entry)}`;
	const earlier = sentHere.get(key);
	if (earlier && 'paid' in earlier) return { items: [alreadySubmitted(entry, { first: earlier.paid })] };
	if (earlier) return { failure: sentEarlierInExecution(entry) };
	if (cancelled(run)) return { failure: stoppedBeforeSending(entry) };
	const { outcome } = await sendWithRetries(run, entry, redact, onSend);
	if (!('failure' in outcome)) sentHere.set(key, { paid: referencesOf(outcome.items[0]) });
	else if (outcome.failure.status === 'UNKNOWN') sentHere.set(key, { unknown: true });
	return outcome;
}

/**
 * Sends one request, and again with the same Transfer ID where that is safe and asked for
 * (Options > Resend If No Clear Answer, only where the service refuses a repeat). `resent`: the
 * answer is to a request sent again in this run, after one without a clear answer.
 */
async function sendWithRetries(run: Run, entry: Planned, redact: (text: string) => string, onSend: () => void): Promise<{ outcome: Outcome; resent: boolean }> {
	const { context, operation, target, options } = run;
	for (let attempt = 0; ; attempt++) {
		if (attempt === 0) onSend();
		const answer = await send(context, target, entry.request);
		const outcome = interpret(operation, answer, entry, redact, run.guard);
		if (!('failure' in outcome) || !outcome.failure.retryable || attempt >= options.retries) return { outcome, resent: attempt > 0 };
		await sleep(Math.min(MAX_BACKOFF_MS, BACKOFF_MS * 2 ** attempt));
		// Stopped meanwhile: the row stays as its last answer left it.
		if (cancelled(run)) return { outcome, resent: attempt > 0 };
		await run.pace?.();
	}
}

const BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 4000;

/** What a row sent under an earlier step's claim says of it (Options > Claim Held by an Earlier Step). */
const CLAIM_HELD_EARLIER = 'held by an earlier step of this workflow: this node kept no record of it';

function sentEarlierInExecution(entry: Planned): Failure {
	return {
		message: `The outcome of the transfer is unknown: this execution sent it before (n8n ran the node again, or an earlier Payouts Transfer node sent it) and no clear answer came [item ${entry.index}]`,
		hint: `Not sent again. Keep its claim in the earlier step's table (never give it a new Transfer ID). Once no run is sending it and 10 minutes have passed (a request that timed out can still arrive), look up Transfer ID ${String(entry.transferId)} in the payouts dashboard and write what it says as the claim's outcome.`,
		nextStep: 'settleClaim',
		status: 'UNKNOWN',
		fromService: false,
		retryable: false,
	};
}

/** Several transfers in a row without any answer: the service looks down, and the run sends nothing more. */
function serviceDown(last: Failure): Failure {
	return {
		message: `The service gave no answer to ${NO_ANSWER_IN_A_ROW} transfers in a row, so the run sent nothing more (last: ${last.message.replace(/ \[item \d+\]$/, '')})`,
		hint: 'The rows without an answer are in doubt: each says what to do. Run the rows not sent again once the service answers.',
		nextStep: 'runAgain',
		status: 'ERROR',
		fromService: false,
		retryable: false,
	};
}

/**
 * Rows are claimed a little ahead of the lanes, so that sending seldom waits for the store: as far
 * as the lanes get while two store calls go by, never more than Concurrency rows ahead, and none
 * where requests are paced (a claim waits for its turn then). After a crash, those rows and the ones
 * in flight are claimed but unsent or unanswered: at most twice Concurrency.
 */
function claimsAhead(run: Run, planned: Planned[]) {
	const { record, options } = run;
	const claims: Array<Promise<Claim>> = [];
	const started = Date.now();
	let next = 0;
	const ahead = (taken: number) => {
		if (!record || run.pace) return 0;
		const perSecond = taken / Math.max(0.2, (Date.now() - started) / 1000);
		return Math.min(options.concurrency, Math.ceil((perSecond * 2 * record.lastCallMs()) / 1000));
	};
	return {
		async of(position: number): Promise<Claim | undefined> {
			if (!record) return undefined;
			for (const until = Math.min(planned.length, position + 1 + ahead(position)); next < until; next++) {
				const entry = planned[next];
				// A row the run will not reach (stopped) is not claimed.
				if (next > position && (run.stopped || cancelled(run))) break;
				claims[next] = record.claim(entry.index, String(entry.transferId), printOf(run, entry), entry.dashboard);
			}
			return await (claims[position] ?? record.claim(planned[position].index, String(planned[position].transferId), printOf(run, planned[position]), planned[position].dashboard));
		},
	};
}

const cancelled = (run: Run) => run.context.getExecutionCancelSignal?.()?.aborted === true;

const printOf = (run: Run, entry: Planned) => fingerprint(run.operation.value, entry.request.body ?? {});

/** Runs `work` over `list` with at most `limit` in flight. */
async function forEachBounded<T>(list: T[], limit: number, work: (entry: T, position: number) => Promise<void>) {
	let next = 0;
	const lane = async () => {
		while (next < list.length) {
			const position = next++;
			await work(list[position], position);
		}
	};
	await Promise.all(Array.from({ length: Math.min(limit, list.length) }, lane));
}

/** Requests Per Second: a turn for each request, before it is claimed (re-sends are requests too), at most `perSecond` a second. */
function pacer(perSecond: number): (() => Promise<void>) | undefined {
	if (perSecond <= 0) return undefined;
	const interval = 1000 / perSecond;
	let nextStart = Date.now();
	return async () => {
		const wait = nextStart - Date.now();
		nextStart = Math.max(Date.now(), nextStart) + interval;
		if (wait > 0) await sleep(wait);
	};
}

/** A clear answer's status and references, for a later repeat's ALREADY_SUBMITTED. */
function referencesOf(item: IDataObject): IDataObject {
	return Object.fromEntries(['status', 'subCode', 'referenceId', 'utr', 'acknowledged'].filter((field) => item[field] !== undefined).map((field) => [field, item[field]]));
}

/** What became of a row's Settle With Dashboard Status: used, or why it was not needed. */
function dashboardNote(entry: Planned, claim: Claim): IDataObject {
	const word = entry.dashboard?.word;
	if ('byDashboard' in claim && claim.byDashboard) return { dashboardStatus: word };
	if ('contradiction' in claim && claim.contradiction) return { dashboardStatus: word, dashboardStatusNote: "contradicts the service's answer: left as it is" };
	const why: Partial<Record<Claim['kind'], string>> = {
		send: claim.kind === 'send' && claim.earlier === 'inDoubt' ? 'used to word the answer: the service refuses a repeat' : 'not needed: this node had not sent this transfer before',
		answered: "not needed: this node has the service's answer for this transfer",
		notPaid: 'used',
		otherValues: 'not used: this Transfer ID belongs to another transfer of this node',
	};
	return { dashboardStatus: word, dashboardStatusNote: why[claim.kind] ?? 'not used' };
}

/** Dry Run: the request a real run would send, and what this n8n knows without asking the record (asking writes to it; a Dry Run writes nothing). */
function dryRun(run: Run, entry: Planned): IDataObject {
	const { record, operation, target } = run;
	const item = dryRunItem(operation, target, entry.request);
	if (run.guard === 'earlierStep') item.realRun = 'would send: an earlier step holds its claim (this node keeps no record of it)';
	if (record) {
		const known = record.knownAnswer(String(entry.transferId), printOf(run, entry));
		item.realRun = known
			? `would not send: ALREADY_SUBMITTED (this n8n process holds the service's answer ${String(known.status)} to these values)`
			: `would send, unless the record holds this Transfer ID (a real run looks it up first; this Dry Run knows only this n8n process's answers)${record.guard === 'service' ? '; the service refuses it if it has it' : ''}`;
	}
	return item;
}

/** What a row's claim says of the record's room, where it is nearly full. */
function reachNote(run: Run, claim: Extract<Claim, { kind: 'send' }>): string | undefined {
	const size = run.record?.knownSize();
	if (claim.unrecorded) return `The record of sent transfers is full: this transfer was sent without being recorded, so a repeat of it reads ALREADY_EXISTS (the service still refuses it). Start a new record for new transfers: copy this node.`;
	if (size === undefined || size < NEARLY_FULL) return undefined;
	const what = run.record?.guard === 'node' ? 'refuses new top-ups (nothing sent)' : 'sends new transfers without recording them (a repeat then reads ALREADY_EXISTS)';
	return `The record of sent transfers holds ${size.toLocaleString('en-US')} marks; from ${ROOM_FOR_NEW.toLocaleString('en-US')} on it ${what}, so that it never forgets a transfer it holds.`;
}

/** From here on every row a run writes says how full the record is. */
const NEARLY_FULL = ROOM_FOR_NEW - 2_000;

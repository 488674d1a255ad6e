import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { alreadyExists, alreadySubmitted, heldAfterFreed, heldByService, interpret, settleAdvice } from './answers';
import { dryRunItem } from './output';
import { redactor } from './redact';
import { fingerprint, reachNote, RECORD_REACH } from './record';
import { DASHBOARD_STATUS_OPTION } from './record/settle';
import type { Claim, Earlier } from './record';
import type { Failure, Outcome, Outcomes, Planned, Run } from './routine';
import { send } from './transport';

/**
 * Step 2 of the routine: the checked items sent, at most Concurrency at once and Requests Per
 * Second a second. A transfer goes out only once the node's record (record/) has claimed it for
 * this run; what the record says of the others becomes ALREADY_SUBMITTED, UNKNOWN or an error
 * here, and each answer tells the record what to keep. Owns the bounds, the pacing, how far ahead
 * rows are claimed, and re-sends (always with the same Transfer ID, only where the service guards).
 */

export interface Sent {
	/** Items whose request went out in this run, for the note of a stopped batch. */
	sentItems: number[];
	/** The failure that stopped the batch (without Continue On Fail). */
	stoppingFailure?: { index: number; failure: Failure };
}

export async function sendItems(run: Run, planned: Planned[], outcomes: Outcomes, secretsOf: Map<number, unknown[]>, continueOnFail: boolean, notes: Map<number, IDataObject>): Promise<Sent> {
	const { options } = run;
	const sent: Sent = { sentItems: [] };
	if (options.dryRun) {
		for (const [index, outcome] of await dryRun(run, planned)) outcomes.set(index, outcome);
		return sent;
	}
	const claims = claimsAhead(run, planned);
	const perform = async (entry: Planned, position: number): Promise<boolean> => {
		// Stopped (the editor's Stop, the workflow's timeout): nothing more is claimed or sent.
		if (cancelled(run)) return false;
		// The Base URL answered as something else than the service: checked once per run.
		if (run.notTheService) {
			outcomes.set(entry.index, { failure: { ...run.notTheService, message: run.notTheService.message.replace(/\[item \d+\]$/, `[item ${entry.index}]`) } });
			return continueOnFail;
		}
		const redact = redactor(secretsOf.get(entry.index) ?? []);
		const claim = await claims.of(position);
		if (claim) notes.set(entry.index, { ...notes.get(entry.index), ...dashboardNote(entry, claim) });
		if (run.guard === 'earlierStep') {
			// An earlier step of the workflow holds this row's claim: the node keeps no record of it.
			sent.sentItems.push(entry.index);
			notes.set(entry.index, { ...notes.get(entry.index), claim: CLAIM_HELD_EARLIER, ...(entry.dashboard ? { dashboardStatus: entry.dashboard.word, dashboardStatusNote: "not used: the earlier step's claim table holds this row's outcome" } : {}) });
		}
		const outcome = claim ? await sendClaimed(run, entry, claim, redact, () => sent.sentItems.push(entry.index)) : (await sendWithRetries(run, entry, redact)).outcome;
		// Where the service guards, the claim is written while the request goes out: its fill is known now.
		if (claim) notes.set(entry.index, { ...notes.get(entry.index), ...(await recordNote(run, claim)) });
		outcomes.set(entry.index, outcome);
		if ('failure' in outcome && outcome.failure.notTheService) run.notTheService ??= outcome.failure;
		if ('failure' in outcome && !continueOnFail) {
			sent.stoppingFailure ??= { index: entry.index, failure: outcome.failure };
			return false;
		}
		return true;
	};
	run.pace = pacer(options.requestsPerSecond);
	await forEachBounded(planned, options.concurrency, perform);
	return sent;
}

/**
 * Rows are claimed a little ahead of the lanes, so that sending seldom waits for the store: the
 * next row, and as far as the lanes get while two store calls (and, where the node guards, the
 * confirmation's wait) go by, but never more than Concurrency rows ahead. After a crash, those rows
 * and the ones in flight are claimed but unsent or unanswered: at most twice Concurrency, however
 * slow the store was (a user settles each from the dashboard).
 */
function claimsAhead(run: Run, planned: Planned[]) {
	const { record, options } = run;
	const claims: Array<Promise<Claim>> = [];
	const started = Date.now();
	let next = 0;
	const ahead = (taken: number) => {
		if (!record) return 0;
		const perSecond = taken / Math.max(0.2, (Date.now() - started) / 1000);
		const leadMs = 2 * record.lastCallMs() + record.guardWaitMs();
		return Math.min(options.concurrency, 1 + Math.ceil((perSecond * leadMs) / 1000));
	};
	return {
		async of(position: number): Promise<Claim | undefined> {
			if (!record) return undefined;
			for (const until = Math.min(planned.length, position + 1 + ahead(position)); next < until; next++) {
				const entry = planned[next];
				claims[next] = record.claim(entry.index, String(entry.params.transferId), printOf(run, entry), entry.dashboard);
			}
			return await claims[position];
		},
	};
}

const cancelled = (run: Run) => run.context.getExecutionCancelSignal?.()?.aborted === true;

const printOf = (run: Run, entry: Planned) => fingerprint(run.operation.value, entry.request.body ?? {});

/** Runs `work` over `list` with at most `limit` in flight, until one returns false. */
async function forEachBounded<T>(list: T[], limit: number, work: (entry: T, position: number) => Promise<boolean>) {
	let next = 0;
	let stopped = false;
	const lane = async () => {
		while (!stopped && next < list.length) {
			const position = next++;
			if (!(await work(list[position], position))) stopped = true;
		}
	};
	await Promise.all(Array.from({ length: Math.min(limit, list.length) }, lane));
}

/**
 * Requests Per Second: a turn for each request, right before it goes out (a transfer first waits
 * for its claim in the record, and re-sends are requests too), at most `perSecond` a second.
 */
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

/** A row the record has a word on: sent (once the claim is this run's), or what the record says instead. */
async function sendClaimed(run: Run, entry: Planned, claim: Claim, redact: (text: string) => string, onSend: () => void): Promise<Outcome> {
	const record = run.record!;
	switch (claim.kind) {
		case 'recordFailed':
			return { failure: recordFailure(entry, claim.reason) };
		case 'answered':
			return { items: [alreadySubmitted(entry, claim)] };
		case 'dashboardOnly':
			return { failure: alreadyExists(entry, { message: `The payouts dashboard says ${claim.word} for this Transfer ID (${DASHBOARD_STATUS_OPTION}): not sent`, fromService: false }, RECORD_REACH[record.guard]) };
		case 'otherValues':
			return { failure: otherValues(entry) };
		case 'inDoubt':
			return { failure: inDoubt(entry, claim.notPaidUsed === true) };
	}
	// Stop (or the workflow's timeout) came before the request went out: it never will.
	if (cancelled(run)) {
		record.notSent(entry.index);
		return { failure: stoppedBeforeSending(entry) };
	}
	record.sending(entry.index);
	onSend();
	const { outcome, resent } = await sendWithRetries(run, entry, redact);
	if ('items' in outcome) {
		record.answered(entry.index, referencesOf(outcome.items[0]));
		return outcome;
	}
	const { failure } = outcome;
	const recorded = await claim.earlier;
	if (recorded === 'paid') {
		// The record holds a paid answer to these values and the service refuses a repeat: nothing this
		// run sent moved money, whatever it heard (a fault, or its own re-send refused as a repeat).
		record.inDoubt(entry.index);
		return { items: [alreadySubmitted(entry, { service: { subCode: failure.subCode ?? null, message: failure.serviceMessage ?? failure.message } })] };
	}
	if (failure.status === 'UNKNOWN') {
		record.inDoubt(entry.index);
		return outcome;
	}
	if (failure.repeatRefused) {
		// The service holds this Transfer ID. Nothing moved now; what the record knew says whose it is.
		let earlier: Earlier = resent ? 'unanswered' : recorded;
		if (earlier === 'unanswered' && !resent && !claim.byDashboard) earlier = await record.lookAgain(String(entry.params.transferId), printOf(run, entry));
		const said = { subCode: failure.subCode, message: failure.serviceMessage ?? failure.message };
		if (earlier === 'paid') {
			record.inDoubt(entry.index);
			return { items: [alreadySubmitted(entry, { service: { subCode: said.subCode ?? null, message: said.message } })] };
		}
		if (earlier === 'unanswered' && !claim.byDashboard) {
			record.inDoubt(entry.index);
			return { failure: heldByService(entry, said) };
		}
		// Sent again after one that moved no money (refused, or not paid as the dashboard says): the
		// service keeps that Transfer ID. Otherwise it is not this node's.
		const afterNoMoney = claim.attempt > 1 || claim.byDashboard !== undefined;
		if (earlier === 'unanswered') record.inDoubt(entry.index);
		else record.refused(entry.index);
		return { failure: afterNoMoney ? heldAfterFreed(entry, said) : alreadyExists(entry, { ...said, fromService: true }, RECORD_REACH[record.guard]) };
	}
	// A refusal of a re-send says nothing of the earlier request, which may have paid.
	if (resent || recorded === 'unanswered') {
		record.inDoubt(entry.index);
		return { failure: refusedResend(entry, failure) };
	}
	record.refused(entry.index);
	return outcome;
}

/**
 * Sends one request, and again with the same Transfer ID where that is safe and asked for
 * (Options > Resend If No Clear Answer, only where the service refuses a repeat). `resent`: the
 * answer is to a request sent again in this run, after one without a clear answer.
 */
async function sendWithRetries(run: Run, entry: Planned, redact: (text: string) => string): Promise<{ outcome: Outcome; resent: boolean }> {
	const { context, operation, target, options } = run;
	for (let attempt = 0; ; attempt++) {
		await run.pace?.();
		const answer = await send(context, target, entry.request);
		const outcome = interpret(operation, answer, entry, redact, run.guard);
		if (!('failure' in outcome) || !outcome.failure.retryable || attempt >= options.retries) return { outcome, resent: attempt > 0 };
		await sleep(Math.min(MAX_BACKOFF_MS, BACKOFF_MS * 2 ** attempt));
	}
}

/** What a row sent under an earlier step's claim says of it (Options > Claim Held by an Earlier Step). */
const CLAIM_HELD_EARLIER = 'held by an earlier step of this workflow: this node kept no record of it';

const BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 4000;

/** A clear answer's status and references, for a later repeat's ALREADY_SUBMITTED. */
function referencesOf(item: IDataObject): IDataObject {
	return Object.fromEntries(['status', 'subCode', 'referenceId', 'utr', 'acknowledged'].filter((field) => item[field] !== undefined).map((field) => [field, item[field]]));
}

/** What became of a row's Dashboard Status: used, or why it was not needed. */
function dashboardNote(entry: Planned, claim: Claim): IDataObject {
	if (!entry.dashboard) return {};
	const used = ('byDashboard' in claim && claim.byDashboard) || claim.kind === 'dashboardOnly';
	if (used) return { dashboardStatus: entry.dashboard.word };
	const why: Partial<Record<Claim['kind'], string>> = {
		send: 'not needed: this node had not sent this transfer before',
		answered: 'not needed: this node has the service\'s answer for this transfer',
		inDoubt: 'not used: a not-paid status was acted on once already',
		otherValues: 'not used: this Transfer ID belongs to another transfer of this node',
	};
	return { dashboardStatus: entry.dashboard.word, dashboardStatusNote: 'contradiction' in claim && claim.contradiction ? 'contradicts the service\'s answer: left as it is' : (why[claim.kind] ?? 'not used') };
}

/**
 * Dry Run: the request a real run would send, and whether it would, as far as this n8n knows
 * without asking the record: asking n8n's store writes to it, and a Dry Run writes nothing.
 */
async function dryRun(run: Run, planned: Planned[]): Promise<Array<[number, Outcome]>> {
	const { record, operation, target } = run;
	return planned.map((entry): [number, Outcome] => {
		const item = dryRunItem(operation, target, entry.request);
		if (run.guard === 'earlierStep') item.realRun = 'would send: an earlier step holds its claim (this node keeps no record of it)';
		if (record) {
			const known = record.knownAnswer(String(entry.params.transferId), printOf(run, entry));
			item.realRun = known
				? `would not send: ALREADY_SUBMITTED (this n8n holds the service's answer ${String(known.status)} to these values)`
				: record.guard === 'node'
					? 'would send, unless this node sent this Transfer ID before: a real run looks it up in its record first (a Dry Run writes nothing there)'
					: 'would send with this Transfer ID: the service refuses it if it has it already (ALREADY_SUBMITTED where this node was answered)';
		}
		return [entry.index, { items: [item] }];
	});
}

/** What a row's claim says of the record's reach, where the record is nearly full. */
async function recordNote(run: Run, claim: Claim): Promise<IDataObject> {
	const note = claim.kind === 'send' && run.record ? reachNote(await claim.fill, run.record.guard) : undefined;
	return note ? { recordNote: note } : {};
}

function inDoubt(entry: Planned, notPaidUsed: boolean): Failure {
	const transferId = String(entry.params.transferId);
	return {
		message: `The outcome of the transfer is unknown: this node sent it before and no clear answer came, or another execution is sending it right now [item ${entry.index}]`,
		hint: notPaidUsed
			? `Not sent again. The dashboard's not-paid status for Transfer ID ${transferId} was acted on by an earlier run, which sent it again without a clear answer either. Look it up again: if it is paid now, map SUCCESS; if it is still not paid, pay it under a new Transfer ID (or Top-Up Key): this one will not be sent a third time.`
			: `Not sent again. ${settleAdvice(transferId)}`,
		status: 'UNKNOWN',
		fromService: false,
		retryable: false,
	};
}

function otherValues(entry: Planned): Failure {
	return {
		message: `This node sent another transfer with Transfer ID ${String(entry.params.transferId)} (other amount or account) [item ${entry.index}]`,
		hint: "Not sent: one Transfer ID is one transfer. If this row is a new top-up, give it its own 'Transfer ID' or 'Top-Up Key'; if it is the same one, use the values it was sent with.",
		status: 'ERROR',
		fromService: false,
		retryable: false,
	};
}

function refusedResend(entry: Planned, refusal: Failure): Failure {
	const transferId = String(entry.params.transferId);
	return {
		...refusal,
		message: `The outcome of the transfer is unknown: this node sent it before without a clear answer, and sending it again was refused: ${refusal.serviceMessage ?? refusal.message} [item ${entry.index}]`,
		hint: `${refusal.hint} The earlier request may have paid: once that is fixed, run the row again with Transfer ID ${transferId}; the service then says whether it holds it. Never give it a new Transfer ID before you know.`,
		status: 'UNKNOWN',
		retryable: false,
	};
}

function stoppedBeforeSending(entry: Planned): Failure {
	return {
		message: `Not sent: the execution was stopped before this transfer went out [item ${entry.index}]`,
		hint: 'Nothing was sent for this row. Run it again to pay it.',
		status: 'ERROR',
		fromService: false,
		retryable: false,
	};
}

function recordFailure(entry: Planned, reason: string): Failure {
	return {
		message: `The node could not record the transfer before sending it [item ${entry.index}]`,
		hint: `Nothing was sent. n8n's processed-data store answered: ${reason}. Running the item again with the same key is safe (no money moved); if it keeps failing, check that n8n's database is reachable and not overloaded (in queue mode, other workers writing the same node's record at once).`,
		status: 'ERROR',
		fromService: false,
		retryable: false,
	};
}

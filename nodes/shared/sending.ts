import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { alreadySubmitted, interpret } from './answers';
import { definite } from './madeTransferIds';
import { dryRunItem } from './output';
import { redactor } from './redact';
import { fingerprint, RECORD_REACH } from './record';
import type { Failure, Outcome, Outcomes, Planned, Run } from './routine';
import { send } from './transport';

/**
 * Step 2 of the routine: the checked items sent, at most Concurrency at once and Requests Per
 * Second a second, each transfer at most once as the node's record says (record/), read answers
 * retried only where that is safe. Owns the bounds and pacing, retries with backoff, and what the
 * record's verdicts become (ALREADY_SUBMITTED, UNKNOWN, nothing sent).
 */

export interface Sent {
	/** Items whose request went out in this run, for the note of a stopped batch. */
	sentItems: number[];
	/** The failure that stopped the batch (without Continue On Fail). */
	stoppingFailure?: { index: number; failure: Failure };
}

export async function sendItems(run: Run, planned: Planned[], outcomes: Outcomes, secretsOf: Map<number, unknown[]>, continueOnFail: boolean, madeRound?: { round: number; inRound: number[] }): Promise<Sent> {
	const { operation, options, target, record } = run;
	if (record) {
		run.recordFull = operation.refusesDuplicateTransferId === true && (await record.full().catch(() => false));
		record.track(
			planned.map((entry) => {
				const transferId = String(entry.params.transferId);
				return { index: entry.index, transferId, print: fingerprint(operation.value, entry.request.body ?? {}), dashboard: options.dashboardOutcomes.get(transferId) };
			}),
		);
	}
	const sent: Sent = { sentItems: [] };
	const perform = async (entry: Planned): Promise<boolean> => {
		const redact = redactor(secretsOf.get(entry.index) ?? []);
		const outcome = options.dryRun ? { items: [dryRunItem(operation, target, entry.request)] } : await sendOnce(run, entry, redact, () => sent.sentItems.push(entry.index));
		outcomes.set(entry.index, outcome);
		if ('failure' in outcome && !continueOnFail) {
			sent.stoppingFailure ??= { index: entry.index, failure: outcome.failure };
			return false;
		}
		return true;
	};
	run.pace = pacer(options.requestsPerSecond);
	await forEachBounded(planned, options.concurrency, perform);
	// A run that ends (not stopped) with every row of its round answered or refused finishes the
	// round: the next run's top-ups are new. A stopped run's retry is the same top-up.
	if (!sent.stoppingFailure && madeRound && madeRound.inRound.every((index) => definite(outcomes.get(index)))) run.finishedRound = madeRound.round;
	return sent;
}

const BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 4000;

/** Runs `work` over `list` with at most `limit` in flight, until one returns false. */
async function forEachBounded<T>(list: T[], limit: number, work: (entry: T) => Promise<boolean>) {
	let next = 0;
	let stopped = false;
	const lane = async () => {
		while (!stopped && next < list.length) if (!(await work(list[next++]))) stopped = true;
	};
	await Promise.all(Array.from({ length: Math.min(limit, list.length) }, lane));
}

/**
 * Requests Per Second: a turn for each request, right before it goes out (a transfer first waits
 * for its claim in the record, and retries are requests too), at most `perSecond` a second.
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

/**
 * Sends one item at most once, as the node's record says (record/recorder.ts): never sent by this
 * node: sent; answered before: ALREADY_SUBMITTED; sent before without a clear answer: sent again
 * with the same Transfer ID where the service refuses duplicates, otherwise UNKNOWN.
 */
async function sendOnce(run: Run, entry: Planned, redact: (text: string) => string, onSend: () => void): Promise<Outcome> {
	const { record } = run;
	if (!record) {
		onSend();
		return await sendWithRetries(run, entry, false, redact);
	}
	const verdict = await record.verdict(entry.index);
	if (verdict.kind === 'recordFailed') return { failure: recordFailure(entry, verdict.reason) };
	if (verdict.kind === 'answered') return { items: [alreadySubmitted(entry, verdict.dashboard ? { subCode: null, message: DASHBOARD_PAID } : undefined)] };
	if (verdict.kind === 'inDoubt') return { failure: unansweredBefore(entry, verdict.unproven, verdict.nextLook) };
	record.sending(entry.index);
	onSend();
	const outcome = await sendWithRetries(run, entry, verdict.resent, redact);
	if ('failure' in outcome && run.recordFull && !verdict.resent && isDuplicateRefusal(outcome.failure)) {
		record.refused(entry.index);
		return { items: [alreadyExists(entry, outcome.failure)] };
	}
	if ('items' in outcome) record.answered(entry.index);
	// A refusal moved no money; an unknown outcome stays unanswered in the record.
	else if (outcome.failure.status === 'ERROR') record.refused(entry.index);
	else if (!run.operation.refusesDuplicateTransferId) {
		// Internal: never sent again on a guess, so say now how the dashboard's answer settles it.
		const given = run.options.dashboardOutcomes.get(String(entry.params.transferId));
		outcome.failure.hint = `${outcome.failure.hint} ${settleAdvice(String(entry.params.transferId), given && !given.paid ? given.look + 1 : undefined)}`;
	}
	return outcome;
}

async function sendWithRetries(run: Run, entry: Planned, resent: boolean, redact: (text: string) => string): Promise<Outcome> {
	const { context, operation, target, options } = run;
	for (let attempt = 0; ; attempt++) {
		await run.pace?.();
		const answer = await send(context, target, entry.request);
		const outcome = interpret(operation, answer, entry, resent || attempt > 0, redact);
		if (!('failure' in outcome) || !outcome.failure.retryable || attempt >= options.retries) return outcome;
		await sleep(Math.min(MAX_BACKOFF_MS, BACKOFF_MS * 2 ** attempt));
	}
}

const DASHBOARD_PAID = "The payouts dashboard shows this transfer paid (Options > 'Dashboard Outcomes'): not sent again";

const isDuplicateRefusal = (failure: Failure) => failure.fromService && failure.status === 'ERROR' && /transfer id already exists/i.test(failure.serviceMessage ?? '');

/**
 * Beyond the record's reach: the service has a transfer with this Transfer ID, and the record,
 * full, may have forgotten it was this node's. Nothing moved now; whose it is, the node cannot tell.
 */
function alreadyExists(entry: Planned, refusal: Failure): IDataObject {
	return {
		status: 'ALREADY_EXISTS',
		subCode: refusal.subCode ?? null,
		message: refusal.serviceMessage ?? refusal.message,
		transferId: entry.params.transferId as string,
		hint: `Not paid now: the service already has a transfer with this Transfer ID. This node remembers its last ${RECORD_REACH.toLocaleString('en-US')} transfers and this is not one of them: it may be this row, paid before that, or another transfer. Look it up in the dashboard.`,
	};
}

/** How the user settles an internal transfer in doubt: the two lines, one of which the dashboard says. */
function settleAdvice(transferId: string, nextLook?: number): string {
	const notPaid = nextLook ? `${transferId} not paid ${nextLook}` : `${transferId} not paid`;
	return `Look up Transfer ID ${transferId} in the payouts dashboard and tell the node what it says: add the line "${transferId} paid" or "${notPaid}" to Options > 'Dashboard Outcomes' and run the batch again; the row then reads ALREADY_SUBMITTED, or is paid once.`;
}

function unansweredBefore(entry: Planned, unproven: boolean, nextLook?: number): Failure {
	const transferId = String(entry.params.transferId);
	const used = nextLook ? `The line "${transferId} not paid${nextLook > 2 ? ` ${nextLook - 1}` : ''}" was acted on by an earlier run, which sent it again without a clear answer. ` : '';
	return {
		message: unproven
			? `The outcome of the transfer is unknown: an interrupted check of the node's record left its answer unproven [item ${entry.index}]`
			: `The outcome of the transfer is unknown: this node sent it before and no clear answer came [item ${entry.index}]`,
		hint: `Not sent again: the service may not refuse a repeated internal transfer. ${used}${settleAdvice(transferId, nextLook)} (A row with this Transfer ID and other values is not sent either: one Transfer ID is one transfer.)`,
		status: 'UNKNOWN',
		fromService: false,
		retryable: false,
	};
}

function recordFailure(entry: Planned, reason: string): Failure {
	return {
		message: `The node could not record the transfer before sending it [item ${entry.index}]`,
		hint: `Nothing was sent. n8n's processed-data store answered: ${reason}. Run the item again once n8n's database is reachable.`,
		status: 'ERROR',
		fromService: false,
		retryable: false,
	};
}

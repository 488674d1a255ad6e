import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { interpret, retryable } from '../outcomes/interpret';
import type { ServiceResult } from '../outcomes/interpret';
import { rowOutcome } from '../outcomes/messages';
import type { RowResult } from '../outcomes/messages';
import { dryRunItem } from '../output/output';
import { createHash } from 'crypto';

import { NEW_KEY_LIMIT } from '../record';
import type { Claim, Conclusion } from '../record';
import type { Run } from './run';
import { send } from '../transport/send';
import type { Outcome, Planned, RepeatGuard } from '../types';

/**
 * One row: what the record says of it (its claim), else sent; then what became of it, kept in the
 * record and said once (outcomes/messages.ts). Every decision about a row's money is here.
 */

/** What a row needs from the lanes: its claim, its redaction, and a note that its request went out. */
interface RowTools {
	claim: () => Promise<Claim | undefined>;
	redact: (text: string) => string;
	onSend: () => void;
	notes: Map<number, IDataObject>;
}

export async function sendRow(run: Run, entry: Planned, tools: RowTools): Promise<Outcome> {
	const { result, conclusion } = await decide(run, entry, tools);
	if (conclusion) run.record?.conclude(entry.index, conclusion);
	return rowOutcome(entry, result, run);
}

/** What became of the row (the result), and what the record keeps of it (the conclusion). */
interface Decision {
	result: RowResult;
	conclusion?: Conclusion;
}

async function decide(run: Run, entry: Planned, tools: RowTools): Promise<Decision> {
	const claim = await tools.claim();
	if (!claim) return { result: (await sendWithRetries(run, entry, tools)).result };
	if (entry.dashboard) addNote(tools.notes, entry.index, dashboardNote(entry, claim));
	switch (claim.kind) {
		case 'recordFailed':
			return { result: { kind: 'recordFailed', reason: claim.reason } };
		case 'full':
			return { result: { kind: 'recordFull', size: claim.size } };
		case 'confirmed':
			return { result: { kind: 'alreadySubmitted', earlier: claim } };
		case 'inDoubt':
			return { result: { kind: 'inDoubt' } };
		case 'notPaid':
			return { result: { kind: 'notPaidByDashboard', word: claim.word } };
		case 'otherValues':
			return { result: { kind: 'otherValues' } };
	}
	const note = reachNote(run, claim);
	if (note) addNote(tools.notes, entry.index, { recordNote: note });
	// Where the service guards, the service holds this Transfer ID (the dashboard says so) and it moved no money: it never will under it.
	if (run.guard === 'service' && entry.dashboard?.meaning === 'failed') {
		return {
			result: { kind: 'cannotPayUnder', word: entry.dashboard.word },
			conclusion: claim.earlier === 'inDoubt' ? 'inDoubt' : 'released',
		};
	}
	// The run sends nothing more (a failure every row would meet, or Stop): a row sent before without
	// a clear answer stays in doubt, one never sent is not sent.
	if (run.stopped || cancelled(run)) {
		if (claim.earlier === 'inDoubt') return { result: { kind: 'inDoubt' }, conclusion: 'inDoubt' };
		return {
			result: run.stopped
				? { kind: 'notSentAfter', stopped: run.stopped }
				: { kind: 'stoppedBeforeSending' },
			conclusion: 'notSent',
		};
	}
	run.record!.sending(entry.index);
	const { result, resent } = await sendWithRetries(run, entry, tools);
	if (result.kind === 'paid')
		return { result: result, conclusion: { confirmed: referencesOf(result.items[0]) } };
	const earlierInDoubt =
		claim.earlier === 'inDoubt' || resent || entry.earlier?.status === 'UNKNOWN';
	if (result.kind === 'repeatRefused') {
		// The record may not show this node's own paid answer yet: another worker's lookup under way, or
		// its stale write (queue mode) that the paying worker makes good a moment later. Look again first.
		if (!resent && (await run.record!.confirmedOnSecondLook(entry.index)))
			return { result: { kind: 'alreadySubmitted' }, conclusion: 'confirmedEarlier' };
		// Not this node's (or not in its record): nothing this run sent moved money.
		if (!earlierInDoubt)
			return { result: { kind: 'alreadyExists', said: result.said }, conclusion: 'released' };
		const predates = entry.dashboard?.meaning === 'notFound' ? entry.dashboard.word : undefined;
		return {
			result: { kind: 'heldByService', said: result.said, predates },
			conclusion: 'inDoubt',
		};
	}
	if (result.kind === 'unclear') return { result: result, conclusion: 'inDoubt' };
	// A clear refusal. Of a re-send of a row in doubt, it says nothing of the earlier request, which may have paid.
	if (earlierInDoubt)
		return { result: { kind: 'refusedResend', refusal: result }, conclusion: 'inDoubt' };
	return { result: result, conclusion: 'released' };
}

/**
 * Sends one request, and again with the same Transfer ID where that is safe and asked for
 * (Options > Resend If No Clear Answer, only where the service refuses a repeat). `resent`: the
 * answer is to a request sent again in this run, after one without a clear answer.
 */
async function sendWithRetries(
	run: Run,
	entry: Planned,
	{ redact, onSend }: RowTools,
): Promise<{ result: ServiceResult; resent: boolean }> {
	const { context, operation, target, options } = run;
	for (let attempt = 0; ; attempt++) {
		if (attempt === 0) onSend();
		const answer = await send(context, target, entry.request);
		const result = interpret(operation, answer, entry.params, redact);
		if (!retryable(result, operation, run.guard) || attempt >= options.retries)
			return { result, resent: attempt > 0 };
		await sleep(Math.min(MAX_BACKOFF_MS, BACKOFF_MS * 2 ** attempt));
		// Stopped meanwhile: the row stays as its last answer left it.
		if (cancelled(run)) return { result, resent: attempt > 0 };
		await run.pace?.();
	}
}

const BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 4000;

export const cancelled = (run: Run) => run.context.getExecutionCancelSignal?.()?.aborted === true;

/** The digest of the values a row is sent with (the operation and its body, keys sorted): one Transfer ID with other values is another transfer. */
export function digestOf(run: Run, entry: Planned): string {
	const body = entry.request.body ?? {};
	const sorted = Object.fromEntries(Object.entries(body).sort(([a], [b]) => a.localeCompare(b)));
	return createHash('sha256')
		.update(JSON.stringify([run.operation.value, sorted]))
		.digest('hex');
}

const addNote = (notes: Map<number, IDataObject>, index: number, note: IDataObject) =>
	notes.set(index, { ...notes.get(index), ...note });

/** A clear answer's status and references, for a later repeat's ALREADY_SUBMITTED. */
function referencesOf(item: IDataObject): IDataObject {
	return Object.fromEntries(
		['status', 'subCode', 'referenceId', 'utr', 'acknowledged']
			.filter((field) => item[field] !== undefined)
			.map((field) => [field, item[field]]),
	);
}

/** What became of a row's Settle With Dashboard Status: used, or why it was not needed. */
function dashboardNote(entry: Planned, claim: Claim): IDataObject {
	const word = entry.dashboard?.word;
	if ('byDashboard' in claim && claim.byDashboard) return { dashboardStatus: word };
	if ('contradiction' in claim && claim.contradiction)
		return {
			dashboardStatus: word,
			dashboardStatusNote: "contradicts the service's answer: left as it is",
		};
	const why: Partial<Record<Claim['kind'], string>> = {
		claimed:
			claim.kind === 'claimed' && claim.earlier === 'inDoubt'
				? 'used to word the answer: the service refuses a repeat'
				: 'not needed: this node had not sent this transfer before',
		confirmed: "not needed: this node has the service's answer for this transfer",
		notPaid: 'used',
		otherValues: 'not used: this Transfer ID belongs to another transfer of this node',
	};
	return { dashboardStatus: word, dashboardStatusNote: why[claim.kind] ?? 'not used' };
}

/** Dry Run: the request a real run would send, and what this n8n knows without asking the record (asking writes to it; a Dry Run writes nothing). */
export function dryRun(run: Run, entry: Planned): IDataObject {
	const { record, operation, target } = run;
	const item = dryRunItem(operation, target, entry.request);
	if (run.unguardedInQueueMode)
		item.realRun = `would not send: this n8n runs in queue mode (a ${run.unguardedInQueueMode} process), where this node alone cannot keep a top-up to one execution; turn on Options > 'Claim Held by an Earlier Step' behind a claim, or 'Service Refuses Repeated Transfer IDs'`;
	else if (record) {
		const known = record.knownAnswer(String(entry.transferId), digestOf(run, entry));
		item.realRun = known
			? `would not send: ALREADY_SUBMITTED (this n8n process holds the service's answer ${String(known.status)} to these values)`
			: `would send, unless the record holds this Transfer ID (a real run looks it up first; this Dry Run knows only this n8n process's answers). ${COPY_OR_MOVE[record.guard]}`;
	}
	return item;
}

/** What a copy of the workflow, or the workflow in another n8n, would do with this row: by who refuses a repeat. */
const COPY_OR_MOVE: Record<RepeatGuard, string> = {
	service:
		'The service refuses this Transfer ID once it has it, also when a copy of this workflow or another n8n sends it.',
	node: "The record is this workflow's in this n8n: a copy of the workflow, or this workflow imported into another n8n, starts with an empty record and pays this Transfer ID again (the service is not known to refuse a repeated internal transfer).",
};

/** What a row's claim says of the record's room, where it is nearly full. */
function reachNote(run: Run, claim: Extract<Claim, { kind: 'claimed' }>): string | undefined {
	const size = run.record?.knownSize();
	if (claim.unrecorded)
		return `The record of sent transfers is full: this transfer was sent without being recorded, so a repeat of it reads ALREADY_EXISTS (the service still refuses it). Start a new record for new transfers: copy this workflow.`;
	if (size === undefined || size < NEARLY_FULL) return undefined;
	const what =
		run.record?.guard === 'node'
			? 'refuses new top-ups (nothing sent)'
			: 'sends new transfers without recording them (a repeat then reads ALREADY_EXISTS)';
	return `The record of sent transfers holds ${size.toLocaleString('en-US')} entries; from ${NEW_KEY_LIMIT.toLocaleString('en-US')} on it ${what}, so that it never forgets a transfer it holds.`;
}

/** From here on every row a run writes says how full the record is. */
const NEARLY_FULL = NEW_KEY_LIMIT - 2_000;

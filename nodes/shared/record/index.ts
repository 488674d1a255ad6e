import { createHash } from 'crypto';
import type { IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { firstAnswer, rememberAnswer, takeTurn } from './inProcess';
import type { FirstAnswer } from './inProcess';
import { Journal, RecordFull, ROOM_FOR_NEW } from './journal';
import { marks } from './marks';
import type { DashboardStatus, RepeatGuard } from '../types';

/**
 * The node's record of the transfers it sent: an idempotency ledger in n8n's processed-data store
 * (journal.ts), keyed by each transfer's Transfer ID (for an internal row without one, made of
 * its Top-Up Key) and the digest of its values. It changes only when a request goes out and when
 * its answer comes, or when the user maps the dashboard's word; a Dry Run never touches it. Each
 * promise, the mechanism that keeps it, and the simulator's invariant that checks it
 * (test/simulator/invariants.ts):
 *
 * - Paid at most once (`paidOnce`): where the node is the guard (internal transfers), a request
 *   goes out only after its claim (`id`, `sent`, `open`) was found new by a test-and-set, atomic in
 *   one n8n process; the record is the workflow's, shared by its Payouts Transfer nodes (a retry
 *   branch). Where the service refuses a repeated Transfer ID (card, standard), the service.
 * - Reported paid only on evidence (`paidOnlyWherePaid`): `open` is forgotten only on the service's
 *   SUCCESS or PENDING, or the dashboard's paid word.
 * - Paid stays paid (`paidStaysPaid`): a run ends only once its answers are written; a later run
 *   asks, and a transfer it finds paid is never sent. Exception: n8n killed while a later run asks
 *   (asking records `open`; it then reads in doubt).
 * - A row never sent is never in doubt (`doubtOnlyWithCause`): a refused or unsent claim is
 *   forgotten. Exception: n8n killed between a claim and its request.
 * - Nothing forgotten (`paidStaysPaid` at the reach): the journal never lets n8n drop a mark; the
 *   record takes on no new transfer past ROOM_FOR_NEW marks (the node refuses the row, or, where the
 *   service guards, sends it without a record).
 * - Dry Runs write nothing (`dryRunsWriteNothing`): they never call the record.
 */

/** What the record says of a row, and so what the run does with it. */
export type Claim =
	/** Send it. `earlier`: the record held it in doubt (the service guards: sent again, safely). `unrecorded`: the record is full. */
	| { kind: 'send'; earlier: 'none' | 'inDoubt'; unrecorded?: boolean }
	/** This node holds a paid answer to these values, or the dashboard said paid: ALREADY_SUBMITTED, not sent. */
	| { kind: 'answered'; first?: FirstAnswer; byDashboard?: string; contradiction?: string }
	/** Sent by this node without a clear answer (the node guards): UNKNOWN, not sent. */
	| { kind: 'inDoubt' }
	/** In doubt, and the dashboard says it did not pay (the node guards): not sent again under it. */
	| { kind: 'notPaid'; word: string }
	/** This Transfer ID was claimed with other values: one Transfer ID is one transfer. */
	| { kind: 'otherValues' }
	/** The record takes on no new transfer (the node guards): not sent. */
	| { kind: 'full'; size: number }
	/** The record could not be written: nothing sent. */
	| { kind: 'recordFailed'; reason: string };

/** What became of a claimed row, as the record keeps it. */
export type Conclusion =
	/** The service answered SUCCESS or PENDING: paid (its status and references kept for a repeat). */
	| { paid: FirstAnswer }
	/** Paid before, by what the record says: not sent now. */
	| 'paidEarlier'
	/** No money moved by this run's request (a clear refusal, or it never went out): the claim is released, as if never made. */
	| 'released'
	/** No clear answer, or the service still holds it from a request without one: the claim stays, in doubt. */
	| 'inDoubt'
	/** Claimed and perhaps not sent (Stop came first): released unless its request went out. */
	| 'notSent';

/**
 * What the record keeps of each conclusion: the marks it forgets now, and the states it makes again
 * a settling window later, where another n8n process writes the record too (journal.ts `again`): a
 * stale write of that process can undo a state, and where the node guards (an earlier step's claim
 * in queue mode) a lost claim would let n8n's Retry of the execution pay again.
 */
const KEPT: Record<
	'paid' | Exclude<Conclusion, object>,
	(row: ClaimedRow) => {
		forget: string[];
		again: Array<['record' | 'forget' | 'doubt', string[]]>;
	}
> = {
	// Paid: "no clear answer" forgotten; the claim without it is the record of the payment.
	paid: (row) => ({
		forget: [row.open],
		again: [
			['record', row.paidMarks],
			['forget', [row.open]],
		],
	}),
	// Asking recorded "no clear answer": forgotten again.
	paidEarlier: (row) => ({ forget: [row.open], again: [['forget', [row.open]]] }),
	// In doubt. Where the service guards it is not made again: another worker's paid answer may have
	// cleared it since, and doubt made again over a paid answer would read UNKNOWN, while a doubt a
	// stale write lost costs only a send the service refuses as a repeat. Where the node guards, a
	// lost doubt would be sent again: it is made again, but only where this process has seen
	// another writer already (queue mode behind a claim), never over a settling elsewhere in one process.
	inDoubt: (row) => ({
		forget: [],
		again: row.guard === 'node' ? [['doubt', [...row.paidMarks, row.open]]] : [],
	}),
	released: (row) => ({ forget: row.claimed, again: [] }),
	notSent: (row) => ({ forget: row.claimed, again: [] }),
};

/** A stable digest of what a request would do: the operation and its body, keys sorted. */
export function fingerprint(operation: string, body: object): string {
	const sorted = Object.fromEntries(Object.entries(body).sort(([a], [b]) => a.localeCompare(b)));
	return createHash('sha256')
		.update(JSON.stringify([operation, sorted]))
		.digest('hex');
}

/** A row this run claimed: its marks and its turn in this process. */
interface ClaimedRow {
	key: string;
	guard: RepeatGuard;
	/** The marks this claim wrote, forgotten if it is released: none where it found the row in doubt. */
	claimed: string[];
	sentMark: string;
	/** What the record holds of a paid transfer: the claim without "no clear answer". */
	paidMarks: string[];
	open: string;
	release: () => void;
	sent: boolean;
}

const reasonOf = (error: unknown) => (error as Error)?.message ?? String(error);

/** How long a second look waits: longer than another worker's lookup takes to forget what it asked. */
const LOOK_AGAIN_MS = 250;
const LOOKS = 3;

export class TransferRecord {
	private readonly claimedRows = new Map<number, ClaimedRow>();
	/** The run has ended: a claim that comes now is given back at once (it will never be sent). */
	private closed = false;
	private readonly claiming = new Set<Promise<Claim>>();
	private readonly writes: Array<Promise<void>> = [];
	private failedWrite?: string;

	private constructor(
		private readonly journal: Journal,
		private readonly rowKey: string,
		readonly guard: RepeatGuard,
	) {}

	/**
	 * The workflow's record, shared by its Payouts Transfer nodes: a retry branch's second node reads
	 * what the first sent, and the first what the second paid.
	 */
	static open(context: IExecuteFunctions, workflowId: string, guard: RepeatGuard): TransferRecord {
		return new TransferRecord(Journal.of(context, workflowId, 'workflow'), workflowId, guard);
	}

	/** What to do with a row: claimed for this run to send, or why not. */
	async claim(
		index: number,
		transferId: string,
		print: string,
		dashboard?: DashboardStatus,
	): Promise<Claim> {
		const claiming = this.claimOnce(index, transferId, print, dashboard);
		this.claiming.add(claiming);
		try {
			return await claiming;
		} finally {
			this.claiming.delete(claiming);
			if (this.closed) this.conclude(index, 'notSent');
		}
	}

	private async claimOnce(
		index: number,
		transferId: string,
		print: string,
		dashboard?: DashboardStatus,
	): Promise<Claim> {
		// One execution at a time per transfer in this process: a second one reads what the first left.
		const key = `${this.rowKey}|${transferId}|${print}`;
		const release = await takeTurn(`${this.rowKey}|${transferId}`);
		// The run ended while this claim waited for its turn (Stop): it is never sent, so nothing is written.
		if (this.closed) {
			release();
			return { kind: 'recordFailed', reason: 'the run ended before this row was taken on' };
		}
		const [id, sent, open] = [
			marks.id(transferId),
			marks.sent(transferId, print),
			marks.open(transferId, print),
		];
		const claimed = this.guard === 'node' ? [id, sent, open] : [sent, open];
		const hold = (claim: Claim): Claim => {
			if (claim.kind === 'send' && !claim.unrecorded)
				this.claimedRows.set(index, {
					key,
					guard: this.guard,
					// Found in doubt, the marks are an earlier request's: a release must not take its doubt.
					claimed: claim.earlier === 'inDoubt' ? [] : claimed,
					sentMark: sent,
					paidMarks: claimed.filter((mark) => mark !== open),
					open,
					release,
					sent: false,
				});
			else release();
			return claim;
		};
		try {
			// This process holds the service's paid answer to these values: that is the evidence.
			const first = firstAnswer(key);
			if (first)
				return hold({
					kind: 'answered',
					first,
					...(dashboard && dashboard.verdict !== 'paid' ? { contradiction: dashboard.word } : {}),
				});
			const { seen, size } = await this.journal.record(claimed);
			const isNew = !seen.has(this.guard === 'node' ? id : sent);
			const full = isNew && (size ?? 0) > ROOM_FOR_NEW;
			if (isNew && dashboard?.verdict === 'paid') {
				// Never sent by this node, and the user says it is paid: it reads paid from now on
				// (where the record takes on nothing new, it is not kept, and reads so while mapped).
				if (full) this.write(this.journal.forget(claimed, { now: true }));
				else this.forgetAgain([open]);
				return hold({ kind: 'answered', byDashboard: dashboard.word });
			}
			if (full) {
				// The record takes on no new transfer: what asking wrote is forgotten.
				this.write(this.journal.forget(claimed, { now: true }));
				if (this.guard === 'node') return hold({ kind: 'full', size: size ?? 0 });
				return hold({ kind: 'send', earlier: 'none', unrecorded: true });
			}
			if (isNew) return hold({ kind: 'send', earlier: 'none' });
			if (!seen.has(sent)) {
				// Another transfer of this node has this Transfer ID: asking recorded these values, forgotten again.
				this.write(this.journal.forget([sent, open], { now: true }));
				return hold({ kind: 'otherValues' });
			}
			if (!seen.has(open)) {
				// Paid: asking recorded "no clear answer", forgotten again.
				this.forgetAgain([open]);
				return hold({
					kind: 'answered',
					...(dashboard && dashboard.verdict !== 'paid' ? { contradiction: dashboard.word } : {}),
				});
			}
			// In doubt.
			if (dashboard?.verdict === 'paid') {
				this.forgetAgain([open]);
				return hold({ kind: 'answered', byDashboard: dashboard.word });
			}
			if (this.guard === 'service') return hold({ kind: 'send', earlier: 'inDoubt' });
			return hold(dashboard ? { kind: 'notPaid', word: dashboard.word } : { kind: 'inDoubt' });
		} catch (error) {
			release();
			if (error instanceof RecordFull && this.guard === 'service')
				return { kind: 'send', earlier: 'none', unrecorded: true };
			if (error instanceof RecordFull) return { kind: 'full', size: error.size };
			return { kind: 'recordFailed', reason: reasonOf(error) };
		}
	}

	/**
	 * Where the service refused a repeat of a row: asks once more, a moment later. Another worker
	 * looking the same paid transfer up a moment ago (asking records "no clear answer", forgotten
	 * again at once) made it look in doubt, or another worker's stale write hid it (the paying worker
	 * makes its state again a settling window later); paid by this node, it reads paid now.
	 */
	async paidAfterAll(index: number): Promise<boolean> {
		const row = this.claimedRows.get(index);
		if (!row) return false;
		// A few looks, a random while apart: workers looking the same transfer up at once stop meeting.
		for (let look = 0; look < LOOKS; look++) {
			await sleep(Math.round(LOOK_AGAIN_MS * (1 + 2 * Math.random())));
			try {
				const { seen } = await this.journal.record([row.sentMark, row.open]);
				// Paid: the claim is there and its "no clear answer" gone. Both gone is not paid:
				// another worker's released claim of the same transfer took them (asking made them again).
				if (seen.has(row.sentMark) && !seen.has(row.open)) return true;
			} catch {
				return false;
			}
		}
		return false;
	}

	/** The request is going out now: from here its claim stays until its answer. */
	sending(index: number) {
		const row = this.claimedRows.get(index);
		if (row) row.sent = true;
	}

	/** What became of a claimed row: the record keeps it so, and the row's turn passes on. */
	conclude(index: number, conclusion: Conclusion) {
		const row = this.claimedRows.get(index);
		if (!row || (conclusion === 'notSent' && row.sent)) return;
		this.claimedRows.delete(index);
		if (typeof conclusion === 'object') rememberAnswer(row.key, conclusion.paid);
		const { forget, again } = KEPT[typeof conclusion === 'object' ? 'paid' : conclusion](row);
		const kept = async () => {
			if (forget.length > 0) await this.journal.forget(forget);
			for (const [kind, marks] of again)
				if (kind === 'doubt') this.journal.again('record', marks, { onlyIfOthersSeen: true });
				else this.journal.again(kind, marks);
		};
		// The turn passes on once the record says what became of the row.
		this.write(kept().finally(row.release));
	}

	/** Frees the rows this run claimed and never sent, and waits until the run's writes are done: a run ends with its record written. */
	async close(warn: (message: string) => void): Promise<void> {
		// Rows taken on and never sent are given back now, each claim still under way as it comes:
		// none waits for another's turn, which may be another execution's.
		this.closed = true;
		for (const index of [...this.claimedRows.keys()]) this.conclude(index, 'notSent');
		await Promise.all(this.claiming);
		this.journal.hurry();
		await Promise.all(this.writes);
		if (this.failedWrite) warn(this.failedWrite);
	}

	/** What this process knows of a row without asking the record (Dry Run): the service's clear answer, if it holds one. */
	knownAnswer(transferId: string, print: string): FirstAnswer | undefined {
		return firstAnswer(`${this.rowKey}|${transferId}|${print}`);
	}

	/** The last store call's duration, for how far ahead a batch claims. */
	lastCallMs(): number {
		return this.journal.lastCallMs();
	}

	/** How full the record is, as last known (for the rows' note). */
	knownSize(): number | undefined {
		return this.journal.knownSize();
	}

	/**
	 * A "no clear answer" mark that is not true (asking wrote it): forgotten at once, before the next
	 * claim (n8n killed meanwhile would leave the row in doubt), and again a settling window later
	 * where other workers write the record.
	 */
	private forgetAgain(unwanted: string[]) {
		this.write(
			this.journal
				.forget(unwanted, { now: true })
				.then(() => this.journal.again('forget', unwanted)),
		);
	}

	private write(done: Promise<void>) {
		this.writes.push(
			done.catch((error) => {
				this.failedWrite = `the record could not be written to the end (${reasonOf(error)}); the rows concerned read as in doubt`;
			}),
		);
	}
}

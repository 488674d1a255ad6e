import { createHash } from 'crypto';
import type { IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { firstAnswer, rememberAnswer, takeTurn } from './inProcess';
import type { FirstAnswer } from './inProcess';
import { Journal, MAX_ENTRIES } from './journal';
import { marks } from './marks';
import type { DashboardStatus } from './settle';

/**
 * The node's record of the transfers it sent, in n8n's processed-data store (journal.ts). Every
 * transfer has a key the user sees before it is sent, its Transfer ID (for an internal row without
 * one, made of the row's Top-Up Key: PayoutsTransfer/operations/internalTransfer.ts), and the record is keyed by it. Each
 * promise, and the one mechanism that keeps it:
 *
 * - Card and standard transfers (and internal ones, where the user says the service refuses a
 *   repeated Transfer ID) are paid at most once: the service refuses a repeated Transfer ID, and
 *   the node sends a row again only with the same one (`guard: 'service'`).
 * - Other internal transfers are paid at most once within the reach: the node is the guard
 *   (`guard: 'node'`). A row is sent only by the run whose claim found its Transfer ID new: an
 *   atomic test-and-set in one process (journal.ts), confirmed across processes.
 * - ALREADY_SUBMITTED only where this node sent these values before: the claim, `sent`, written
 *   before the request goes out.
 * - A row never sent is never called sent: a run forgets the claims of the rows it did not send
 *   (`close`); after a crash only the rows in flight, those claimed ahead of them (together at
 *   most twice Concurrency: sending.ts) and those answered whose answer was not yet written stay claimed.
 * - Evidence is not erased by what came later: a claim is forgotten only when the service refused
 *   the first request of it, or it was never sent. A refused re-send leaves the row in doubt.
 * - Where the node is the guard, a row sent without a clear answer is in doubt (`open`) until the
 *   service's answer comes or the user settles it from the dashboard (settle.ts); it is never
 *   sent again on a guess.
 *
 * Reach: the store keeps the last MAX_ENTRIES marks per node, oldest first out: a transfer is one
 * mark where the service guards and two where the node does (RECORD_REACH).
 */

/** Transfers the record remembers per node, by who refuses a repeat; room is kept for marks of rows in flight. */
export const RECORD_REACH = { service: MAX_ENTRIES - 1000, node: (MAX_ENTRIES - 1000) / 2 } as const;

/** Who refuses a second transfer with the same Transfer ID: the service, or this node's record. */
export type Guard = keyof typeof RECORD_REACH;

/** What the record says of a row, and so what the run does with it. */
export type Claim =
	/**
	 * Send it; `resend` when this node sent these values before. Where the service guards, the claim
	 * is written while the request goes out, and `resend` is known once it is.
	 */
	| { kind: 'send'; resend: boolean | Promise<boolean>; byDashboard?: string }
	/** This node sent these values and the service answered (or the dashboard says paid): ALREADY_SUBMITTED. */
	| { kind: 'answered'; first?: FirstAnswer; byDashboard?: string; contradiction?: string }
	/** Sent by this node without a clear answer, maybe by another execution right now: UNKNOWN, not sent. */
	| { kind: 'inDoubt'; notPaidUsed?: boolean }
	/** This Transfer ID was claimed by this node with other values: one Transfer ID is one transfer. */
	| { kind: 'otherValues' }
	/** Never sent by this node, and the dashboard says the service has it: ALREADY_EXISTS, not sent. */
	| { kind: 'dashboardOnly'; word: string }
	/** The record could not be written: nothing sent. */
	| { kind: 'recordFailed'; reason: string };

/** A stable digest of what a request would do: the operation and its body, keys sorted. */
export function fingerprint(operation: string, body: object): string {
	const sorted = Object.fromEntries(Object.entries(body).sort(([a], [b]) => a.localeCompare(b)));
	return createHash('sha256').update(JSON.stringify([operation, sorted])).digest('hex');
}

interface Held {
	key: string;
	claimMarks: string[];
	open: string;
	release: () => void;
	sent: boolean;
}

/**
 * Claims written over by other processes are asked again up to this many times in all, after a
 * pause of random length that doubles with each attempt, up to MAX_RETRY_PAUSE_WAITS guard waits.
 */
const MAX_CLAIM_ATTEMPTS = 20;
const MAX_RETRY_PAUSE_WAITS = 8;

const reasonOf = (error: unknown) => (error as Error)?.message ?? String(error);

export class TransferRecord {
	private readonly held = new Map<number, Held>();
	/** Claims asked and not yet answered: a closing run waits for them, to forget those it will not send. */
	private readonly claiming = new Set<Promise<Claim>>();
	private readonly pending: Array<Promise<void>> = [];
	private failedWrite?: string;
	private readonly openedAt = Date.now();

	private constructor(
		private readonly journal: Journal,
		private readonly journalKey: string,
		readonly guard: Guard,
		/** Where the node guards: other n8n processes may claim the same transfer (queue mode). */
		private readonly acrossProcesses: boolean,
	) {}

	static open(context: IExecuteFunctions, workflowId: string, guard: Guard, { acrossProcesses = true } = {}): TransferRecord {
		return new TransferRecord(Journal.of(context, workflowId), `${workflowId}:${context.getNode().id}`, guard, guard === 'node' && acrossProcesses);
	}

	/** What to do with a row: claimed for this run to send, or why not. */
	async claim(index: number, transferId: string, print: string, dashboard?: DashboardStatus): Promise<Claim> {
		const claiming = this.claimOnce(index, transferId, print, dashboard);
		this.claiming.add(claiming);
		try {
			return await claiming;
		} finally {
			this.claiming.delete(claiming);
		}
	}

	private async claimOnce(index: number, transferId: string, print: string, dashboard?: DashboardStatus): Promise<Claim> {
		const sent = marks.sent(transferId, print);
		const key = `${this.journalKey}|${sent}`;
		const release = await takeTurn(key);
		const claimMarks = this.guard === 'node' ? [marks.id(transferId), sent] : [sent];
		const open = marks.open(transferId, print);
		const hold = (claim: Claim): Claim => {
			if (claim.kind === 'send') this.held.set(index, { key, claimMarks, open, release, sent: false });
			else release();
			return claim;
		};
		try {
			if (this.guard === 'service') {
				// This process has the service's clear answer to these values: that is the answer.
				const first = firstAnswer(key);
				if (first) return hold({ kind: 'answered', first });
				// The service refuses a repeat, so the request need not wait for the claim: only what
				// "Transfer Id already exists" means does (sent before by this node, or not).
				const written = this.journal.record(claimMarks).then(
					({ seen }) => {
						this.keep(claimMarks);
						return seen.has(sent);
					},
					(error: unknown) => {
						this.failedWrite = `the record of sent transfers could not be written (${reasonOf(error)}): a repeat of these transfers may read ALREADY_EXISTS where ALREADY_SUBMITTED was true`;
						return false;
					},
				);
				this.later(written.then(() => undefined));
				return hold({ kind: 'send', resend: written });
			}
			const claim = await this.claimAsGuard(transferId, print, dashboard);
			const first = firstAnswer(key);
			// Answered before: this process may still have the answer's references.
			if (claim.kind === 'answered' && !claim.byDashboard) claim.first = first;
			// This process holds the service's clear answer to these values, yet the row reads in
			// doubt: another process's call wrote the forgotten mark back (queue mode, no lock).
			// The answer is the evidence; the mark is forgotten again.
			if (claim.kind === 'inDoubt' && first && !dashboard) {
				this.drop([open]);
				return hold({ kind: 'answered', first });
			}
			return hold(claim);
		} catch (error) {
			release();
			return { kind: 'recordFailed', reason: reasonOf(error) };
		}
	}

	/** The node is the guard: the claim finds the Transfer ID new, answered, in doubt, or taken. */
	private async claimAsGuard(transferId: string, print: string, dashboard?: DashboardStatus): Promise<Claim> {
		const [id, sent, open] = [marks.id(transferId), marks.sent(transferId, print), marks.open(transferId, print)];
		let lookedAgain = false;
		for (let attempt = 1; ; attempt++) {
			const recorded = await this.journal.record([id, sent, open], { withToken: this.acrossProcesses });
			const { seen } = recorded;
			if (!seen.has(id)) {
				if (!(await this.journal.confirm(recorded))) {
					// Another process wrote the row over this claim: ask again (its own claim may now be
					// there), after a pause of random length, growing, so that the two stop colliding.
					if (attempt >= MAX_CLAIM_ATTEMPTS) throw new Error(`other n8n processes wrote over its claim ${MAX_CLAIM_ATTEMPTS} times in a row`);
					await sleep(Math.random() * Math.min(2 ** (attempt - 1), MAX_RETRY_PAUSE_WAITS) * this.journal.guardWaitMs());
					continue;
				}
				if (dashboard?.verdict === 'paid') {
					this.undo([id, sent, open]);
					return { kind: 'dashboardOnly', word: dashboard.word };
				}
				this.keep([id, sent, open]);
				return { kind: 'send', resend: false };
			}
			this.journal.dismiss(recorded);
			// Asking recorded what was not there: forgotten again, so it never reads as evidence.
			if (!seen.has(sent)) {
				this.drop([sent, open]);
				return { kind: 'otherValues' };
			}
			if (!seen.has(open)) {
				this.drop([open]);
				return dashboard?.verdict === 'notPaid' ? await this.correctDashboard(transferId, print, dashboard) : { kind: 'answered' };
			}
			if (!dashboard) {
				// Across processes a forgotten "in doubt" mark can be written back by another process's
				// call that crossed its forget; that process forgets it again within its settling
				// window (journal.ts). A run younger than that window looks once more after it before
				// it calls the row in doubt: a redelivery right after the first answer reads it.
				const young = this.journal.settlingMs() - (Date.now() - this.openedAt);
				if (this.acrossProcesses && !lookedAgain && young > 0) {
					lookedAgain = true;
					await sleep(young);
					continue;
				}
				return { kind: 'inDoubt' };
			}
			if (dashboard.verdict === 'paid') {
				this.drop([open]);
				await this.journal.record([marks.paidByDashboard(transferId, print)]);
				this.keep([marks.paidByDashboard(transferId, print)]);
				return { kind: 'answered', byDashboard: dashboard.word };
			}
			return await this.actOnNotPaid(transferId, print, dashboard);
		}
	}

	/** A row in doubt that the dashboard says is not paid is sent again, once. */
	private async actOnNotPaid(transferId: string, print: string, dashboard: DashboardStatus): Promise<Claim> {
		const actedOn = marks.notPaidActedOn(transferId, print);
		const { seen } = await this.journal.record([actedOn, marks.open(transferId, print)]);
		this.keep([actedOn, marks.open(transferId, print)]);
		if (seen.has(actedOn)) return { kind: 'inDoubt', notPaidUsed: true };
		return { kind: 'send', resend: true, byDashboard: dashboard.word };
	}

	/**
	 * An answered row that the dashboard says is not paid: a correction of the user's own earlier
	 * "paid", or a contradiction of the service's answer, which the node reports and leaves alone.
	 */
	private async correctDashboard(transferId: string, print: string, dashboard: DashboardStatus): Promise<Claim> {
		const paidByDashboard = marks.paidByDashboard(transferId, print);
		const { seen } = await this.journal.record([paidByDashboard]);
		this.drop([paidByDashboard]);
		if (!seen.has(paidByDashboard)) return { kind: 'answered', contradiction: dashboard.word };
		return await this.actOnNotPaid(transferId, print, dashboard);
	}

	/** The request is going out now: from here its claim stays unless the service refuses it. */
	sending(index: number) {
		const row = this.held.get(index);
		if (row) row.sent = true;
	}

	/** The service answered clearly (SUCCESS or PENDING, or refused a repeat of this node's own request). */
	answered(index: number, answer?: FirstAnswer) {
		this.settle(index, (row) => {
			if (answer) rememberAnswer(row.key, answer);
			if (this.guard === 'node') this.drop([row.open]);
		});
	}

	/** The service refused the first request of this row: no money moved, so the claim goes. */
	refusedFirst(index: number) {
		this.settle(index, (row) => this.undo([...row.claimMarks, ...(this.guard === 'node' ? [row.open] : [])]));
	}

	/** No clear answer, or a re-send refused: the row stays claimed, in doubt. */
	inDoubt(index: number) {
		this.settle(index, () => undefined);
	}

	/** Claimed but not sent (the run stopped or was cancelled first): the claim goes. */
	notSent(index: number) {
		const row = this.held.get(index);
		if (row && !row.sent) this.refusedFirst(index);
	}

	/**
	 * Forgets the claims of rows this run never sent, and finishes the run's writes: `untilWritten`
	 * waits for them (a process about to exit). Where the node guards, the run also ends only once
	 * they are written: an answered row's "in doubt" mark is gone before the run's answer is, so a
	 * redelivery on another worker reads ALREADY_SUBMITTED, not UNKNOWN. Otherwise they complete in
	 * the background, in the order asked, before anything asked later about the same marks.
	 */
	async close(untilWritten: boolean, warn: (message: string) => void): Promise<void> {
		const finishing = (async () => {
			await Promise.all(this.claiming);
			for (const index of [...this.held.keys()]) this.notSent(index);
			await Promise.all(this.pending);
			if (this.failedWrite) warn(this.failedWrite);
		})();
		if (untilWritten || this.guard === 'node') await finishing;
	}

	/**
	 * For a dry run: what the record says of the row, leaving it as it was (what asking recorded
	 * is forgotten at once; if n8n stops in between, the row errs to "in doubt", never to "paid").
	 */
	async peek(transferId: string, print: string): Promise<'new' | 'answered' | 'sentBefore' | 'inDoubt' | 'otherValues'> {
		const sent = marks.sent(transferId, print);
		const asked = this.guard === 'node' ? [marks.id(transferId), sent, marks.open(transferId, print)] : [sent];
		const { seen } = await this.journal.record(asked);
		// Not kept forgotten: a real run may claim the same row a moment later, in another process.
		this.undo(asked.filter((mark) => !seen.has(mark)));
		await Promise.all(this.pending);
		if (!seen.has(asked[0])) return 'new';
		if (this.guard === 'service') return firstAnswer(`${this.journalKey}|${sent}`) ? 'answered' : 'sentBefore';
		if (!seen.has(sent)) return 'otherValues';
		return seen.has(asked[2]) ? 'inDoubt' : 'answered';
	}

	/** The last store call's duration, for how far ahead a batch claims. */
	lastCallMs(): number {
		return this.journal.lastCallMs();
	}

	/** How long a claim waits for its confirmation (none in one process). */
	guardWaitMs(): number {
		return this.acrossProcesses ? this.journal.guardWaitMs() : 0;
	}

	private settle(index: number, then: (row: Held) => void) {
		const row = this.held.get(index);
		if (!row) return;
		this.held.delete(index);
		then(row);
		row.release();
	}

	/** Written by this run: kept so against another process's late write over it (journal.ts). */
	private keep(written: string[]) {
		this.journal.hold(written, true);
	}

	/** Forgotten, and kept forgotten: a mark asking recorded that is not true, or a state that ended. */
	private drop(unwanted: string[]) {
		this.journal.hold(unwanted, false);
		this.later(this.journal.forget(unwanted));
	}

	/** Forgotten, and no longer kept either way: a claim whose transfer did not happen. */
	private undo(claim: string[]) {
		this.journal.release(claim);
		this.later(this.journal.forget(claim));
	}

	private later(write: Promise<void>) {
		this.pending.push(
			write.catch((error) => {
				this.failedWrite = `the record could not forget what it no longer holds true (${reasonOf(error)}); the rows concerned read as in doubt`;
			}),
		);
	}
}

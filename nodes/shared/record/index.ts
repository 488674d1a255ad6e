import { createHash } from 'crypto';
import type { IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { firstAnswer, rememberAnswer, takeTurn } from './inProcess';
import type { FirstAnswer } from './inProcess';
import type { Fill, Recorded } from './journal';
import { Journal, MAX_ENTRIES, NEARLY_FULL } from './journal';
import { marks } from './marks';
import type { DashboardStatus } from './settle';

/**
 * The node's record of the transfers it sent, in n8n's processed-data store (journal.ts). Every
 * transfer has a key the user sees before it is sent, its Transfer ID (for an internal row without
 * one, made of the row's Top-Up Key: PayoutsTransfer/operations/internalTransfer.ts), and the
 * record is keyed by it. It changes only when a request goes out and when its answer comes; a Dry
 * Run never touches it. Each promise, the one mechanism that keeps it, and the simulator's
 * invariant that checks it (test/simulator/invariants.ts):
 *
 * - Paid at most once (`paidOnce`). Card and standard transfers, and internal ones where the user
 *   says the service refuses a repeated Transfer ID (`guard: 'service'`): the service refuses a
 *   repeat, and a row is sent again only with its Transfer ID. Other internal transfers
 *   (`guard: 'node'`): a request goes out only after its claim (`sent` of its attempt) was found
 *   new by a test-and-set: atomic in one process (journal.ts), confirmed after a measured wait
 *   across processes (the stated timing assumption).
 * - ALREADY_SUBMITTED only where this node holds a paid answer to these values, or the dashboard
 *   said paid (`paidOnlyWherePaid`): an attempt's `open` mark is forgotten only then. Losing that
 *   forget (another process writing the row back) reads in doubt, never paid.
 * - A row never sent, or clearly refused, is never in doubt (`doubtOnlyWithCause`): it is claimed
 *   only as its request goes out, and an attempt that moved no money is marked `free` (added and
 *   confirmed, never a forget that a later write can undo), so the next attempt may be claimed.
 *   After a crash only the rows in flight, at most Concurrency claimed ahead of them and those
 *   answered whose answer was not yet written are in doubt.
 * - Rows in doubt are settled from the dashboard (`settledInTheEnd`): its not-paid word claims the
 *   next attempt as a send does (only one execution wins it), once per attempt it sent itself.
 * - Dry Runs write nothing (`dryRunsWriteNothing`): they never call the record.
 *
 * Reach: n8n keeps the last MAX_ENTRIES marks per node, oldest first out. A paid transfer keeps
 * one mark where the service guards and two where the node does; what else costs marks (rows in
 * doubt, attempts after a refusal, settling) is counted with the row's size, and a run that
 * writes to a nearly full record says so on its rows, before n8n forgets anything (`reachNote`).
 * Marks recorded by asking and forgotten again (asking about a paid transfer records "no clear
 * answer") use room only while they are there: on a full row n8n drops the oldest for them, at
 * most as many as are in flight at once (the simulator: 43 while 10,500 top-ups filled the row,
 * 88 more while 5,000 of them ran again after a restart), which the reach's margin holds.
 */

/** Transfers the record remembers per node, when each keeps the marks of a paid one, with room for the rest. */
export const RECORD_REACH = { service: 20_000, node: 10_000 } as const;

/** Who refuses a second transfer with the same Transfer ID: the service, or this node's record. */
export type Guard = keyof typeof RECORD_REACH;

/** What this node's record knows of its earlier requests of a row's values, where the service guards. */
export type Earlier = 'none' | 'paid' | 'unanswered';

/** What the record says of a row, and so what the run does with it. */
export type Claim =
	/**
	 * Send it. `earlier`: what this node's earlier requests of these values got (known once the
	 * claim is written, which goes along with the request where the service guards). `attempt`:
	 * where the node guards, which request of this transfer this is (1: the first).
	 */
	| { kind: 'send'; earlier: Earlier | Promise<Earlier>; attempt: number; byDashboard?: string; fill?: Fill | Promise<Fill | undefined> }
	/** This node holds a paid answer to these values (or the dashboard said paid): ALREADY_SUBMITTED. */
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

/** A row this run claimed: which attempt, whether its request went out, its turn in this process. */
interface Held {
	transferId: string;
	print: string;
	attempt: number;
	key: string;
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
	/** Claims asked and not yet answered: a closing run waits for them, to free those it will not send. */
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
		// One execution at a time per transfer in this process: a second one reads what the first left.
		const key = `${this.journalKey}|${marks.sent(transferId, print)}`;
		const release = await takeTurn(key);
		const hold = (claim: Claim, attempt = 1): Claim => {
			if (claim.kind === 'send') this.held.set(index, { transferId, print, attempt, key, release, sent: false });
			else release();
			return claim;
		};
		try {
			// This process holds the service's paid answer to these values: that is the evidence.
			const first = firstAnswer(key);
			if (first) return hold(dashboard?.verdict === 'notPaid' ? { kind: 'answered', first, contradiction: dashboard.word } : { kind: 'answered', first });
			if (this.guard === 'service') return hold(dashboard ? await this.settleWithService(transferId, print, dashboard) : this.claimWithService(transferId, print));
			const claim = await this.claimAsGuard(transferId, print, dashboard);
			return hold(claim, claim.kind === 'send' ? claim.attempt : 1);
		} catch (error) {
			release();
			return { kind: 'recordFailed', reason: reasonOf(error) };
		}
	}

	/**
	 * The service refuses a repeat, so the request need not wait for the claim: it goes out while
	 * the claim is written, and what the record knew before (`earlier`) tells what a refusal as a
	 * repeat ("Transfer Id already exists") means.
	 */
	private claimWithService(transferId: string, print: string): Claim {
		const [sent, open] = [marks.sent(transferId, print), marks.open(transferId, print)];
		const recorded = this.journal.record([sent, open]);
		const written = recorded.then(
			({ seen }): Earlier => this.earlierOf(seen, sent, open),
			(error: unknown): Earlier => {
				this.failedWrite = `the record of sent transfers could not be written (${reasonOf(error)}): a repeat of these transfers may read ALREADY_EXISTS where ALREADY_SUBMITTED was true`;
				return 'none';
			},
		);
		this.later(written.then(() => undefined));
		return { kind: 'send', earlier: written, attempt: 1, fill: recorded.then(({ fill }) => fill, () => undefined) };
	}

	/**
	 * Where the service guards, a row the dashboard has a word on waits for what the record knows
	 * before it goes out: held by the service from a request of this node without a clear answer,
	 * the dashboard settles it (paid: not sent; not paid: sent again, and if the service still holds
	 * it, it can never be paid under this Transfer ID); never sent by this node, a paid word means
	 * another transfer has it (not sent).
	 */
	private async settleWithService(transferId: string, print: string, dashboard: DashboardStatus): Promise<Claim> {
		const [sent, open] = [marks.sent(transferId, print), marks.open(transferId, print)];
		const { seen } = await this.journal.record([sent, open]);
		const earlier = this.earlierOf(seen, sent, open);
		const paidWord = dashboard.verdict === 'paid';
		if (earlier === 'paid') return paidWord ? { kind: 'answered' } : { kind: 'answered', contradiction: dashboard.word };
		if (earlier === 'none') {
			if (!paidWord) return { kind: 'send', earlier, attempt: 1 };
			// Asking recorded a claim of a transfer this run will not send: forgotten again.
			this.forgetLater([sent, open]);
			return { kind: 'dashboardOnly', word: dashboard.word };
		}
		if (paidWord) {
			this.keepForgottenLater([open]);
			return { kind: 'answered', byDashboard: dashboard.word };
		}
		return { kind: 'send', earlier, attempt: 1, byDashboard: dashboard.word };
	}

	/** What the record says of earlier requests of these values (asking recorded "no clear answer" over a paid one: forgotten again). */
	private earlierOf(seen: Set<string>, sent: string, open: string): Earlier {
		if (!seen.has(sent)) return 'none';
		if (seen.has(open)) return 'unanswered';
		this.keepForgottenLater([open]);
		return 'paid';
	}

	/**
	 * Where the service guards and refused a repeat: what the record says of the earlier requests,
	 * asked once more after the settling window where this run is younger than it. Across processes
	 * another worker's call may have written back the "no clear answer" mark that a paid answer
	 * forgot a moment ago; its worker forgets it again within the window.
	 */
	async lookAgain(transferId: string, print: string): Promise<Earlier> {
		const young = this.journal.settlingMs() - (Date.now() - this.openedAt);
		if (young > 0) await sleep(young);
		const [sent, open] = [marks.sent(transferId, print), marks.open(transferId, print)];
		const { seen } = await this.journal.record([sent, open]);
		return this.earlierOf(seen, sent, open);
	}

	/**
	 * The node is the guard. The first attempt's claim finds the Transfer ID new (send), answered,
	 * in doubt, or taken by other values; an attempt that moved no money (`free`) lets the next one
	 * be claimed, and so on (walk).
	 */
	private async claimAsGuard(transferId: string, print: string, dashboard?: DashboardStatus): Promise<Claim> {
		let lookedAgain = false;
		for (let tries = 1; ; tries++) {
			const [id, sent, open] = [marks.id(transferId), marks.sent(transferId, print), marks.open(transferId, print)];
			const first = await this.ask([id, sent, open]);
			if (!first.seen.has(id)) {
				if (!(await this.confirmed(first, tries))) continue;
				if (dashboard?.verdict === 'paid') {
					// Claimed, and not sent: the dashboard says the service has it.
					await this.free(transferId, print, 1);
					return { kind: 'dashboardOnly', word: dashboard.word };
				}
				return { kind: 'send', earlier: 'none', attempt: 1, fill: first.fill };
			}
			this.journal.dismiss(first);
			if (!first.seen.has(sent)) {
				// Asking recorded a claim of these values that is not true: forgotten again.
				this.forgetLater([sent, open]);
				return { kind: 'otherValues' };
			}
			if (!first.seen.has(open)) return this.paid(transferId, print, 1, dashboard);
			const walked = await this.walk(transferId, print, 1, dashboard, tries);
			if (walked === 'again') continue;
			// Across processes a paid answer's forgotten "no clear answer" mark may have been written back
			// by another worker's call a moment ago: a run younger than the settling window looks once
			// more after it (a redelivery right after the first answer reads ALREADY_SUBMITTED).
			const young = this.journal.settlingMs() - (Date.now() - this.openedAt);
			if (walked.kind === 'inDoubt' && !dashboard && this.acrossProcesses && !lookedAgain && young > 0) {
				lookedAgain = true;
				await sleep(young);
				continue;
			}
			return walked;
		}
	}

	/**
	 * Attempt `from` has no clear paid answer: in doubt, in flight, or free. One call asks whether it
	 * is free and claims the next: free, the next is this run's to send; not free, the transfer is in
	 * doubt, and the next attempt's claim, recorded by asking and never sent, reads in doubt too.
	 * The dashboard's not-paid word sends it again once per transfer: that use is claimed as a send is.
	 */
	private async walk(transferId: string, print: string, from: number, dashboard: DashboardStatus | undefined, tries: number): Promise<Claim | 'again'> {
		for (let attempt = from; ; attempt++) {
			const next = attempt + 1;
			const [free, sent, open] = [marks.free(transferId, print, attempt), marks.sent(transferId, print, next), marks.open(transferId, print, next)];
			const asked = await this.ask([free, sent, open]);
			if (asked.seen.has(sent)) {
				// Another run moved past this attempt: the next one is what counts.
				this.journal.dismiss(asked);
				if (!asked.seen.has(open)) return this.paid(transferId, print, next, dashboard);
				continue;
			}
			if (asked.seen.has(free)) {
				// The attempt moved no money: the next is this run's.
				if (!(await this.confirmed(asked, tries))) return 'again';
				return { kind: 'send', earlier: 'none', attempt: next, fill: asked.fill };
			}
			if (dashboard?.verdict === 'notPaid') {
				// The next attempt's claim is this run's; the dashboard's word may be used once.
				if (!(await this.confirmed(asked, tries))) return 'again';
				const once = marks.settled(transferId, print);
				const used = await this.ask([once]);
				if (used.seen.has(once)) {
					this.journal.dismiss(used);
					return { kind: 'inDoubt', notPaidUsed: true };
				}
				if (!(await this.confirmed(used, tries))) return 'again';
				return { kind: 'send', earlier: 'none', attempt: next, byDashboard: dashboard.word, fill: asked.fill };
			}
			this.journal.dismiss(asked);
			if (dashboard?.verdict === 'paid') {
				// The dashboard says it paid: from now on the transfer reads paid.
				this.keepForgottenLater([open]);
				return { kind: 'answered', byDashboard: dashboard.word };
			}
			// In doubt. One process holds the record: the claim recorded by asking is forgotten again.
			if (!this.acrossProcesses) this.forgetLater([free, sent, open]);
			return { kind: 'inDoubt' };
		}
	}

	/** An attempt this node sent has a paid answer (asking recorded "no clear answer": forgotten again). */
	private paid(transferId: string, print: string, attempt: number, dashboard?: DashboardStatus): Claim {
		this.keepForgottenLater([marks.open(transferId, print, attempt)]);
		return dashboard?.verdict === 'notPaid' ? { kind: 'answered', contradiction: dashboard.word } : { kind: 'answered' };
	}

	/** The request is going out now: from here its claim stays. */
	sending(index: number) {
		const row = this.held.get(index);
		if (row) row.sent = true;
	}

	/** The service answered SUCCESS or PENDING: the attempt is paid. */
	answered(index: number, answer?: FirstAnswer) {
		this.settle(index, async (row) => {
			if (answer) rememberAnswer(row.key, answer);
			await this.journal.keepForgotten([marks.open(row.transferId, row.print, row.attempt)]);
		});
	}

	/**
	 * The service refused the request clearly: no money moved. Where the node guards, the attempt is
	 * marked free, so the next may be sent; where the service guards, the row is sent again anyway,
	 * and its claim is forgotten only so that a later refusal as a repeat is not taken for this one's.
	 */
	refused(index: number) {
		this.settle(index, async (row) => {
			if (this.guard === 'node') await this.free(row.transferId, row.print, row.attempt);
			else await this.journal.forget([marks.sent(row.transferId, row.print), marks.open(row.transferId, row.print)]);
		});
	}

	/** No clear answer: the row stays claimed, in doubt. */
	inDoubt(index: number) {
		this.settle(index, async () => undefined);
	}

	/** Claimed but not sent (the run stopped or was cancelled first): free, as a refusal is. */
	notSent(index: number) {
		const row = this.held.get(index);
		if (row && !row.sent) this.refused(index);
	}

	/**
	 * Frees the rows this run claimed and never sent, and finishes the run's writes: `untilWritten`
	 * waits for them (a process about to exit). Where the node guards, the run also ends only once
	 * they are written: a freed row reads so in the next run. Otherwise they complete in the
	 * background, in the order asked, before anything asked later about the same marks.
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

	/** What this process knows of a row without asking the record (Dry Run): the service's clear answer, if it holds one. */
	knownAnswer(transferId: string, print: string): FirstAnswer | undefined {
		return firstAnswer(`${this.journalKey}|${marks.sent(transferId, print)}`);
	}

	/** The last store call's duration, for how far ahead a batch claims. */
	lastCallMs(): number {
		return this.journal.lastCallMs();
	}

	/** How long a claim waits for its confirmation (none in one process). */
	guardWaitMs(): number {
		return this.acrossProcesses ? this.journal.guardWaitMs() : 0;
	}

	/**
	 * Marks an attempt free, confirmed like a claim: a free mark written over by another process is
	 * written again. If it was there already, a run that found the attempt in doubt recorded the next
	 * attempt's claim by asking, and never sent it: that one is freed too, and so on.
	 */
	private async free(transferId: string, print: string, from: number) {
		for (let attempt = from, tries = 1; tries <= MAX_CLAIM_ATTEMPTS; ) {
			const free = marks.free(transferId, print, attempt);
			const asked = await this.ask([free]);
			if (!(await this.confirmed(asked, tries))) {
				tries++;
				continue;
			}
			if (!asked.seen.has(free)) return;
			attempt++;
		}
		throw new Error(`other n8n processes wrote over its mark ${MAX_CLAIM_ATTEMPTS} times in a row`);
	}

	/** A test-and-set; across processes with the call's token, for `confirmed`. */
	private async ask(wanted: string[]): Promise<Recorded> {
		return await this.journal.record(wanted, { withToken: this.acrossProcesses });
	}

	/**
	 * Whether a call's writes were kept (always, in one process). Written over by another process:
	 * false, after a pause of random length that grows with each try, so that the two stop colliding.
	 */
	private async confirmed(asked: Recorded, tries: number): Promise<boolean> {
		if (await this.journal.confirm(asked)) return true;
		if (tries >= MAX_CLAIM_ATTEMPTS) throw new Error(`other n8n processes wrote over its claim ${MAX_CLAIM_ATTEMPTS} times in a row`);
		await sleep(Math.random() * Math.min(2 ** (tries - 1), MAX_RETRY_PAUSE_WAITS) * this.journal.guardWaitMs());
		return false;
	}

	private settle(index: number, then: (row: Held) => Promise<void>) {
		const row = this.held.get(index);
		if (!row) return;
		this.held.delete(index);
		// The turn passes on once the record says what became of the row.
		this.later(then(row).finally(row.release));
	}

	/** A mark that asking recorded and that is not true, forgotten again (in one process, before anything asked later). */
	private forgetLater(unwanted: string[]) {
		if (unwanted.length > 0) this.later(this.journal.forget(unwanted));
	}

	/** A "no clear answer" mark that is not true, forgotten again and kept forgotten (journal.ts). */
	private keepForgottenLater(unwanted: string[]) {
		this.later(this.journal.keepForgotten(unwanted));
	}

	private later(write: Promise<void>) {
		this.pending.push(
			write.catch((error) => {
				this.failedWrite = `the record could not be written to the end (${reasonOf(error)}); the rows concerned read as in doubt`;
			}),
		);
	}
}

/** What a run tells the user of the record's reach, for rows whose claim made the row nearly full (undefined: nothing to say). */
export function reachNote(fill: Fill | undefined, guard: Guard): string | undefined {
	if (!fill || fill.marks < NEARLY_FULL) return undefined;
	const reach = RECORD_REACH[guard].toLocaleString('en-US');
	const kept = `n8n keeps this node's last ${MAX_ENTRIES.toLocaleString('en-US')} marks of sent transfers (about ${reach} paid transfers; rows in doubt and transfers sent again keep more)`;
	const advice =
		guard === 'node'
			? 'Settle the rows in doubt, keep keys unique for longer (an event ID is), or, if your service refuses a repeated internal Transfer ID, turn on Options > Service Refuses Repeated Transfer IDs.'
			: 'The service still refuses a repeated Transfer ID: such a repeat reads ALREADY_EXISTS instead of ALREADY_SUBMITTED.';
	return fill.dropped > 0
		? `${kept}: this run made it forget the oldest ${fill.dropped.toLocaleString('en-US')}. A repeat of a transfer that old is no longer recognised by this node. ${advice}`
		: `${kept}, and holds ${fill.marks.toLocaleString('en-US')}: from ${MAX_ENTRIES.toLocaleString('en-US')} on, each new transfer makes it forget the oldest. ${advice}`;
}

/**
 * The user of the simulator's world, who does literally what the node says (its `nextStep`, and
 * where an older node has none, what its words say): runs a row again when told, pays a payout under
 * a new Transfer ID when told, maps the dashboard's status as the export stood when it was taken
 * (which may be before the node's last request: an export is taken once a run ended and used again
 * until the node asks for a new one), looks a Transfer ID up when told, and runs the whole batch
 * again after any failure. Never more than the words say: it never checks a fresh dashboard before
 * following "pay it under a new Transfer ID".
 */
import type { ExecutionRecord, Row, RowOutcome, World } from './world';
import { exportedStatus } from './service';

/** The node's words: a dashboard export settles a row only once 10 minutes have passed since the run that left it in doubt. */
export const SETTLE_WAIT_MS = 10 * 60 * 1000;

/** What the node tells a user to do with a row (the node's `nextStep`, or read from its words). */
export type NextStep =
	| 'none'
	/** The user's own step after n8n was killed under Pay Again on Every Run (docs/safety.md): the row's Transfer ID was made in the killed execution and never shown, so the dashboard is read by payee. */
	| 'lookUpPayee'
	| 'runAgain'
	| 'fixRow'
	| 'settleFromDashboard'
	| 'newExport'
	| 'newTransferId'
	| 'lookUp'
	| 'settleClaim';

const PAID = ['SUCCESS', 'PENDING', 'ALREADY_SUBMITTED'];

/** What a row's outcome tells the user to do. */
export function nextStepOf(outcome: Pick<RowOutcome, 'status' | 'hint' | 'nextStep'>): NextStep {
	if (outcome.nextStep) return outcome.nextStep as NextStep;
	if (PAID.includes(outcome.status) || outcome.status === 'DRY_RUN') return 'none';
	// A node without `nextStep` (an earlier revision): its words, read literally.
	const hint = outcome.hint ?? '';
	if (outcome.status === 'ALREADY_EXISTS') return 'lookUp';
	if (
		/under a new (Transfer ID|Top-Up Key|one)\b/i.test(hint) &&
		!/never give it a new|before you know/i.test(hint)
	)
		return 'newTransferId';
	if (/claims? table|claim's outcome/i.test(hint)) return 'settleClaim';
	if (outcome.status === 'UNKNOWN' && /Run the row again with the same Transfer ID/.test(hint))
		return 'runAgain';
	if (outcome.status === 'UNKNOWN')
		return /Look it up again/.test(hint) ? 'newExport' : 'settleFromDashboard';
	return 'runAgain';
}

/** What a claim's outcome, answered in place of the node, tells the user: in doubt, settle it; not paid, a new key; else paid. */
const CLAIM_ANSWER_STEPS: Record<string, NextStep> = {
	UNKNOWN: 'settleClaim',
	FAILED: 'newTransferId',
	ERROR: 'newTransferId',
	REJECTED: 'newTransferId',
	NOT_FOUND: 'newTransferId',
};

/** Steps that decide by a dashboard export. */
const DASHBOARD_STEPS: NextStep[] = [
	'settleFromDashboard',
	'newExport',
	'lookUp',
	'settleClaim',
	'lookUpPayee',
];

/** The row read PENDING, or ALREADY_SUBMITTED of a PENDING answer: submitted, not yet settled at the bank. */
function pendingAtTheBank(execution: ExecutionRecord, row: Row): boolean {
	const outcome = [...execution.outcomes].reverse().find((candidate) => candidate.row === row);
	return (
		outcome?.status === 'PENDING' ||
		(outcome?.status === 'ALREADY_SUBMITTED' && outcome.json.firstStatus === 'PENDING')
	);
}

/** One payout as the user keeps it in their sheet. */
interface Wanted {
	payout: string;
	key: string;
	/** Done: paid, as the node or the dashboard said. */
	done: boolean;
	/** The node said the row's own values must change (an amount it cannot send exactly): the user would edit the sheet; the simulator leaves it. */
	needsFix?: boolean;
	/** Submitted, PENDING at the bank: the docs say to check it in the dashboard later. */
	pending?: string;
	/** Waiting to settle it from the dashboard, until then. */
	waitsUntil?: number;
	/** The row as it goes into the next run (with a dashboard status where the user mapped one). */
	next?: Row;
	/** Paid by n8n's Retry of this failed execution, as the node's words said (Pay Again on Every Run): never in a new execution as well. */
	retryOf?: string;
}

export class User {
	private readonly wanted = new Map<string, Wanted>();
	/** The dashboard export the user holds: when it was taken, and what it says. */
	private export?: { at: number; rows: ReturnType<World['service']['export']> };
	/** Executions whose outcomes the user has acted on. */
	private readonly read = new Set<ExecutionRecord>();
	/**
	 * Rows the user runs once more with the next run, done or not: after a batch that ended with an
	 * error whose words say running the same rows again pays none of them twice, a user runs the
	 * batch again as it is (the sheet), not only the rows that need them.
	 */
	private rerun: Row[] = [];
	/** Failed executions the user retries (n8n's Retry), as the node's words said. */
	private retries = new Set<ExecutionRecord>();
	/** Every decision, for the log. */
	readonly decisions: string[] = [];
	/** News the user waits to act on (a dashboard export, 10 minutes after its run). */
	private later: Array<{
		execution: ExecutionRecord;
		row: Row;
		step: NextStep;
		transferId: string;
		readyAt: number;
	}> = [];

	constructor(private readonly world: World) {}

	/** The user wants this payout paid, under this key. */
	want(payout: string, key: string) {
		if (!this.wanted.has(payout)) this.wanted.set(payout, { payout, key, done: false });
	}

	/** The row of a payout as the user's sheet has it now. */
	rowOf(payout: string): Row {
		const wanted = this.wanted.get(payout);
		const { amount, to } = this.world.payouts.get(payout) ?? { amount: '0', to: '?' };
		return wanted?.next ?? { payout, key: wanted?.key ?? payout, amount, to };
	}

	/** Payouts not done yet, as rows for the next run, and rows of a batch the user runs again whole. */
	open(): Row[] {
		const open = [...this.wanted.values()]
			.filter(
				(wanted) =>
					!wanted.done &&
					!wanted.needsFix &&
					!wanted.pending &&
					wanted.waitsUntil === undefined &&
					wanted.retryOf === undefined,
			)
			.map((wanted) => this.rowOf(wanted.payout));
		const again = this.rerun.filter((row) => !open.some((other) => other.payout === row.payout));
		this.rerun = [];
		return [...open, ...again];
	}

	/** The user changed the row's values as the node said (`fixRow`): it goes into the next run. */
	fixed(payout: string) {
		const wanted = this.wanted.get(payout);
		if (wanted) wanted.needsFix = false;
	}

	/** The failed executions to retry now (n8n's Retry); one that could not be retried comes back with `retryLater`. */
	retriesDue(): ExecutionRecord[] {
		const due = [...this.retries];
		this.retries.clear();
		return due;
	}

	retryLater(failed: ExecutionRecord) {
		this.retries.add(failed);
	}

	/** Payouts the user waits on: PENDING at the bank, to be checked again. */
	waiting(): boolean {
		return (
			this.later.length > 0 ||
			this.retries.size > 0 ||
			[...this.wanted.values()].some((wanted) => wanted.retryOf !== undefined) ||
			[...this.wanted.values()].some((wanted) => wanted.pending !== undefined)
		);
	}

	/** When the user will act again (the clock must reach it). */
	wakesAt(): number | undefined {
		return this.later.length > 0 ? Math.min(...this.later.map((item) => item.readyAt)) : undefined;
	}

	/** Reads every ended execution not read yet, oldest first, and decides each of its rows' next run. */
	follow() {
		// PENDING rows, checked in the dashboard later as the docs say: paid, done; failed at the bank, a new Transfer ID.
		for (const wanted of this.wanted.values()) {
			if (!wanted.pending) continue;
			const status = exportedStatus(this.exportSince(this.world.clock.now), wanted.pending);
			if (status === 'SUCCESS') Object.assign(wanted, { pending: undefined, done: true });
			else if (status === 'FAILED') {
				wanted.key = `${wanted.key}r`;
				const { amount, to } = this.world.payouts.get(wanted.payout) ?? { amount: '0', to: '?' };
				Object.assign(wanted, {
					pending: undefined,
					next: { payout: wanted.payout, key: wanted.key, amount, to },
				});
				this.decisions.push(
					`${wanted.payout}: failed at the bank after PENDING: new key ${wanted.key}`,
				);
			}
		}
		// As the docs say: a row is settled once no run is sending it any more; its news waits till then.
		const running = new Set(
			this.world.executions
				.filter((execution) => execution.endedAt === undefined && !execution.crashed)
				.flatMap((execution) => execution.rows.map((row) => row.payout)),
		);
		// An execution n8n's kill ended is read too (it said nothing: its rows are run again, or looked up).
		const endOf = (execution: ExecutionRecord) =>
			execution.endedAt ??
			(execution.crashed ? this.world.processes.get(execution.process)?.crashedAt : undefined);
		const ended = this.world.executions.filter(
			(execution) =>
				endOf(execution) !== undefined &&
				!execution.dryRun &&
				!this.read.has(execution) &&
				!execution.rows.some((row) => running.has(row.payout)),
		);
		// Rows to settle from the dashboard wait, as the node says, 10 minutes after their run.
		const due = this.later.filter((item) => item.readyAt <= this.world.clock.now);
		this.later = this.later.filter((item) => item.readyAt > this.world.clock.now);
		for (const item of due) {
			const wanted = this.wanted.get(item.row.payout);
			if (wanted) wanted.waitsUntil = undefined;
			this.act(item.execution, item.row, item.step, item.transferId);
		}
		const decide = (execution: ExecutionRecord, row: Row, step: NextStep, transferId: string) => {
			const readyAt = (endOf(execution) ?? 0) + SETTLE_WAIT_MS;
			const wanted = this.wanted.get(row.payout);
			if (
				!DASHBOARD_STEPS.includes(step) ||
				this.world.clock.now >= readyAt ||
				!wanted ||
				wanted.key !== row.key
			)
				return this.act(execution, row, step, transferId);
			wanted.waitsUntil = readyAt;
			this.later.push({ execution, row, step, transferId, readyAt });
		};
		for (const execution of ended.sort((a, b) => (endOf(a) ?? 0) - (endOf(b) ?? 0))) {
			this.read.add(execution);
			for (const { row, answer } of execution.claimAnswers)
				decide(execution, row, CLAIM_ANSWER_STEPS[answer] ?? 'none', row.key);
			const told = new Set<string>();
			for (const outcome of execution.outcomes) {
				if (outcome.status === 'DRY_RUN') continue;
				told.add(outcome.row.payout);
				decide(execution, outcome.row, nextStepOf(outcome), outcome.transferId ?? outcome.row.key);
			}
			// A run that stopped with an error: every row it did not answer is run again, as it was;
			// unless n8n was killed or stopped under Pay Again on Every Run: a new execution is a new
			// transfer, so the docs say to look the row up in the dashboard first.
			const killedEveryRun =
				(execution.crashed === true || execution.stoppedAt !== undefined) &&
				this.world.workflow.keyMode === 'payEveryRun';
			for (const row of execution.rows)
				if (!told.has(row.payout) && !execution.claimAnswers.some((claimed) => claimed.row === row))
					decide(execution, row, killedEveryRun ? 'lookUpPayee' : 'runAgain', row.key);
			// The batch ended with an error that says running the same rows again is safe: the user runs it all again.
			if (
				/Running the same rows again pays none of them twice/.test(
					execution.error?.description ?? '',
				)
			)
				for (const row of execution.engineRows ?? [])
					if (this.wanted.get(row.payout)?.done) this.rerun.push(row);
		}
	}

	private act(execution: ExecutionRecord, row: Row, step: NextStep, transferId: string) {
		const wanted = this.wanted.get(row.payout);
		// An answer about a key the user has since replaced is old news.
		if (!wanted || wanted.done || wanted.needsFix || wanted.key !== row.key) return;
		wanted.retryOf = undefined;
		const payout = this.world.payouts.get(row.payout);
		const decide = (what: string, next?: Row, done = false) => {
			wanted.next = next;
			wanted.done = done;
			this.decisions.push(`${execution.id} ${row.payout} (${row.key}): ${step} → ${what}`);
		};
		const plain = { payout: row.payout, key: wanted.key, amount: row.amount, to: row.to };
		switch (step) {
			case 'none':
				if (step === 'none' && pendingAtTheBank(execution, row)) {
					wanted.pending = transferId;
					return decide('PENDING: checked later');
				}
				return decide('done', undefined, true);
			case 'runAgain':
				// Pay Again on Every Run, an execution that failed: its words say to retry it (n8n's Retry keeps
				// its Transfer IDs) and never to run the row in a new execution as well.
				if (this.world.workflow.keyMode === 'payEveryRun' && execution.saved) {
					this.retries.add(execution);
					wanted.retryOf = execution.id;
					return decide(`retry ${execution.id}`);
				}
				// Run again as the sheet has it: a mapped dashboard column stays mapped.
				return decide('run again', {
					...plain,
					...(row.dashboardStatus ? { dashboardStatus: row.dashboardStatus } : {}),
				});
			case 'fixRow':
				wanted.needsFix = true;
				return decide('the row must change: left');
			case 'settleFromDashboard': {
				// The export taken once the run ended; an older one is taken again.
				const exported = this.exportSince(execution.endedAt ?? this.world.clock.now);
				return decide(`map ${exportedStatus(exported, transferId)}`, {
					...plain,
					dashboardStatus: exportedStatus(exported, transferId),
				});
			}
			case 'newExport': {
				const exported = this.exportSince(this.world.clock.now);
				return decide(`map ${exportedStatus(exported, transferId)} (new export)`, {
					...plain,
					dashboardStatus: exportedStatus(exported, transferId),
				});
			}
			case 'newTransferId':
				wanted.key = `${wanted.key}r`;
				return decide(`new key ${wanted.key}`, { ...plain, key: wanted.key });
			case 'lookUp': {
				const exported = this.exportSince(this.world.clock.now);
				const found = exported.get(transferId);
				if (!found) return decide('not in the dashboard yet: run again', plain);
				const mine = found.to.includes(payout?.to ?? '');
				if (mine && (found.status === 'SUCCESS' || found.status === 'PENDING'))
					return decide('paid: done', undefined, true);
				wanted.key = `${wanted.key}r`;
				return decide(`${mine ? 'failed' : "another payout's"}: new key ${wanted.key}`, {
					...plain,
					key: wanted.key,
				});
			}
			case 'lookUpPayee': {
				const exported = this.exportSince(this.world.clock.now);
				const paid = [...exported.values()].some(
					(found) =>
						found.to.includes(payout?.to ?? '') &&
						(found.status === 'SUCCESS' || found.status === 'PENDING'),
				);
				return paid ? decide('paid: done', undefined, true) : decide('not paid: run again', plain);
			}
			case 'settleClaim': {
				// The dashboard's word written into the claims table's row: paid, done; not paid, the node
				// never sends it again under that Transfer ID (its record holds it in doubt): a new one.
				const exported = this.exportSince(execution.endedAt ?? this.world.clock.now);
				const status = exportedStatus(exported, transferId);
				const claim = this.world.claims.get(row.key);
				if (claim) claim.outcome = status;
				if (status === 'SUCCESS' || status === 'PENDING')
					return decide(`claim settled ${status}: done`, undefined, true);
				wanted.key = `${wanted.key}r`;
				return decide(`claim settled ${status}: new key ${wanted.key}`, {
					...plain,
					key: wanted.key,
				});
			}
		}
	}

	/** The export the user holds if it was taken at or after `since`; else a new one, taken now. */
	private exportSince(since: number) {
		if (!this.export || this.export.at < since)
			this.export = { at: this.world.clock.now, rows: this.world.service.export() };
		return this.export.rows;
	}
}

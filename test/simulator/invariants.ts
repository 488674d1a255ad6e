/**
 * What the node promises (docs/safety.md), checked against the service's ledger after a schedule.
 * Written from the promises over payouts, what the user meant (a payee and an amount), not over
 * Transfer IDs: a payout paid again under a new Transfer ID the node asked for is paid twice.
 * Each names the one thing the ledger must show (Jepsen's way).
 *
 * - paidOnce: every payout is paid at most once, whatever the user did on the node's words.
 * - paidAsMeant: what the service booked for a payout is its amount, exactly.
 * - paidOnlyWherePaid: SUCCESS and PENDING only on this execution's own booked request;
 *   ALREADY_SUBMITTED only where the ledger held a paid booking of the row's Transfer ID for this
 *   payout by then, or the user mapped the dashboard's paid word to it.
 * - noMoneyWhereNoneSaid: ERROR, HELD, a Dry Run and "not sent" only where no request of this
 *   execution for the payout was booked; ERROR "it can never be paid under this Transfer ID" only
 *   where the ledger has no paid booking of it for this payout.
 * - noRecordOnlyWhereNotSent: ALREADY_EXISTS ("this node has no record of sending it") only where no
 *   earlier run's request for the payout under that Transfer ID was booked (the record is the
 *   workflow's, shared by Pay and Pay Again).
 * - doubtOnlyWithCause: UNKNOWN only where a request of the payout under its Transfer ID had no clear
 *   answer by then, or was on its way; a row never sent is never in doubt, but for the named
 *   exception `claimedAtCrash` (its claim written, and n8n killed before the request went out).
 * - paidStaysPaid: once the node reported a payout paid under a Transfer ID in an execution that
 *   ended with its answers written, every later run of it under that Transfer ID reads
 *   ALREADY_SUBMITTED; named exceptions, counted: `askedAtCrash` (n8n killed while a later run was
 *   looking the row up: it reads in doubt), `acrossProcesses` (queue mode: another worker's write
 *   of the record lost this one's).
 * - doubtPerKill: n8n killed at any moment of any run (a first run or a re-run of rows paid long
 *   before) leaves in doubt at most what was in flight: three times Concurrency rows (the requests
 *   under way, and one write of the record), counted per kill over the named exceptions above.
 * - noRowBlocked: a run sends every row that needs no person; a row that does (in doubt, held by
 *   the service) never keeps the others from going out. Named exception: `serviceDown` (the run
 *   stopped sending after several rows in a row had no answer at all, or the service refused the
 *   whole account, and said so).
 * - dryRunsWriteNothing: a Dry Run sends nothing and writes nothing to n8n's database.
 * - settledInTheEnd: after the user followed the node's words to the end, every payout wanted is paid.
 */
import type { ExecutionRecord, Row, RowOutcome, World } from './world';
import { PayoutsServiceModel } from './service';
import { nextStepOf } from './user';

export type Invariant =
	| 'paidOnce'
	| 'paidAsMeant'
	| 'paidOnlyWherePaid'
	| 'noMoneyWhereNoneSaid'
	| 'doubtOnlyWithCause'
	| 'noRecordOnlyWhereNotSent'
	| 'paidStaysPaid'
	| 'doubtPerKill'
	| 'dryRunsWriteNothing'
	| 'noRowBlocked'
	| 'settledInTheEnd'
	// Named exceptions: counted with their cause, not failures.
	| 'claimedAtCrash'
	| 'askedAtCrash'
	| 'acrossProcesses'
	| 'serviceDown';

export interface Violation {
	invariant: Invariant;
	detail: string;
}

/** Counted with their cause (docs/safety.md says what each costs), not failures. */
export const NAMED_EXCEPTIONS: ReadonlyArray<Invariant> = [
	'claimedAtCrash',
	'askedAtCrash',
	'acrossProcesses',
	'serviceDown',
];

export const breaksPromise = (violation: Violation) =>
	!NAMED_EXCEPTIONS.includes(violation.invariant);

/** How long after a run ends its record's last writes may still be going out (a crash then loses them). */
const WRITE_BEHIND_MS = 500;

const PAID = ['SUCCESS', 'PENDING', 'ALREADY_SUBMITTED'];

export function check(world: World): Violation[] {
	const violations: Violation[] = [];
	const { service } = world;
	const payoutOfAccount = new Map([...world.payouts.values()].map((payout) => [payout.to, payout]));

	// A payout is what the user meant: paid once. Under Pay Again on Every Run every run the user
	// starts as a new payment (a batch, an event, a redelivery) is a payout of its own (schedule.ts);
	// a run of the same rows that the node's words said was safe is the same payout.
	for (const payout of world.payouts.values()) {
		const paid = service.bookings.filter(
			(booking) => booking.to === payout.to && booking.status !== 'FAILED',
		);
		if (paid.length > 1)
			violations.push({
				invariant: 'paidOnce',
				detail: `payout ${payout.id} paid ${paid.length} times: ${paid.map((booking) => `${booking.transferId} ${booking.amount}`).join(', ')}`,
			});
	}
	for (const booking of service.bookings) {
		const payout = payoutOfAccount.get(booking.to);
		if (payout && Number(payout.amount) !== booking.amount)
			violations.push({
				invariant: 'paidAsMeant',
				detail: `payout ${payout.id} of ${payout.amount} booked as ${booking.amount} (${booking.transferId})`,
			});
	}

	const crashOf = (execution: ExecutionRecord) => world.processes.get(execution.process)?.crashedAt;
	/** The payouts each execution a kill ended left in doubt, for the bound a kill keeps. */
	const left = new Map<string, Set<string>>();
	const leftByKill = (killed: ExecutionRecord, payout: string) => {
		const kill = `${killed.id}, ended by the kill of ${killed.process} at ${crashOf(killed)}`;
		left.set(kill, (left.get(kill) ?? new Set()).add(payout));
	};
	/** Executions whose process died before their record's writes were done. */
	const unwritten = (execution: ExecutionRecord) => {
		const crashedAt = crashOf(execution);
		return (
			crashedAt !== undefined &&
			(execution.crashed === true ||
				(execution.endedAt !== undefined && crashedAt - execution.endedAt <= WRITE_BEHIND_MS))
		);
	};

	for (const execution of world.executions) {
		const mine = world.attempts.filter((attempt) => attempt.execution === execution.id);
		// The error that ends a batch calls rows "not paid" only where none of them may have been.
		if (
			/rows were not paid/.test(execution.error?.message ?? '') &&
			execution.outcomes.some((outcome) => outcome.status === 'UNKNOWN')
		)
			violations.push({
				invariant: 'noMoneyWhereNoneSaid',
				detail: `${execution.id}: the batch's error says "${execution.error?.message.split(';')[0]}" though ${execution.outcomes
					.filter((outcome) => outcome.status === 'UNKNOWN')
					.map((outcome) => outcome.row.payout)
					.join(', ')} may have been paid (UNKNOWN)`,
			});
		if (execution.dryRun && mine.length > 0)
			violations.push({
				invariant: 'dryRunsWriteNothing',
				detail: `dry run ${execution.id} sent ${mine.length} request(s)`,
			});
		for (const outcome of execution.outcomes) {
			const at = execution.endedAt ?? world.clock.now;
			const payout = world.payouts.get(outcome.row.payout);
			const transferId = outcome.transferId ?? outcome.row.key;
			const bookedHere = mine.some(
				(attempt) => attempt.booked && attempt.body && payoutOf(attempt.body) === payout?.to,
			);
			const paidByThen = service.bookings.some(
				(booking) =>
					booking.transferId === transferId &&
					booking.to === payout?.to &&
					PayoutsServiceModel.paidAt(booking, at),
			);
			switch (outcome.status) {
				case 'SUCCESS':
				case 'PENDING':
					if (!bookedHere && !execution.dryRun)
						violations.push({
							invariant: 'paidOnlyWherePaid',
							detail: `${execution.id}: ${outcome.row.payout} read ${outcome.status} without a booked request of this execution (${transferId})`,
						});
					break;
				case 'ALREADY_SUBMITTED': {
					const saidPaid =
						outcome.row.dashboardStatus === 'SUCCESS' || outcome.row.dashboardStatus === 'PENDING';
					// "This node holds a paid answer (SUCCESS or PENDING)": a PENDING booking may fail at the bank later.
					const answeredPaid = world.attempts.some(
						(attempt) =>
							attempt.transferId === transferId &&
							payoutOf(attempt.body) === payout?.to &&
							attempt.answered === 'paid' &&
							(attempt.settledAt ?? Infinity) <= at,
					);
					if (!paidByThen && !saidPaid && !answeredPaid)
						violations.push({
							invariant: 'paidOnlyWherePaid',
							detail: `${execution.id}: ${outcome.row.payout} (${transferId}) read ALREADY_SUBMITTED; the ledger holds ${describe(world, transferId)}`,
						});
					break;
				}
				case 'ERROR':
				case 'HELD':
				case 'DRY_RUN':
					if (bookedHere)
						violations.push({
							invariant: 'noMoneyWhereNoneSaid',
							detail: `${execution.id}: ${outcome.row.payout} read ${outcome.status} (${outcome.message ?? ''}) but this execution's request was booked`,
						});
					if (outcome.status === 'ERROR' && nextStepOf(outcome) === 'newTransferId' && paidByThen)
						violations.push({
							invariant: 'noMoneyWhereNoneSaid',
							detail: `${execution.id}: ${outcome.row.payout} (${transferId}) told to pay under a new Transfer ID, but the ledger holds it paid: ${describe(world, transferId)}`,
						});
					break;
				case 'ALREADY_EXISTS': {
					// The record is the workflow's: a copy of the workflow holds none of the original's.
					const sentBefore = world.attempts.find(
						(attempt) =>
							attempt.transferId === transferId &&
							attempt.booked &&
							payoutOf(attempt.body) === payout?.to &&
							attempt.at < execution.startedAt &&
							workflowOf(world, attempt.execution) === execution.workflowId,
					);
					if (sentBefore)
						violations.push({
							invariant: twoWorkersAtOnce(world, execution, outcome)
								? 'acrossProcesses'
								: 'noRecordOnlyWhereNotSent',
							detail: `${execution.id}: ${outcome.row.payout} (${transferId}) read ALREADY_EXISTS (${outcome.message ?? ''}) though ${sentBefore.execution} sent it; its requests: ${attemptsOf(world, transferId)}`,
						});
					break;
				}
				case 'UNKNOWN':
					if (!doubtHasCause(world, execution, outcome, at)) {
						const claimedAtCrash = world.executions.find(
							(other) =>
								other !== execution &&
								unwritten(other) &&
								other.startedAt <= at &&
								other.rows.some((row) => row.payout === outcome.row.payout),
						);
						if (claimedAtCrash) leftByKill(claimedAtCrash, outcome.row.payout);
						violations.push({
							invariant: claimedAtCrash
								? 'claimedAtCrash'
								: staleWriteLost(world, transferId, execution.endedAt ?? execution.startedAt)
									? 'acrossProcesses'
									: 'doubtOnlyWithCause',
							detail: `${execution.id}: ${outcome.row.payout} (${transferId}) read UNKNOWN: ${outcome.message ?? ''}; its requests: ${attemptsOf(world, transferId)}`,
						});
					}
					break;
			}
		}
	}

	violations.push(...paidStaysPaid(world, unwritten, leftByKill));
	violations.push(...doubtPerKill(world, left));
	leftByKills.set(world, left);
	violations.push(...noRowBlocked(world));
	for (const row of world.leftUnsettled)
		violations.push({
			invariant: 'settledInTheEnd',
			detail: `${row.payout} (${row.key}) still not paid after the user followed every word (last: ${lastOutcome(world, row.payout)})`,
		});
	return violations;
}

/** The saved workflow whose execution sent a request (a copy of the workflow is another, with a record of its own). */
function workflowOf(world: World, execution: string): string | undefined {
	return world.executions.find((candidate) => candidate.id === execution)?.workflowId;
}

/** The account a request pays into: whose payout it is. */
function payoutOf(body: Record<string, unknown>): string {
	return String(body.rechargeAccount ?? body.beneId ?? body.token ?? '');
}

/**
 * Queue mode: n8n's store has no lock, so another worker's call that read the row before a write
 * of this Transfer ID's entries and wrote the row back after it undid that write (the writer makes
 * its state again a settling window later, record/store.ts, but a later stale write can undo that
 * too). Named exception `acrossProcesses`: a write of the Transfer ID's entries before the run ended
 * (before it or while it ran: "at the same moment") was overlapped so by another process's call.
 */
function staleWriteLost(world: World, transferId: string, before: number): boolean {
	if (world.processCount < 2) return false;
	return overlappedWrites(world).some(
		(write) =>
			(write.wroteAt as number) < before &&
			write.values.some(
				(entry) => entry.includes(`:${transferId}:`) || entry === `id:${transferId}`,
			),
	);
}

/** The writes another process's call overlapped (read before, wrote after): worked out once per world. */
const overlapped = new WeakMap<World, World['calls']>();
function overlappedWrites(world: World): World['calls'] {
	const known = overlapped.get(world);
	if (known) return known;
	const name = (process: string | undefined) => String(process).split('#')[0];
	const writes = world.calls
		.filter(
			(call) => call.kind !== 'count' && call.readAt !== undefined && call.wroteAt !== undefined,
		)
		.sort((a, b) => (a.readAt as number) - (b.readAt as number));
	// By the store's order of steps, not their millisecond: two steps may share one.
	const readOf = (call: World['calls'][number]) => call.readOrder ?? (call.readAt as number);
	const wroteOf = (call: World['calls'][number]) => call.wroteOrder ?? (call.wroteAt as number);
	const found = writes.filter((write) =>
		writes.some(
			(other) =>
				readOf(other) < wroteOf(write) &&
				wroteOf(other) > wroteOf(write) &&
				name(other.by) !== name(write.by),
		),
	);
	overlapped.set(world, found);
	return found;
}

/**
 * Queue mode: a process that wrote the Transfer ID's state died before it made that state again
 * (record/store.ts: first five times its slowest recent call, at least 0.25 s, then twice as far
 * apart each time: the first two within about a second and a half at the simulator's slowest calls).
 */
const WRITER_SETTLING_MS = 1_500;
function writerDiedSettling(world: World, transferId: string): boolean {
	if (world.processCount < 2) return false;
	return world.executions.some((execution) => {
		const crashedAt = world.processes.get(execution.process)?.crashedAt;
		const wrote =
			execution.outcomes.some(
				(outcome) => (outcome.transferId ?? outcome.row.key) === transferId,
			) ||
			world.attempts.some(
				(attempt) => attempt.execution === execution.id && attempt.transferId === transferId,
			);
		return (
			wrote &&
			crashedAt !== undefined &&
			execution.endedAt !== undefined &&
			crashedAt >= execution.endedAt &&
			crashedAt - execution.endedAt <= WRITER_SETTLING_MS
		);
	});
}

/** Queue mode: two workers sent the same transfer at once, one without a clear answer; its "no clear answer", written after the other's paid answer, outweighs it. */
function sentOnTwoWorkers(world: World, transferId: string): boolean {
	const name = (process: string) => process.split('#')[0];
	const mine = world.attempts.filter((attempt) => attempt.transferId === transferId);
	return mine.some(
		(unanswered) =>
			unanswered.answered === 'none' &&
			mine.some(
				(other) =>
					name(other.by) !== name(unanswered.by) &&
					other.at <= (unanswered.settledAt ?? Infinity) &&
					(other.settledAt ?? Infinity) >= unanswered.at,
			),
	);
}

/** Queue mode: two workers ran the same payout at the same time, in this execution or an earlier one (a lookup records "no clear answer" for a moment; a claim given back forgets the entries the other wrote). */
function lookedUpElsewhere(world: World, execution: ExecutionRecord, payout: string): boolean {
	if (world.processCount < 2) return false;
	const name = (process: string) => process.split('#')[0];
	// This execution, or any before it: what two workers did with one row at once (claims, looks,
	// claims given back) stays in the record after they end.
	const involved = world.executions.filter(
		(other) =>
			!other.dryRun &&
			other.rows.some((row) => row.payout === payout) &&
			other.startedAt <= (execution.endedAt ?? Infinity),
	);
	return involved.some((one) =>
		involved.some(
			(other) =>
				name(other.process) !== name(one.process) &&
				other.startedAt <= (one.endedAt ?? Infinity) &&
				(other.endedAt ?? Infinity) >= one.startedAt,
		),
	);
}

/**
 * Queue mode, named exception `acrossProcesses`: the record's row lost what one worker wrote of this
 * transfer to another worker's call, or two workers ran, sent or looked up the transfer at once.
 */
function twoWorkersAtOnce(world: World, execution: ExecutionRecord, outcome: RowOutcome): boolean {
	const id = outcome.transferId ?? outcome.row.key;
	return (
		staleWriteLost(world, id, execution.endedAt ?? execution.startedAt) ||
		lookedUpElsewhere(world, execution, outcome.row.payout) ||
		writerDiedSettling(world, id) ||
		sentOnTwoWorkers(world, id)
	);
}

/** A request of the payout under this Transfer ID had no clear answer by then, or was on its way (another execution sending it). */
function doubtHasCause(
	world: World,
	execution: ExecutionRecord,
	outcome: RowOutcome,
	at: number,
): boolean {
	const to = world.payouts.get(outcome.row.payout)?.to;
	const transferId = outcome.transferId ?? outcome.row.key;
	const unanswered = world.attempts.some(
		(attempt) =>
			attempt.transferId === transferId &&
			payoutOf(attempt.body) === to &&
			attempt.at <= at &&
			(attempt.answered === 'none' || (attempt.settledAt ?? Infinity) > at),
	);
	const sendingElsewhere = world.executions.some(
		(other) =>
			other !== execution &&
			!other.dryRun &&
			other.startedAt <= at &&
			(other.endedAt ?? Infinity) >= execution.startedAt &&
			other.rows.some((row) => row.payout === outcome.row.payout),
	);
	return unanswered || sendingElsewhere;
}

/** Rows read anything but ALREADY_SUBMITTED after an earlier run, its answers written, reported them paid under that Transfer ID. */
function paidStaysPaid(
	world: World,
	unwritten: (execution: ExecutionRecord) => boolean,
	leftByKill: (killed: ExecutionRecord, payout: string) => void,
): Violation[] {
	const reportedPaid = new Map<string, { from: number; writtenBy: number; node: string }>();
	for (const execution of world.executions) {
		if (execution.dryRun || execution.endedAt === undefined || unwritten(execution)) continue;
		for (const outcome of execution.outcomes) {
			if (!PAID.includes(outcome.status)) continue;
			const id = `${execution.workflowId} ${outcome.row.payout} ${outcome.transferId ?? outcome.row.key}`;
			const writtenBy = execution.endedAt + WRITE_BEHIND_MS;
			if (writtenBy < (reportedPaid.get(id)?.writtenBy ?? Infinity))
				reportedPaid.set(id, { from: execution.startedAt, writtenBy, node: outcome.node });
		}
	}
	const violations: Violation[] = [];
	for (const execution of world.executions) {
		if (execution.dryRun) continue;
		for (const outcome of execution.outcomes) {
			const paid = reportedPaid.get(
				`${execution.workflowId} ${outcome.row.payout} ${outcome.transferId ?? outcome.row.key}`,
			);
			if (
				!paid ||
				execution.startedAt <= paid.writtenBy ||
				outcome.status === 'ALREADY_SUBMITTED' ||
				outcome.status === 'DRY_RUN'
			)
				continue;
			// Stop before the run reached the row: "Not sent", true.
			if (
				execution.stoppedAt !== undefined &&
				outcome.status === 'ERROR' &&
				/stopped/i.test(outcome.message ?? '')
			)
				continue;
			const askedAtCrash = world.executions.find(
				(other) =>
					other !== execution &&
					unwritten(other) &&
					other.startedAt >= paid.from &&
					other.startedAt < execution.startedAt &&
					other.rows.some((row) => row.payout === outcome.row.payout),
			);
			if (askedAtCrash) leftByKill(askedAtCrash, outcome.row.payout);
			violations.push({
				invariant: askedAtCrash
					? 'askedAtCrash'
					: twoWorkersAtOnce(world, execution, outcome)
						? 'acrossProcesses'
						: 'paidStaysPaid',
				detail: `${execution.id}: ${outcome.row.payout} read ${outcome.status} (${outcome.message ?? ''}) after an earlier run reported it paid; its requests: ${attemptsOf(world, outcome.transferId ?? outcome.row.key)}`,
			});
		}
	}
	return violations;
}

const leftByKills = new WeakMap<World, Map<string, Set<string>>>();

/** After `check`: how many kills the schedule had, and how many payouts each execution a kill ended left in doubt. */
export function kills(world: World): { kills: number; leftPerKilledExecution: number[] } {
	return {
		kills: [...world.processes.values()].filter((process) => process.crashedAt !== undefined)
			.length,
		leftPerKilledExecution: [...(leftByKills.get(world)?.values() ?? [])].map((left) => left.size),
	};
}

/**
 * A kill leaves in doubt only what was in flight: of each execution it ended, at most the rows the
 * node sends at once (Concurrency, in each Payouts Transfer node of the workflow) and the rows of
 * one write of the record: a claim of the lanes' lead and a chunk, within twice Concurrency (docs/safety.md).
 */
function doubtPerKill(world: World, left: Map<string, Set<string>>): Violation[] {
	const concurrency = [world.workflow.pay, world.workflow.payAgain]
		.filter((node) => node !== undefined)
		.reduce((total, node) => total + Number(node.options.concurrency ?? 1), 0);
	const bound = 3 * concurrency;
	return [...left.entries()]
		.filter(([, payouts]) => payouts.size > bound)
		.map(([kill, payouts]) => ({
			invariant: 'doubtPerKill' as const,
			detail: `${kill}: ${payouts.size} payouts read in doubt after it, more than ${bound} (three times Concurrency ${concurrency}): ${[...payouts].slice(0, 8).join(', ')}${payouts.size > 8 ? ', …' : ''}`,
		}));
}

/** Rows of an ended run that were neither sent nor answered for themselves: something else kept them back. */
function noRowBlocked(world: World): Violation[] {
	const violations: Violation[] = [];
	for (const execution of world.executions) {
		// A batch with an invalid row is refused whole, before the first request (a promise of its own: a bad row moves no money).
		if (
			execution.dryRun ||
			execution.endedAt === undefined ||
			execution.crashed ||
			execution.stoppedAt !== undefined ||
			execution.error?.nothingSent
		)
			continue;
		const mine = world.attempts.filter((attempt) => attempt.execution === execution.id);
		// Execute Once: n8n hands the node the first row only.
		const reached = world.workflow.pay.settings.executeOnce
			? execution.rows.slice(0, 1)
			: execution.rows;
		// n8n's Retry runs from the failed node: rows an earlier node of the retried executions answered
		// (Pay, or the claim step that held them back) do not run again.
		const retried: ExecutionRecord[] = [];
		for (let id = execution.retryOf; id; ) {
			const earlier = world.executions.find((other) => other.id === id);
			if (!earlier) break;
			retried.push(earlier);
			id = earlier.retryOf;
		}
		const blocked = reached.filter((row, index) => {
			const to = world.payouts.get(row.payout)?.to;
			if (mine.some((attempt) => payoutOf(attempt.body) === to)) return false;
			if (
				retried.some(
					(earlier) =>
						earlier.outcomes.some((outcome) => outcome.row === row && outcome.node === 'Pay') ||
						earlier.claimAnswers.some((claimed) => claimed.row === row),
				)
			)
				return false;
			if (
				execution.outcomes.some((outcome) => outcome.row === row) ||
				execution.claimAnswers.some((claimed) => claimed.row === row)
			)
				return false;
			return execution.error?.itemIndex !== index;
		});
		if (blocked.length === 0) continue;
		// The service looked down (rows in a row without an answer), or refused the whole account: the run said so and stopped.
		const down = mine.length >= 3 && mine.slice(-3).every((attempt) => attempt.answered === 'none');
		const account = /balance|token|not enabled|whitelist/i.test(
			`${execution.error?.message ?? ''} ${execution.outcomes.map((outcome) => outcome.message).join(' ')}`,
		);
		violations.push({
			invariant: down || account ? 'serviceDown' : 'noRowBlocked',
			detail: `${execution.id}: ${blocked.length} of ${execution.rows.length} rows neither sent nor answered (${blocked
				.slice(0, 5)
				.map((row) => row.payout)
				.join(
					', ',
				)}${blocked.length > 5 ? ', …' : ''}); the run ended ${execution.error ? `with ${execution.error.message}` : 'without an error'}`,
		});
	}
	return violations;
}

function describe(world: World, transferId: string): string {
	const bookings = world.service.bookings.filter((booking) => booking.transferId === transferId);
	return bookings.length === 0
		? 'nothing'
		: bookings.map((booking) => `${booking.amount} to ${booking.to} ${booking.status}`).join(', ');
}

function attemptsOf(world: World, transferId: string): string {
	const attempts = world.attempts.filter((attempt) => attempt.transferId === transferId);
	return attempts.length === 0
		? 'none'
		: attempts
				.map(
					(attempt) =>
						`${attempt.execution}@${attempt.at - 1_700_000_000_000} ${attempt.fault}→${attempt.booked ? 'booked' : attempt.arrived ? 'refused' : 'lost'}/${attempt.answered}`,
				)
				.join(', ');
}

function lastOutcome(world: World, payout: string): string {
	for (const execution of [...world.executions].reverse()) {
		const outcome = [...execution.outcomes]
			.reverse()
			.find((candidate) => candidate.row.payout === payout);
		if (outcome) return `${outcome.status}: ${outcome.message ?? ''}`;
	}
	return 'none';
}

export type { Row };

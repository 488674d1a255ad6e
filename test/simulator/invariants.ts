/**
 * What the node promises (docs/safety.md), checked against the service's ledger after a schedule.
 * Written from the promises, not from the node's code (Jepsen's way): each names the one thing
 * the ledger must show.
 *
 * - paidOnce: no Transfer ID is paid twice (under the stated timing assumption across processes).
 * - paidOnlyWherePaid: a row reads ALREADY_SUBMITTED only where the ledger holds a paid transfer
 *   of its Transfer ID with its values (SUCCESS and PENDING are the service's own answers).
 * - doubtOnlyWithCause: a row reads UNKNOWN only where a request of its Transfer ID had no clear
 *   answer (lost, timed out, a 5xx) or was under way (another execution was sending it), or its
 *   process crashed with the row claimed: a row never sent, or clearly refused, is never in doubt.
 * - dryRunsWriteNothing: a Dry Run sends nothing and no database call is made while only dry runs
 *   run in a process (checked where the schedule allows: dryRunOnly).
 * - settledInTheEnd: after the user settled as the node said, every wanted payout is paid, once.
 * - paidStaysPaid: once the node reported a row paid (SUCCESS, PENDING, ALREADY_SUBMITTED) in a run
 *   that ended with its answers written, every later run of it with the same values, in any
 *   process, reads ALREADY_SUBMITTED: never in doubt, never refused, never sent as new (the chaos
 *   run found a row settled paid read UNKNOWN again when a later re-send met a fault). Three causes
 *   are counted, not failed (`paidEvidenceLost`): n8n crashed while a later run had the row claimed
 *   (that claim's "no clear answer" mark stays: in doubt); another run had it claimed at the time
 *   (in doubt, as "another execution is sending it"); across processes, a stale write of the row
 *   lost the paid answer's mark (ALREADY_EXISTS). Each reads as not known to be paid, never as
 *   paid where it was not, and nothing is sent twice: the dashboard settles it.
 */
import type { ExecutionRecord, Row, RowOutcome, World } from './world';

export interface Violation {
	invariant: 'paidOnce' | 'paidOnlyWherePaid' | 'doubtOnlyWithCause' | 'dryRunsWriteNothing' | 'settledInTheEnd' | 'paidStaysPaid' | 'paidEvidenceLost' | 'forgetLostAcrossProcesses';
	detail: string;
}

/**
 * What the store's missing lock may cost across processes, and only there: a forget that another
 * worker's call wrote back, or that another worker read before it landed, reads in doubt (never
 * paid, never sent again): a paid answer's, a refused request's where the service guards, a row
 * asked with other values than its Transfer ID was sent with. Counted, not a failure. (Where the
 * node guards, a refused or never-sent request is marked free, not forgotten: in doubt there is a
 * failure.)
 */
export const TOLERATED_ACROSS_PROCESSES: ReadonlyArray<Violation['invariant']> = ['forgetLostAcrossProcesses'];

/** Counted with its cause (paidStaysPaid above), in any number of processes: not a failure. */
export const TOLERATED_WITH_CAUSE: ReadonlyArray<Violation['invariant']> = ['paidEvidenceLost'];

/** Whether a schedule's violation breaks a promise (else it is counted only). */
export const breaksPromise = (violation: Violation, processes: number) => !TOLERATED_WITH_CAUSE.includes(violation.invariant) && !(TOLERATED_ACROSS_PROCESSES.includes(violation.invariant) && processes > 1);

/**
 * Where the service guards, a run ends before its record's last writes (an answer's "paid"), which
 * follow within a store call or two: a crash in that moment leaves the row in doubt, as a crash
 * during the run does.
 */
const WRITE_BEHIND_MS = 500;

export function check(world: World, { timingBroken }: { timingBroken: boolean }): Violation[] {
	const violations: Violation[] = [];
	const { service } = world;
	const byTransferId = new Map<string, number>();
	for (const booking of service.bookings) if (booking.status !== 'FAILED') byTransferId.set(booking.transferId, (byTransferId.get(booking.transferId) ?? 0) + 1);
	for (const [transferId, count] of byTransferId) {
		if (count > 1) violations.push({ invariant: 'paidOnce', detail: `${transferId} paid ${count} times${timingBroken ? ' (a database call outlasted the wait)' : ''}` });
	}

	// Executions their process crashed in, or just after, before the answers they had were written; their rows.
	const unwritten = new Set<ExecutionRecord>();
	const crashedRows = new Map<string, number>();
	for (const execution of world.executions) {
		if (execution.dryRun && service.attempted.some((attempt) => attempt.execution === execution.id)) {
			violations.push({ invariant: 'dryRunsWriteNothing', detail: `dry run ${execution.id} sent a request` });
		}
		const crashedAt = crashOf(world, execution);
		const writingStill = crashedAt !== undefined && execution.endedAt !== undefined && crashedAt - execution.endedAt <= WRITE_BEHIND_MS;
		if ((execution.crashed || writingStill) && !execution.dryRun) {
			unwritten.add(execution);
			for (const row of execution.rows) crashedRows.set(row.key, (crashedRows.get(row.key) ?? 0) + 1);
		}
	}

	const lostForgets = new Set<string>();
	for (const execution of world.executions) {
		for (const [index, outcome] of (execution.outcomes ?? []).entries()) {
			const row = execution.rows[index];
			const at = execution.endedAt ?? world.clock.now;
			if (outcome.status === 'ALREADY_SUBMITTED') {
				const paid = service.bookings.filter((booking) => booking.transferId === outcome.transferId && booking.status !== 'FAILED' && booking.at <= at);
				if (!paid.some((booking) => booking.amount === Number(row.amount) && booking.to === row.to)) {
					violations.push({ invariant: 'paidOnlyWherePaid', detail: `${execution.id}: ${row.key} (${outcome.transferId}) read ALREADY_SUBMITTED; the ledger holds ${describe(world, outcome.transferId)}` });
				}
			}
			if (outcome.status === 'UNKNOWN' && !doubtHasCause(world, execution, outcome, row, at) && !crashedRows.has(row.key)) {
				const sentWith = service.attempted.filter((attempt) => attempt.transferId === outcome.transferId && attempt.at <= at).map((attempt) => Number(attempt.body.amount));
				const paidWithTheseValues = service.bookings.some((booking) => booking.transferId === outcome.transferId && booking.status !== 'FAILED' && booking.amount === Number(row.amount) && booking.at <= at);
				const forgetLost = paidWithTheseValues || world.settings.operation === 'standardTransfer' || (sentWith.length > 0 && !sentWith.includes(Number(row.amount)));
				if (forgetLost && world.processCount > 1) lostForgets.add(`${execution.id} ${index}`);
				violations.push({
					invariant: forgetLost && world.processCount > 1 ? 'forgetLostAcrossProcesses' : 'doubtOnlyWithCause',
					detail: `${execution.id}: ${row.key} (${outcome.transferId}) read UNKNOWN: ${outcome.message ?? ''}; its requests: ${attemptsOf(world, outcome.transferId)}`,
				});
			}
		}
	}

	violations.push(...paidStaysPaid(world, unwritten, lostForgets));

	for (const row of world.leftUnsettled ?? []) {
		violations.push({ invariant: 'settledInTheEnd', detail: `${row.key} still not paid after the user's six rounds (last: ${lastOutcome(world, row.key)})` });
	}
	return violations;
}

/**
 * Whether a request of the row's Transfer ID had no clear answer by then, or was under way: sent
 * and not yet answered, or possibly about to be sent by another execution that was running then
 * with the row ("another execution is sending it right now": its claim may have been held).
 */
function doubtHasCause(world: World, execution: ExecutionRecord, outcome: RowOutcome, row: Row, at: number): boolean {
	const unanswered = world.service.attempted.some((attempt) => attempt.transferId === outcome.transferId && attempt.at <= at && (attempt.answered === 'none' || (attempt.settledAt ?? Infinity) > at));
	// When in the execution the row was looked up is not known: any overlap counts.
	const sendingElsewhere = world.executions.some(
		(other) => other !== execution && !other.dryRun && other.startedAt <= at && (other.endedAt ?? Infinity) >= execution.startedAt && other.rows.some((candidate) => candidate.key === row.key),
	);
	return unanswered || sendingElsewhere;
}

const PAID = ['SUCCESS', 'PENDING', 'ALREADY_SUBMITTED'];

/** Rows read anything but ALREADY_SUBMITTED after an earlier run, its answers written, reported them paid with these values. */
function paidStaysPaid(world: World, unwritten: Set<ExecutionRecord>, forgetLost: Set<string>): Violation[] {
	/** Per key and amount, when the node first reported it paid (the run's start, and its answers written by). */
	const reportedPaid = new Map<string, { from: number; writtenBy: number }>();
	for (const execution of world.executions) {
		if (execution.dryRun || execution.endedAt === undefined || unwritten.has(execution)) continue;
		for (const [index, outcome] of (execution.outcomes ?? []).entries()) {
			const id = `${execution.rows[index].key} ${Number(execution.rows[index].amount)}`;
			const writtenBy = execution.endedAt + WRITE_BEHIND_MS;
			if (PAID.includes(outcome.status) && writtenBy < (reportedPaid.get(id)?.writtenBy ?? Infinity)) reportedPaid.set(id, { from: execution.startedAt, writtenBy });
		}
	}
	/** An earlier run of the row whose process crashed with it claimed (or its answers unwritten), after the paid run began. */
	const claimedAtACrash = (execution: ExecutionRecord, key: string, after: number) =>
		[...unwritten].some((other) => other !== execution && other.startedAt < execution.startedAt && (crashOf(world, other) ?? -Infinity) >= after && other.rows.some((row) => row.key === key));
	/** Another run of the row under way, or writing its answers still, during this one. */
	const claimedElsewhere = (execution: ExecutionRecord, key: string) =>
		world.executions.some((other) => other !== execution && !other.dryRun && other.rows.some((row) => row.key === key) && other.startedAt <= (execution.endedAt ?? Infinity) && (other.endedAt ?? Infinity) + WRITE_BEHIND_MS >= execution.startedAt);
	const violations: Violation[] = [];
	for (const execution of world.executions) {
		if (execution.dryRun) continue;
		for (const [index, outcome] of (execution.outcomes ?? []).entries()) {
			const row = execution.rows[index];
			const paid = reportedPaid.get(`${row.key} ${Number(row.amount)}`);
			if (paid === undefined || execution.startedAt <= paid.writtenBy || outcome.status === 'ALREADY_SUBMITTED') continue;
			// Stop came before the run looked at the row ("Not sent"), or a lost forget read it in doubt (counted there).
			if ((execution.stoppedAt !== undefined && outcome.status === 'ERROR') || forgetLost.has(`${execution.id} ${index}`)) continue;
			const cause = claimedAtACrash(execution, row.key, paid.from)
				? 'n8n crashed while a later run had it claimed'
				: outcome.status === 'UNKNOWN' && claimedElsewhere(execution, row.key)
					? 'another run had it claimed at the time'
					: world.processCount > 1 && outcome.status === 'ALREADY_EXISTS'
						? 'a stale write across processes lost its mark'
						: undefined;
			violations.push({
				invariant: cause ? 'paidEvidenceLost' : 'paidStaysPaid',
				detail: `${execution.id}: ${row.key} read ${outcome.status} (${outcome.message ?? ''}) after an earlier run reported it paid${cause ? ` (${cause})` : ''}; its requests: ${attemptsOf(world, outcome.transferId)}`,
			});
		}
	}
	return violations;
}

/** When the process an execution ran in crashed, if it did. */
function crashOf(world: World, execution: ExecutionRecord): number | undefined {
	return world.processes.get(execution.process)?.crashedAt;
}

function describe(world: World, transferId: string | undefined): string {
	const bookings = world.service.bookings.filter((booking) => booking.transferId === transferId);
	return bookings.length === 0 ? 'nothing' : bookings.map((booking) => `${booking.amount} to ${booking.to} ${booking.status}`).join(', ');
}

function attemptsOf(world: World, transferId: string | undefined): string {
	const attempts = world.service.attempted.filter((attempt) => attempt.transferId === transferId);
	return attempts.length === 0 ? 'none' : attempts.map((attempt) => `${attempt.execution}@${attempt.at - 1_700_000_000_000} ${attempt.fault}→${attempt.answered}`).join(', ');
}

function lastOutcome(world: World, key: string): string {
	for (const execution of [...world.executions].reverse()) {
		const outcome = execution.outcomes?.find((candidate) => candidate.key === key);
		if (outcome) return `${outcome.status}: ${outcome.message ?? ''}`;
	}
	return 'none';
}

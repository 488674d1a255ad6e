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
 */
import type { ExecutionRecord, Row, RowOutcome, World } from './world';

export interface Violation {
	invariant: 'paidOnce' | 'paidOnlyWherePaid' | 'doubtOnlyWithCause' | 'dryRunsWriteNothing' | 'settledInTheEnd' | 'forgetLostAcrossProcesses';
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

	// Rows of an execution its process crashed in, or just after, before the answers it had were written.
	const crashedRows = new Map<string, number>();
	for (const execution of world.executions) {
		if (execution.dryRun && service.attempted.some((attempt) => attempt.execution === execution.id)) {
			violations.push({ invariant: 'dryRunsWriteNothing', detail: `dry run ${execution.id} sent a request` });
		}
		const crashedAt = world.processes.get(execution.process)?.crashedAt;
		const writingStill = crashedAt !== undefined && execution.endedAt !== undefined && crashedAt - execution.endedAt <= WRITE_BEHIND_MS;
		if ((execution.crashed || writingStill) && !execution.dryRun) for (const row of execution.rows) crashedRows.set(row.key, (crashedRows.get(row.key) ?? 0) + 1);
	}

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
				violations.push({
					invariant: forgetLost && world.processCount > 1 ? 'forgetLostAcrossProcesses' : 'doubtOnlyWithCause',
					detail: `${execution.id}: ${row.key} (${outcome.transferId}) read UNKNOWN: ${outcome.message ?? ''}; its requests: ${attemptsOf(world, outcome.transferId)}`,
				});
			}
		}
	}

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

/**
 * One seeded schedule of the simulator: a world (world.ts) with one or more n8n processes, a few
 * transfers and what users and n8n do around the node (batches, events delivered again, at once
 * or later, on another worker, Dry Runs, Stop, settling from the dashboard, crashes), every
 * database step, request and answer ordered by the seed. Then the user settles what is left, as
 * the node's words say (a fresh dashboard export for rows in doubt), and the invariants are
 * checked against the service's ledger (invariants.ts).
 */
import { check } from './invariants';
import type { Violation } from './invariants';
import type { Fault } from './service';
import type { NodeSettings, Row, Timing } from './world';
import { Random, World } from './world';

export interface ScheduleOptions {
	/** Some database calls take far longer than the node's measured wait: the queue-mode bet lost on purpose. */
	breakTiming?: boolean;
	/** Force the number of n8n processes (1: regular mode). */
	processes?: number;
	operation?: NodeSettings['operation'];
	/** Every database step in the log. */
	trace?: boolean;
}

export interface ScheduleResult {
	seed: number;
	config: string;
	violations: Violation[];
	world: World;
	/** Whether a database call outlasted the node's shortest wait (the timing assumption broken). */
	timingBroken: boolean;
}

const FAULTS: Array<[Fault, number]> = [
	['lostAfter', 3],
	['lostBefore', 1],
	['error5xxAfter', 1],
	['error5xxBefore', 1],
	['refuse', 3],
	['failsLater', 1],
];

/** The node's shortest wait for a claim's confirmation (record/journal.ts: at least 100 ms). */
export const MIN_GUARD_WAIT_MS = 100;

export async function runSchedule(seed: number, options: ScheduleOptions = {}): Promise<ScheduleResult> {
	const random = new Random(seed);
	const processes = options.processes ?? random.pick([1, 1, 2, 2, 3]);
	const operation = options.operation ?? (random.chance(0.8) ? 'internalTransfer' : 'standardTransfer');
	const settings: NodeSettings = {
		operation,
		concurrency: random.int(1, 4),
		queueModeSafety: processes > 1 || random.chance(0.5),
	};
	const faultRate = random.pick([0, 0.1, 0.3]);
	let faultsOn = true;
	let slowest = 0;
	const timing: Timing = {
		storeStep: (r) => {
			const ms = options.breakTiming && r.chance(0.04) ? r.int(150, 900) : r.chance(0.05) ? r.int(10, 40) : r.int(1, 6);
			slowest = Math.max(slowest, ms);
			return ms;
		},
		network: (r) => r.int(2, 40),
		fault: (r) => (faultsOn && r.chance(faultRate) ? weighted(r, FAULTS) : 'none'),
	};
	const world = new World(seed, timing, settings);
	world.traceStore = options.trace === true;
	const config = `${processes} process${processes > 1 ? 'es' : ''}, ${operation}, concurrency ${settings.concurrency}, queue mode safety ${settings.queueModeSafety ? 'on' : 'off'}, faults ${faultRate}${options.breakTiming ? ', slow database calls' : ''}`;
	world.open();
	try {
		const names = Array.from({ length: processes }, (_, index) => `p${index + 1}`);
		for (const name of names) world.start(name);
		const keys = Array.from({ length: random.int(2, 6) }, (_, index) => ({ key: `k${index + 1}${operation === 'standardTransfer' ? 'x' : ''}`, amount: `${10 + index}.00`, to: 'ACC1' }));
		/** A row as the user wants it paid, or, now and then, the same key with another amount. */
		const rowOf = (key: (typeof keys)[number]): Row => (random.chance(0.08) ? { ...key, amount: `${Number(key.amount) + 100}.00` } : { ...key });
		const someKeys = () => keys.filter(() => random.chance(0.5)).map(rowOf);
		const lastExport = new Map<string, string>();
		/** What the user wants paid: each key with the values it was first sent with. */
		const intended = new Map<string, Row>();
		const want = (row: Row) => {
			if (!intended.has(row.key)) intended.set(row.key, { key: row.key, amount: row.amount, to: row.to });
		};
		for (let action = random.int(3, 10), at = 0; action > 0; action--, at += random.int(0, 600)) {
			const name = random.pick(names);
			const roll = random.next();
			if (roll < 0.35) {
				const rows = someKeys();
				if (rows.length === 0) continue;
				const dryRun = random.chance(0.15);
				const stopAfter = random.chance(0.15) ? random.int(5, 300) : undefined;
				world.clock.after(at, () => {
					if (!dryRun) rows.forEach(want);
					world.execute(name, rows, { dryRun, stopAfter });
				}, 'world');
			} else if (roll < 0.45) {
				// Settling from the dashboard: the rows that read UNKNOWN, with the export's status
				// (a fresh export, or now and then the one used last time: a stale file).
				const stale = random.chance(0.25);
				world.clock.after(at, () => {
					// As the node's words say: only rows no execution is sending any more.
					const sending = (key: string) => world.executions.some((execution) => execution.endedAt === undefined && !execution.crashed && execution.rows.some((row) => row.key === key));
					// A Transfer ID the dashboard shows paid with other values is another payout's: not this row's status.
					const inDoubt = keys.filter((key) => lastStatus(world, key.key) === 'UNKNOWN' && !sending(key.key) && !world.service.otherValues(world.transferIdOf(key.key), Number(key.amount)));
					if (inDoubt.length === 0) return;
					const rows = inDoubt.map((key) => ({ ...key, dashboardStatus: stale ? (lastExport.get(key.key) ?? world.service.dashboard(world.transferIdOf(key.key))) : world.service.dashboard(world.transferIdOf(key.key)) }));
					for (const row of rows) lastExport.set(row.key, row.dashboardStatus);
					world.execute(name, rows);
				}, 'world');
			} else if (roll < 0.8) {
				const row = rowOf(random.pick(keys));
				world.clock.after(at, () => {
					want(row);
					world.execute(name, [row]);
				}, 'world');
				if (random.chance(0.5)) {
					const again = random.chance(0.5) ? random.int(0, 40) : random.int(200, 2000);
					world.clock.after(at + again, () => world.execute(random.pick(names), [row]), 'world');
				}
			} else if (roll < 0.9) {
				world.clock.after(at, () => world.crash(name), 'world');
				world.clock.after(at + random.int(20, 500), () => {
					if (!world.live(name)) world.start(name);
				}, 'world');
			}
		}
		await world.settle();
		// Now the user settles what is left: no more faults, one process, a fresh export each time.
		faultsOn = false;
		for (const name of names) if (!world.live(name)) world.start(name);
		// The values a key was first sent with are its payout (the node refuses others under its key).
		const sentFirst = (row: Row): Row => {
			const attempt = world.service.attempted.find((candidate) => candidate.transferId === world.transferIdOf(row.key));
			return attempt ? { ...row, amount: String(attempt.body.amount) } : row;
		};
		await settleAsTheUser(world, names[0], [...intended.values()].map(sentFirst));
	} finally {
		world.close();
	}
	const timingBroken = slowest >= MIN_GUARD_WAIT_MS;
	return { seed, config, violations: check(world, { timingBroken }), world, timingBroken };
}

/**
 * What a user does after the node's words: runs the batch again; maps the dashboard's status of
 * the rows that read UNKNOWN (Options > Settle With Dashboard Status); looks an ALREADY_EXISTS up
 * (paid there: this payout, done; failed: a new key); gives a row a new key where the node says it
 * can no longer be paid under its own, or belongs to another payout. Up to six rounds.
 */
async function settleAsTheUser(world: World, name: string, wanted: Row[]) {
	let rows = wanted.map((row) => ({ ...row }));
	for (let round = 0; round < 6 && rows.length > 0; round++) {
		const execution = world.execute(name, rows);
		await world.settle();
		const outcomes = execution?.outcomes ?? [];
		world.settled.set(round, outcomes);
		rows = rows.flatMap((row, index) => {
			const outcome = outcomes[index];
			if (!outcome || ['SUCCESS', 'PENDING', 'ALREADY_SUBMITTED'].includes(outcome.status)) return [];
			const dashboard = world.service.dashboard(world.transferIdOf(row.key));
			// The dashboard shows this Transfer ID paid with other values: another payout's, so a new key.
			if (world.service.otherValues(world.transferIdOf(row.key), Number(row.amount))) return [{ ...row, key: `${row.key}r`, dashboardStatus: undefined }];
			// The node says when a key can no longer be paid, or belongs to another transfer: a new one.
			const newKey = /under a new (Transfer ID|Top-Up Key)/.test(outcome.hint ?? '') && (dashboard === 'NOT_FOUND' || dashboard === 'FAILED');
			if (newKey || /give it its own/.test(outcome.hint ?? '')) return [{ ...row, key: `${row.key}r`, dashboardStatus: undefined }];
			// ALREADY_EXISTS: looked up; paid there with these values, it is this payout, paid: done.
			if (outcome.status === 'ALREADY_EXISTS' && (dashboard === 'SUCCESS' || dashboard === 'PENDING')) return [];
			if (outcome.status === 'ALREADY_EXISTS' && dashboard === 'FAILED') return [{ ...row, key: `${row.key}r`, dashboardStatus: undefined }];
			return [{ ...row, dashboardStatus: outcome.status === 'UNKNOWN' ? dashboard : undefined }];
		});
	}
	world.leftUnsettled = rows;
}

/** The status a key read last, in any ended execution that was not a dry run. */
function lastStatus(world: World, key: string): string | undefined {
	let last: { at: number; status: string } | undefined;
	for (const execution of world.executions) {
		if (execution.dryRun || execution.endedAt === undefined) continue;
		const outcome = execution.outcomes?.find((candidate) => candidate.key === key);
		if (outcome && (!last || execution.endedAt >= last.at)) last = { at: execution.endedAt, status: outcome.status };
	}
	return last?.status;
}

function weighted<T>(random: Random, choices: Array<[T, number]>): T {
	let roll = random.next() * choices.reduce((total, [, weight]) => total + weight, 0);
	for (const [choice, weight] of choices) {
		roll -= weight;
		if (roll < 0) return choice;
	}
	return choices[choices.length - 1][0];
}

/**
 * The simulator's random schedules, as fast-check properties: a world (world.ts) whose workflow the
 * user built from the node's own description (settings.ts: every option of the Options collection,
 * Retry On Fail, On Error, a retry branch with a second node), a few payouts, and a list of what
 * users and n8n do around the node (batches, events delivered again, at once or later, on another
 * worker, Dry Runs, Stop, crashes, n8n's Retry of a failed execution, the user following the node's
 * words as they come); then the user follows the words to the end with the faults gone, and the
 * invariants (invariants.ts) are checked against the ledger. A schedule that breaks a promise
 * shrinks to the shortest one that still does (fewer actions, fewer options), and replays from
 * fast-check's seed and path.
 */
import fc from 'fast-check';

import { check } from './invariants';
import type { Violation } from './invariants';
import type { Operation, ServiceDecision } from './service';
import { setupArbitrary } from './settings';
import type { NodeSetup } from './settings';
import { User } from './user';
import type { Fault, KeyMode, Row, Timing, WorkflowSetup } from './world';
import { Random, World } from './world';

/** What a user or n8n does, at `at` ms after the previous action. */
export type Action =
	| {
			kind: 'batch';
			payouts: number[];
			process: number;
			at: number;
			dryRun: boolean;
			stopAfter?: number;
			/** n8n killed (SIGKILL) this long after the batch starts, started again a while later. */
			killAfter?: number;
	  }
	/** Hundreds of events at once on one process, each a payout of its own, some delivered again. */
	| { kind: 'burst'; events: number; process: number; at: number; redeliver: boolean }
	| {
			kind: 'event';
			payout: number;
			process: number;
			at: number;
			again?: { process: number; after: number };
	  }
	| { kind: 'crash'; process: number; at: number; restartAfter: number }
	| { kind: 'follow'; at: number }
	| { kind: 'retry'; at: number };

export interface Schedule {
	seed: number;
	processes: number;
	workflow: WorkflowSetup;
	/** Each payout's amount as the user's sheet holds it. */
	amounts: string[];
	faultRate: number;
	/** How often the service refuses, or answers pending, a transfer request. */
	refuseRate: number;
	pendingRate: number;
	actions: Action[];
}

export interface ScheduleOptions {
	operation?: Operation;
	processes?: number;
}

const FAULTS: Array<[Fault, number]> = [
	['lostAfter', 3],
	['lostBefore', 2],
	['error5xxAfter', 1],
	['error5xxBefore', 1],
	['slow', 1],
];

/** Amounts as a user's sheet holds them: two decimals, now and then three, or float noise from an expression. */
const amountArbitrary = fc.oneof(
	{
		weight: 12,
		arbitrary: fc.integer({ min: 100, max: 99999 }).map((cents) => (cents / 100).toFixed(2)),
	},
	{ weight: 1, arbitrary: fc.constantFrom('1.005', '3.3000000000000003', '10.125') },
);

export function scheduleArbitrary(options: ScheduleOptions = {}): fc.Arbitrary<Schedule> {
	const description = World.description();
	return fc
		.record({
			seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
			processes:
				options.processes !== undefined
					? fc.constant(options.processes)
					: fc.constantFrom(1, 1, 2, 3),
			operation:
				options.operation !== undefined
					? fc.constant(options.operation)
					: fc.constantFrom<Operation>(
							'internalTransfer',
							'internalTransfer',
							'standardTransfer',
							'cardTransfer',
						),
			keyMode: fc.constantFrom<KeyMode>('topUpKey', 'topUpKey', 'transferId', 'payEveryRun'),
			retryBranch: fc.boolean(),
			forgotClaim: fc.constantFrom(false, false, false, true),
			payouts: fc.integer({ min: 1, max: 6 }),
			faultRate: fc.constantFrom(0, 0.1, 0.3),
			refuseRate: fc.constantFrom(0, 0.1, 0.3),
			pendingRate: fc.constantFrom(0, 0.2),
		})
		.chain((base) =>
			fc.record({
				base: fc.constant(base),
				pay: setupArbitrary(description, base.operation),
				payAgain: setupArbitrary(description, base.operation),
				amounts: fc.array(amountArbitrary, { minLength: base.payouts, maxLength: base.payouts }),
				actions: fc.array(actionArbitrary(base.payouts, base.processes), {
					minLength: 1,
					maxLength: 10,
				}),
			}),
		)
		.map(({ base, pay, payAgain, amounts, actions }) => {
			const workflow = userWorkflow(
				base.operation,
				base.keyMode,
				base.processes,
				pay,
				base.retryBranch ? payAgain : undefined,
				base.forgotClaim,
			);
			return {
				seed: base.seed,
				processes: base.processes,
				workflow,
				amounts,
				faultRate: base.faultRate,
				refuseRate: base.refuseRate,
				pendingRate: base.pendingRate,
				actions,
			};
		});
}

/**
 * The workflow as a user following the docs builds it: card and standard rows carry a Transfer ID;
 * with Claim Held by an Earlier Step the Transfer ID is made before the claim (the template); in
 * queue mode an internal top-up needs the claim or Service Refuses Repeated Transfer IDs
 * (docs/safety.md), which a user may forget (`forgotClaim`: the node must then refuse, never pay
 * twice); the retry branch's node copies Pay's parameters and Options.
 */
function userWorkflow(
	operation: Operation,
	keyMode: KeyMode,
	processes: number,
	pay: NodeSetup,
	payAgain?: NodeSetup,
	forgotClaim = false,
): WorkflowSetup {
	const options = { ...pay.options };
	if (
		operation === 'internalTransfer' &&
		processes > 1 &&
		!forgotClaim &&
		options.claimHeldEarlier !== true &&
		options.serviceRefusesRepeats !== true
	)
		options.claimHeldEarlier = true;
	const internalKey = options.claimHeldEarlier === true ? 'transferId' : keyMode;
	return {
		operation,
		keyMode: operation === 'internalTransfer' ? internalKey : 'transferId',
		pay: { ...pay, options },
		...(payAgain ? { payAgain: { ...payAgain, options } } : {}),
	};
}

function actionArbitrary(payouts: number, processes: number): fc.Arbitrary<Action> {
	const process = fc.integer({ min: 0, max: processes - 1 });
	const at = fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 3000 }));
	const payout = fc.integer({ min: 0, max: payouts - 1 });
	return fc.oneof(
		{
			weight: 40,
			arbitrary: fc.record(
				{
					kind: fc.constant('batch' as const),
					payouts: fc.uniqueArray(payout, { minLength: 1, maxLength: payouts }),
					process,
					at,
					dryRun: fc.constantFrom(false, false, false, true),
					stopAfter: fc.option(fc.integer({ min: 1, max: 400 }), { nil: undefined }),
					killAfter: fc.option(fc.integer({ min: 1, max: 300 }), { nil: undefined, freq: 6 }),
				},
				{ requiredKeys: ['kind', 'payouts', 'process', 'at', 'dryRun'] },
			),
		},
		{
			weight: 40,
			arbitrary: fc.record(
				{
					kind: fc.constant('event' as const),
					payout,
					process,
					at,
					again: fc.option(
						fc.record({
							process,
							after: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 200, max: 3000 })),
						}),
						{ nil: undefined },
					),
				},
				{ requiredKeys: ['kind', 'payout', 'process', 'at'] },
			),
		},
		{
			weight: 10,
			arbitrary: fc.record({
				kind: fc.constant('crash' as const),
				process,
				at,
				restartAfter: fc.integer({ min: 20, max: 800 }),
			}),
		},
		{ weight: 20, arbitrary: fc.record({ kind: fc.constant('follow' as const), at }) },
		// Hundreds of executions in flight on one process: a burst in about one schedule of twenty.
		{
			weight: 1,
			arbitrary: fc.record({
				kind: fc.constant('burst' as const),
				events: fc.integer({ min: 100, max: 300 }),
				process,
				at,
				redeliver: fc.boolean(),
			}),
		},
		{ weight: 10, arbitrary: fc.record({ kind: fc.constant('retry' as const), at }) },
	);
}

export interface ScheduleResult {
	violations: Violation[];
	world: World;
	user: User;
	config: string;
}

/** Runs one schedule: its actions in the world, then the user to the end; the invariants. */
export async function runSchedule(
	schedule: Schedule,
	{ trace = false } = {},
): Promise<ScheduleResult> {
	let faultsOn = true;
	const timing: Timing = {
		storeStep: (r) => (r.chance(0.05) ? r.int(10, 40) : r.int(1, 6)),
		network: (r) => r.int(2, 40),
		fault: (r) => (faultsOn && r.chance(schedule.faultRate) ? weighted(r, FAULTS) : 'none'),
		decision: (r) =>
			(faultsOn && r.chance(schedule.refuseRate)
				? r.chance(0.2)
					? 'refuseAccount'
					: 'refuse'
				: r.chance(schedule.pendingRate)
					? r.chance(0.3)
						? 'noBankResponse'
						: 'pending'
					: 'pay') as ServiceDecision,
		bank: (r) => ({ afterMs: r.int(50, 4000), pays: r.chance(0.8) }),
	};
	const world = new World(schedule.seed, timing, schedule.workflow);
	world.traceStore = trace;
	const user = new User(world);
	const config = describeSchedule(schedule);
	world.open();
	try {
		const names = Array.from({ length: schedule.processes }, (_, index) => `p${index + 1}`);
		for (const name of names) world.start(name);
		const payouts = schedule.amounts.map((amount, index) => world.payout(`P${index + 1}`, amount));
		const keyOf = (index: number) => `k${index + 1}`;
		// Pay Again on Every Run: each run the user (or a redelivery, or n8n's Retry) starts is a new payment, as the user chose.
		let minted = 0;
		const rowFor = (index: number) => {
			const payout =
				schedule.workflow.keyMode === 'payEveryRun'
					? world.payout(`${payouts[index].id}.${++minted}`, payouts[index].amount)
					: payouts[index];
			user.want(payout.id, keyOf(index));
			return user.rowOf(payout.id);
		};
		const again = (row: Row): Row =>
			schedule.workflow.keyMode === 'payEveryRun'
				? rowFor(Number(row.payout.slice(1).split('.')[0]) - 1)
				: row;
		/** n8n killed on a process `after` ms from now, started again `restartAfter` ms after that. */
		const crash = (name: string, after: number, restartAfter: number) =>
			world.clock.after(
				after,
				() => {
					world.crash(name);
					world.clock.after(
						restartAfter,
						() => {
							if (!world.live(name)) world.start(name);
						},
						'world',
					);
				},
				'world',
			);
		let bursts = 0;
		// Pay Again on Every Run: a burst's event delivered again is a new payment, as the user chose.
		const burstAgain = (row: Row): Row => {
			if (schedule.workflow.keyMode !== 'payEveryRun') return row;
			const payout = world.payout(`${row.payout}.${++minted}`, row.amount);
			user.want(payout.id, row.key);
			return user.rowOf(payout.id);
		};
		let at = 0;
		for (const action of schedule.actions) {
			at += action.at;
			const name = names[('process' in action ? action.process : 0) % names.length];
			world.clock.after(
				at,
				() => {
					switch (action.kind) {
						case 'batch': {
							world.execute(name, action.payouts.map(rowFor), {
								dryRun: action.dryRun,
								stopAfter: action.stopAfter,
							});
							if (action.killAfter !== undefined)
								crash(name, action.killAfter, 50 + action.killAfter);
							return;
						}
						case 'burst': {
							// Each event a payout of its own, delivered at once; some delivered again a moment later, on any process.
							for (let event = 0; event < action.events; event++) {
								const payout = world.payout(`B${++bursts}`, '10.00');
								user.want(payout.id, `b${bursts}`);
								const row = user.rowOf(payout.id);
								world.execute(name, [row], { mode: 'webhook' });
								if (action.redeliver && event % 3 === 0)
									world.clock.after(
										world.random.int(0, 2000),
										() =>
											world.execute(names[event % names.length], [burstAgain(row)], {
												mode: 'webhook',
											}),
										'world',
									);
							}
							return;
						}
						case 'event': {
							const row = rowFor(action.payout);
							world.execute(name, [row], { mode: 'webhook' });
							if (action.again)
								world.clock.after(
									action.again.after,
									() =>
										world.execute(names[action.again!.process % names.length], [again(row)], {
											mode: 'webhook',
										}),
									'world',
								);
							return;
						}
						case 'crash':
							crash(name, 0, action.restartAfter);
							return;
						case 'follow': {
							user.follow();
							for (const failed of user.retriesDue())
								if (!world.retry(name, failed)) user.retryLater(failed);
							const rows = user.open().filter((row) => !sending(world, row.payout));
							if (rows.length > 0) world.execute(name, rows);
							return;
						}
						case 'retry': {
							// n8n's Retry of the last failed execution (n8n's own code): from the failed node, with its saved data.
							const failed = [...world.executions]
								.reverse()
								.find((execution) => execution.saved && execution.endedAt !== undefined);
							if (failed) world.retry(name, failed);
							return;
						}
					}
				},
				'world',
			);
		}
		await world.settle();
		// Now the user follows the node's words to the end: no more faults, every process up.
		faultsOn = false;
		for (const name of names) if (!world.live(name)) world.start(name);
		let waits = 0;
		for (let round = 0; round < 30; round++) {
			user.follow();
			const retries = user.retriesDue();
			for (const failed of retries) if (!world.retry(names[0], failed)) user.retryLater(failed);
			if (retries.length > 0) await world.settle();
			const rows = user.open();
			if (rows.length === 0 && !user.waiting()) break;
			if (rows.length === 0) {
				// The user waits, as told, before settling from the dashboard.
				const wakesAt = user.wakesAt();
				if (wakesAt !== undefined)
					world.clock.after(Math.max(0, wakesAt - world.clock.now), () => undefined, 'world');
				await world.settle();
				round--;
				if (++waits > 200) break;
				continue;
			}
			// With Execute Once n8n hands the node only a run's first row: the user runs them one by one.
			for (const batch of schedule.workflow.pay.settings.executeOnce
				? rows.map((row) => [row])
				: [rows]) {
				world.execute(names[0], batch);
				await world.settle();
			}
		}
		user.follow();
		world.leftUnsettled = user.open();
	} finally {
		world.close();
	}
	return { violations: check(world), world, user, config };
}

/** Whether an execution is running with this payout now (the docs: settle once none is). */
function sending(world: World, payout: string): boolean {
	return world.executions.some(
		(execution) =>
			execution.endedAt === undefined &&
			!execution.crashed &&
			execution.rows.some((row) => row.payout === payout),
	);
}

function describeSchedule(schedule: Schedule): string {
	const { workflow } = schedule;
	const setup = (node: NodeSetup) =>
		`options ${JSON.stringify(node.options)}, settings ${JSON.stringify(node.settings)}`;
	return `${schedule.processes} process${schedule.processes > 1 ? 'es' : ''}, ${workflow.operation} (${workflow.keyMode}), payouts ${schedule.amounts.join(' ')}, faults ${schedule.faultRate}, refusals ${schedule.refuseRate}, pending ${schedule.pendingRate}; Pay: ${setup(workflow.pay)}${workflow.payAgain ? `; Pay Again (retry branch): ${setup(workflow.payAgain)}` : ''}`;
}

function weighted<T>(random: Random, choices: Array<[T, number]>): T {
	let roll = random.next() * choices.reduce((total, [, weight]) => total + weight, 0);
	for (const [choice, weight] of choices) {
		roll -= weight;
		if (roll < 0) return choice;
	}
	return choices[choices.length - 1][0];
}

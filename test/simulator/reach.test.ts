/**
 * Every option of Payouts Transfer reaches the simulator's world by itself (settings.ts makes the
 * settings from the node's description), and reaches it together with what users do around it:
 * n8n's Retry On Fail, a second Payouts Transfer node on the error output, Stop in the middle of a
 * run, and the user who follows every hint (the `follow` action). An option that display rules
 * always hide, or that the generator never turns on, fails here by name, before it ships unexplored.
 */
import fc from 'fast-check';

import { SCHEDULES_IN_NPM_TEST } from './run';
import { scheduleArbitrary } from './schedule';
import type { Schedule } from './schedule';
import { optionsOf, ROLES } from './settings';
import { World } from './world';

const OPERATIONS = ['cardTransfer', 'standardTransfer', 'internalTransfer'] as const;
/** As many schedules as npm test's simulator runs (simulator.test.ts). */
const SCHEDULES = SCHEDULES_IN_NPM_TEST;

const schedules = fc.sample(scheduleArbitrary(), { numRuns: SCHEDULES, seed: 20261128 });

/** The schedule set the option on the node (Pay, or Pay Again beside it), to a value other than its default. */
function sets(schedule: Schedule, name: string, byDefault: unknown): boolean {
	return [schedule.workflow.pay, schedule.workflow.payAgain].some(
		(node) => node !== undefined && name in node.options && node.options[name] !== byDefault,
	);
}

const around: Record<string, (schedule: Schedule) => boolean> = {
	'Retry On Fail': (schedule) => schedule.workflow.pay.settings.retryOnFail,
	'a second node on the error output': (schedule) => schedule.workflow.payAgain !== undefined,
	'Stop during a run': (schedule) =>
		schedule.actions.some((action) => action.kind === 'batch' && action.stopAfter !== undefined),
	'the user following the hints': (schedule) =>
		schedule.actions.some((action) => action.kind === 'follow'),
};

const cases = OPERATIONS.flatMap((operation) =>
	optionsOf(World.description(), operation)
		.filter((option) => ROLES[option.name] === undefined)
		.flatMap((option) =>
			Object.keys(around).map(
				(context) => [operation, option.name, context, option.default] as const,
			),
		),
);

test('the description has options to reach (the check below is not empty)', () => {
	expect(cases.length).toBeGreaterThan(OPERATIONS.length * Object.keys(around).length);
});

test.each(cases)(
	'%s: option %s is set in a schedule with %s',
	(operation, name, context, byDefault) => {
		const reached = schedules.filter(
			(schedule) =>
				schedule.workflow.operation === operation &&
				sets(schedule, name, byDefault) &&
				around[context](schedule),
		);
		expect(reached.length).toBeGreaterThan(0);
	},
);

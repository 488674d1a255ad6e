/* eslint-disable no-console -- the simulator's figures go to the test's log, for docs/testing.md */
/**
 * The simulator (test/simulator/cli.ts) inside `npm test`, within a budget: random schedules of
 * the user's world (settings generated from the node's description, n8n-core's own engine, one to
 * three n8n processes), a set in one process and a set in three. A schedule that breaks a promise
 * is shrunk and printed with its seed and path; `npm run simulate -- --seed S --path P --schedules 1`
 * replays it. The long runs are in docs/testing.md.
 */
import { brokenOf, SCHEDULES_IN_NPM_TEST, simulate } from './run';

jest.setTimeout(10 * 60 * 1000);

const namedExceptions = (summary: Awaited<ReturnType<typeof simulate>>) =>
	Object.entries(summary.byInvariant)
		.map(([invariant, schedules]) => `${invariant} in ${schedules}`)
		.join(', ') || 'none';

test(`${SCHEDULES_IN_NPM_TEST} random schedules of the user's world keep every promise; the named exceptions are counted`, async () => {
	const summary = await simulate(
		'--schedules',
		String(SCHEDULES_IN_NPM_TEST),
		'--seed',
		'20261128',
	);
	expect(brokenOf(summary)).toEqual([]);
	console.log(
		`simulator: ${SCHEDULES_IN_NPM_TEST} schedules in ${summary.seconds} s; named exceptions: ${namedExceptions(summary)}`,
	);
});

test('regular mode (one n8n process): 200 schedules, and no exception across processes', async () => {
	const summary = await simulate('--schedules', '200', '--seed', '7001', '--processes', '1');
	expect(brokenOf(summary)).toEqual([]);
	expect(summary.byInvariant.acrossProcesses).toBeUndefined();
});

test('queue mode (three n8n processes): 200 schedules', async () => {
	const summary = await simulate('--schedules', '200', '--seed', '9001', '--processes', '3');
	expect(brokenOf(summary)).toEqual([]);
	console.log(
		`simulator, three processes: 200 schedules in ${summary.seconds} s; named exceptions: ${namedExceptions(summary)}`,
	);
});

/**
 * Reported holes as scripted schedules of the simulator (reports.ts), each run with many seeds.
 * Reports 38.1 to 38.7 (an outside review's findings, named after the finding) each broke a
 * promise on 65f3c3a (`npm run simulate -- --report 38.N --code 65f3c3a`); report 38.8, found by
 * a long run, broke one on 64757c3. Reports 47.1 to 47.6 (issue 47's findings 1 to 6: options that
 * replaced the record, words untrue under an option, a kill during a re-run, a copy's keys, queue
 * mode without a claim) each broke one on 345929b (`--code 345929b`). And the reach at the size
 * users run: 10,000 keyed top-ups through faults and two kills, the batch run again after each restart.
 */
import { brokenOf, simulate } from './run';

jest.setTimeout(10 * 60 * 1000);

test.each(['38.1', '38.2', '38.3', '38.4', '38.5', '38.6', '38.7', '38.8'])(
	'report %s, scripted, holds for 20 seeds',
	async (report) => {
		const summary = await simulate('--report', report, '--schedules', '20', '--seed', '1');
		expect(brokenOf(summary)).toEqual([]);
	},
);

test.each(['47.1', '47.2', '47.3', '47.4', '47.5', '47.6'])(
	'report %s, scripted, holds for 10 seeds',
	async (report) => {
		const summary = await simulate('--report', report, '--schedules', '10', '--seed', '1');
		expect(brokenOf(summary)).toEqual([]);
	},
);

test('10,000 keyed top-ups through faults and two kills of n8n, run again after each restart: every top-up paid once', async () => {
	const summary = await simulate('--report', 'reach', '--schedules', '1', '--seed', '1');
	expect(brokenOf(summary)).toEqual([]);
});

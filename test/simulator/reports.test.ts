/**
 * Reported holes as scripted schedules of the simulator (reports.ts), each run with many seeds.
 * Reports 38.1 to 38.7 (an outside review's findings, named after the finding) each broke a
 * promise on 65f3c3a (`npm run simulate -- --report 38.N --code 65f3c3a`); report 38.8, found by
 * a long run, broke one on 64757c3. Reports 47.1 to 47.6 (issue 47's findings 1 to 6: options that
 * replaced the record, words untrue under an option, a kill during a re-run, a copy's keys, queue
 * mode without a claim) each broke one on 345929b (`--code 345929b`). And the reach at the size
 * users run: 10,000 keyed top-ups through faults and two kills, the batch run again after each restart.
 * The scripted reports run in one simulator process (loading n8n's code takes longer than a report).
 */
import { brokenOf, simulate } from './run';
import type { Summary } from './cli';

jest.setTimeout(10 * 60 * 1000);

const REPORTS_38 = ['38.1', '38.2', '38.3', '38.4', '38.5', '38.6', '38.7', '38.8'];
const REPORTS_47 = ['47.1', '47.2', '47.3', '47.4', '47.5', '47.6'];
const SEEDS_38 = 20;
const SEEDS_47 = 10;

let of38: Promise<Summary & { printed: string }>;
let of47: Promise<Summary & { printed: string }>;
beforeAll(() => {
	of38 = simulate('--report', REPORTS_38.join(','), '--schedules', String(SEEDS_38), '--seed', '1');
	of47 = simulate('--report', REPORTS_47.join(','), '--schedules', String(SEEDS_47), '--seed', '1');
	// Failures are read by each test; a rejection is not left unhandled meanwhile.
	of38.catch(() => undefined);
	of47.catch(() => undefined);
});

/** The failures of `report` in the run, and how many seeds it ran. */
async function outcomeOf(run: Promise<Summary & { printed: string }>, report: string) {
	const summary = await run;
	return {
		runs: summary.runsOf[report],
		broken: summary.failed.some((failure) => failure.report === report) ? brokenOf(summary) : [],
	};
}

test.each(REPORTS_38)(`report %s, scripted, holds for ${SEEDS_38} seeds`, async (report) => {
	expect(await outcomeOf(of38, report)).toEqual({ runs: SEEDS_38, broken: [] });
});

test.each(REPORTS_47)(`report %s, scripted, holds for ${SEEDS_47} seeds`, async (report) => {
	expect(await outcomeOf(of47, report)).toEqual({ runs: SEEDS_47, broken: [] });
});

test('10,000 keyed top-ups through faults and two kills of n8n, run again after each restart: every top-up paid once', async () => {
	const summary = await simulate('--report', 'reach', '--schedules', '1', '--seed', '1');
	expect(brokenOf(summary)).toEqual([]);
});

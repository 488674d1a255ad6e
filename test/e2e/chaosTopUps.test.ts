/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code runs in Node under jest, never inside n8n (it reads the environment); this rule guards the code n8n loads (nodes/, credentials/) */
/**
 * The regular-mode chaos run at CI size (docs/chaos.md): `npm run chaos -- --internal-only` with 1,000 keyed
 * internal top-ups on one Payouts Transfer node in regular mode (one `n8n start`, SQLite),
 * Concurrency 5, On Error: Continue, the sandbox booking a repeated internal Transfer ID again (a
 * second send would pay twice), faults on one transfer request in twenty-five plus latency spikes
 * (some past the node's Timeout: booked after the node gave up), two SIGKILLs of n8n mid-batch, the
 * batch run again after each restart, then again as each row's nextStep says: the rows in doubt
 * settled from the dashboard's export taken once the run has ended (paid: mapped; not there: paid
 * under a new Top-Up Key). Judged by the sandbox's ledger: every top-up paid exactly once, and no
 * output item says paid, or "did not pay", against the ledger. PAYOUTS_CHAOS_SEED picks the seed.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { runChaos, printReport } = require('../../scripts/chaos.js');

export {};

jest.setTimeout(30 * 60 * 1000);

/** Half the rows of the size it once ran at: the 10,000 run in CI (.ci/run) is the one at users' size. */
const ROWS = 1000;

test('1,000 keyed top-ups through faults and two kills of n8n, run again after each restart and settled from the dashboard: each paid exactly once', async () => {
	const report = await runChaos({
		internalOnly: true,
		rows: ROWS,
		seed: Number(process.env.PAYOUTS_CHAOS_SEED ?? 1),
		rate: 0.04,
		kills: 2,
		spikes: 3,
		runs: 15,
	});
	printReport(report);
	// The run met what it claims: two kills, faults of every kind an internal transfer meets, rows in doubt settled both ways.
	expect(report.kills).toHaveLength(2);
	expect(Object.keys(report.faultsInjected).sort()).toEqual([
		'drop-after',
		'drop-before',
		'error-500',
		'error-520',
		'html-502',
	]);
	expect(report.inDoubt).toBeGreaterThan(0);
	expect(report.settledPaid + report.newKeys).toBeGreaterThan(0);
	// The books.
	expect({
		paidOnce: report.paidOnce,
		paidTwice: report.paidTwice,
		unpaid: report.unpaid,
		untrue: report.untrue,
		foreign: report.foreignTransfers,
		paidTwiceExamples: report.paidTwiceExamples,
		untrueExamples: report.untrueExamples,
	}).toEqual({
		paidOnce: ROWS,
		paidTwice: 0,
		unpaid: 0,
		untrue: 0,
		foreign: 0,
		paidTwiceExamples: [],
		untrueExamples: [],
	});
	expect(report.payments).toBe(ROWS);
});

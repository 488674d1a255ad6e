/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code runs in Node under jest, never inside n8n (it waits with Node's timers); this rule guards the code n8n loads (nodes/, credentials/) */
/**
 * The node's record of sent transfers (nodes/shared/record/) in n8n's engine, against the
 * sandbox's ledger, with n8n 2.41's processed-data store in memory (test/helpers/processedData.ts):
 * what a crash or Stop leaves, settling rows in doubt from the dashboard (Options > Dashboard
 * Status), another process writing the same row, and a record that cannot be written. The
 * promises of docs/safety.md: paid at most once, reported paid only on the evidence of the row's
 * own request, a row never sent never called sent, evidence never erased by what came later.
 */
import type { IDataObject } from 'n8n-workflow';

import { fingerprint } from '../../nodes/shared/record';
import { marks } from '../../nodes/shared/record/marks';
import { runNode, stopEngineTimers, workflowIdOfTest } from '../helpers/engine';
import { breakProcessedData, forgetProcessedValues, holdNextCall, overwriteNextCalls, processedDataHas, recordProcessedData, storeCalls } from '../helpers/processedData';
import { seed, useSandbox } from '../helpers/sandbox';

jest.setTimeout(120_000);
afterAll(stopEngineTimers);

const service = useSandbox();
const NODE = 'payoutsTransfer-id-0001';

const standard = (options: IDataObject = {}, extra: IDataObject = {}) => ({
	type: 'payoutsTransfer',
	parameters: { operation: 'standardTransfer', beneId: '={{ $json.beneId }}', amount: '={{ $json.amount }}', transferId: '={{ $json.transferId }}', transferMode: 'banktransfer', additionalFields: {}, options: { concurrency: 10, ...options } },
	...extra,
});
const internal = (options: IDataObject = {}, extra: IDataObject = {}) => ({
	type: 'payoutsTransfer',
	parameters: {
		operation: 'internalTransfer',
		amount: '={{ $json.amount }}',
		rechargeAccount: '={{ $json.account }}',
		topUpKey: '={{ $json.key }}',
		additionalFields: {},
		options: { concurrency: 10, dashboardStatus: '={{ $json.dashboardStatus }}', ...options },
	},
	...extra,
});
const paid = (count: number, prefix: string) => Array.from({ length: count }, (_, index) => ({ beneId: seed.beneficiaries.verified, amount: 1, transferId: `${prefix}_${index}` }));
/** Amounts tell the rows apart in the ledger: row i pays 1 + i/100. */
const topUps = (count: number, prefix: string) => Array.from({ length: count }, (_, index) => ({ amount: Math.round(100 + index) / 100, account: seed.rechargeAccounts.configured, key: `${prefix}-${index}` }));

const ledger = () => service.sandbox.state().transfers as Array<{ transferId: string; amount: number; status: string }>;
const posts = () => service.sandbox.requests().filter((request) => request.method === 'POST');
const statusCount = (items: Array<{ json: IDataObject }>) => items.reduce<Record<string, number>>((counts, item) => ({ ...counts, [String(item.json.status)]: (counts[String(item.json.status)] ?? 0) + 1 }), {});
function expectEachPaidOnce(amounts: number[]) {
	const transfers = ledger();
	expect(new Set(transfers.map((transfer) => transfer.transferId)).size).toBe(transfers.length);
	expect(transfers.map((transfer) => transfer.amount).sort((a, b) => a - b)).toEqual([...amounts].sort((a, b) => a - b));
}
/** The dashboard of the sandbox (its ledger) as a user reads it: each Transfer ID's status, NOT_FOUND when absent. */
function dashboardStatusOf(transferId: unknown): string {
	return ledger().find((transfer) => transfer.transferId === transferId)?.status ?? 'NOT_FOUND';
}
/** The marks an internal transfer leaves when n8n died with its request in flight. */
function inFlightWhenKilled(transferId: string, body: IDataObject) {
	const print = fingerprint('internalTransfer', body);
	recordProcessedData(workflowIdOfTest(), NODE, [marks.id(transferId), marks.sent(transferId, print), marks.open(transferId, print)]);
}

beforeEach(() => service.sandbox.configure({ internalDuplicates: 'book' }));

describe('what a crash or Stop leaves', () => {
	test('an internal transfer in flight when n8n died reads UNKNOWN, is never sent again on a guess, and is settled from the dashboard', async () => {
		const [row] = topUps(1, 'killed');
		const { items: dry } = await runNode(internal({ dryRun: true }), [row], service.credentials());
		const { transferId } = dry[0].json.body as { transferId: string };
		inFlightWhenKilled(transferId, { amount: row.amount, rechargeAccount: row.account, transferId });
		const unknown = await runNode(internal({}, { continueOnFail: true }), [row], service.credentials());
		expect(unknown.items[0].json).toMatchObject({ status: 'UNKNOWN', transferId, hint: expect.stringMatching(/map its status to Options > 'Dashboard Status'/) });
		expect(posts()).toEqual([]);
		// The dashboard has no such transfer: it never reached the service. Settled: sent once.
		const settled = await runNode(internal(), [{ ...row, dashboardStatus: 'NOT_FOUND' }], service.credentials());
		expect(settled.items[0].json).toMatchObject({ status: 'SUCCESS', transferId, dashboardStatus: 'NOT_FOUND' });
		const after = await runNode(internal(), [row], service.credentials());
		expect(after.items[0].json.status).toBe('ALREADY_SUBMITTED');
		expectEachPaidOnce([row.amount]);
	});

	test('a standard transfer in flight when n8n died is sent again with its Transfer ID: the service answers for it', async () => {
		const [row] = paid(1, 'killed_std');
		recordProcessedData(workflowIdOfTest(), NODE, [marks.sent(row.transferId, fingerprint('standardTransfer', { beneId: row.beneId, amount: 1, transferId: row.transferId, transferMode: 'banktransfer' }))]);
		const { items } = await runNode(standard(), [row], service.credentials());
		expect(items[0].json).toMatchObject({ status: 'SUCCESS', transferId: row.transferId });
		expect(posts()).toHaveLength(1);
	});

	test('Stop mid-batch: rows never sent are paid by the re-run; only rows in flight at the Stop can be in doubt (at most Concurrency)', async () => {
		service.sandbox.configure({ latencyMs: 40 });
		const rows = topUps(60, 'stop');
		let stop!: () => void;
		const run = runNode(internal({ concurrency: 5 }, { continueOnFail: true }), rows, service.credentials(), { onStart: (cancel) => (stop = cancel) });
		while (posts().length < 12) await new Promise((resolve) => setTimeout(resolve, 5));
		stop();
		await run;
		// The stopped run goes on in the background just long enough to record what it did.
		await settledStore();
		const sentAtStop = posts().length;
		expect(sentAtStop).toBeLessThan(rows.length);
		const rerun = await runNode(internal({ concurrency: 5 }, { continueOnFail: true }), rows, service.credentials());
		const counts = statusCount(rerun.items);
		// A row never sent is never in doubt. A row in doubt is not sent by the re-run, so it reached
		// the sandbox only from the stopped run (maybe after the Stop, on a loaded machine), or the
		// Stop cut its request off on the way, which the node cannot tell from a lost answer: then it
		// was one of the rows in flight, and lanes take rows in order, so it is among the first ones.
		const reached = new Set(posts().map((request) => (request.body as { transferId: string }).transferId));
		rerun.items.forEach((item, index) => {
			if (item.json.status === 'UNKNOWN' && !reached.has(String(item.json.transferId))) expect(index).toBeLessThan(sentAtStop + 5);
		});
		expect((counts.UNKNOWN ?? 0)).toBeLessThanOrEqual(5);
		expect(counts.ALREADY_SUBMITTED ?? 0).toBeGreaterThanOrEqual(sentAtStop - 5);
		expect((counts.SUCCESS ?? 0) + (counts.ALREADY_SUBMITTED ?? 0) + (counts.UNKNOWN ?? 0)).toBe(rows.length);
		// No row paid twice; every row is paid or in doubt, and the ones in doubt are named.
		const ids = ledger().map((transfer) => transfer.transferId);
		expect(new Set(ids).size).toBe(ids.length);
		expect(ledger().length).toBeGreaterThanOrEqual(rows.length - (counts.UNKNOWN ?? 0));
	});
});

/** Waits until the node's background writes (after a Stop) are done: no store call for 200 ms. */
async function settledStore() {
	for (let last = -1; last !== storeCalls.length; ) {
		last = storeCalls.length;
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
}

describe("Options > Dashboard Status: rows in doubt settled as data, in the dashboard's own words", () => {
	/** n rows sent without a clear answer: the first half reached the service (booked), the rest did not. */
	async function inDoubt(count: number, prefix: string) {
		const rows = topUps(count, prefix);
		service.sandbox.configure({ faults: [{ fault: 'drop-after', times: count / 2 }, { fault: 'drop-before', times: count / 2 }] });
		const { items } = await runNode(internal({ concurrency: 1 }, { continueOnFail: true }), rows, service.credentials());
		expect(statusCount(items)).toEqual({ UNKNOWN: count });
		service.sandbox.configure({ faults: [] });
		return rows.map((row, index) => ({ ...row, transferId: String(items[index].json.transferId) }));
	}

	test('300 rows in doubt settled in one run from the dashboard: paid ones read ALREADY_SUBMITTED, the others are paid once', async () => {
		const rows = await inDoubt(300, 'settle300');
		expect(ledger()).toHaveLength(150);
		service.sandbox.clearRequests();
		const withStatus = rows.map((row) => ({ ...row, dashboardStatus: dashboardStatusOf(row.transferId) }));
		const { items, error } = await runNode(internal(), withStatus, service.credentials());
		expect(error).toBeUndefined();
		expect(statusCount(items)).toEqual({ ALREADY_SUBMITTED: 150, SUCCESS: 150 });
		expect(items.every((item) => item.json.dashboardStatus === withStatus[items.indexOf(item)].dashboardStatus)).toBe(true);
		expect(posts()).toHaveLength(150);
		expectEachPaidOnce(rows.map((row) => row.amount));
		// Settled for good: the batch run again without any status pays nothing.
		const again = await runNode(internal(), rows, service.credentials());
		expect(statusCount(again.items)).toEqual({ ALREADY_SUBMITTED: 300 });
	});

	test('a not-paid status is acted on once: a stale one after another unknown answer is not acted on again', async () => {
		const [row] = await inDoubt(2, 'stale').then((rows) => rows.slice(1));
		service.sandbox.configure({ faults: [{ fault: 'drop-after', times: 1 }] });
		const first = await runNode(internal({}, { continueOnFail: true }), [{ ...row, dashboardStatus: 'FAILED' }], service.credentials());
		expect(first.items[0].json.status).toBe('UNKNOWN');
		const stale = await runNode(internal({}, { continueOnFail: true }), [{ ...row, dashboardStatus: 'FAILED' }], service.credentials());
		expect(stale.items[0].json).toMatchObject({ status: 'UNKNOWN', dashboardStatus: 'FAILED', hint: expect.stringMatching(/acted on by an earlier run/) });
		// The fresh look shows it paid (the re-send landed): settled.
		const fresh = await runNode(internal(), [{ ...row, dashboardStatus: dashboardStatusOf(row.transferId) }], service.credentials());
		expect(fresh.items[0].json).toMatchObject({ status: 'ALREADY_SUBMITTED', dashboardStatus: 'SUCCESS' });
		expectEachPaidOnce([1, row.amount]);
	});

	test("a mistaken 'paid' can be corrected by the next look; a contradiction of the service's own answer is reported and left alone", async () => {
		const [mistaken] = await inDoubt(2, 'mistake').then((rows) => rows.slice(1));
		await runNode(internal(), [{ ...mistaken, dashboardStatus: 'SUCCESS' }], service.credentials());
		expect(ledger()).toHaveLength(1);
		const corrected = await runNode(internal(), [{ ...mistaken, dashboardStatus: 'FAILED' }], service.credentials());
		expect(corrected.items[0].json).toMatchObject({ status: 'SUCCESS', dashboardStatus: 'FAILED' });
		// Answered by the service, but the dashboard says FAILED: not sent, the contradiction said.
		const contradicted = await runNode(internal(), [{ ...mistaken, dashboardStatus: 'FAILED' }], service.credentials());
		expect(contradicted.items[0].json).toMatchObject({ status: 'ALREADY_SUBMITTED', dashboardStatusNote: expect.stringMatching(/contradicts the service's answer/), hint: expect.stringMatching(/may have been reversed/) });
		// The first row of the pair reached the service when it was in doubt; this one is paid once, on the correction.
		expectEachPaidOnce([1, mistaken.amount]);
	});

	test('entries for rows not in doubt are reported: never sent and the dashboard says paid is ALREADY_EXISTS, not sent; not paid is just sent', async () => {
		const [claimsPaid, claimsFailed] = topUps(2, 'never');
		const { items } = await runNode(internal(), [{ ...claimsPaid, dashboardStatus: 'SUCCESS' }, { ...claimsFailed, dashboardStatus: 'failed' }], service.credentials());
		expect(items[0].json).toMatchObject({ status: 'ALREADY_EXISTS', dashboardStatus: 'SUCCESS' });
		expect(items[1].json).toMatchObject({ status: 'SUCCESS', dashboardStatus: 'FAILED', dashboardStatusNote: 'not needed: this node had not sent this transfer before' });
		expect(posts()).toHaveLength(1);
		// Nothing recorded for the row not sent: a run without the status pays it.
		const later = await runNode(internal(), [claimsPaid], service.credentials());
		expect(later.items[0].json.status).toBe('SUCCESS');
	});

	test("a word the node does not read is refused before anything is sent, naming the item, the option and the words", async () => {
		const { error } = await runNode(internal(), [...topUps(1, 'word'), { ...topUps(2, 'word')[1], dashboardStatus: 'maybe' }], service.credentials());
		expect(error?.message).toBe("'Dashboard Status' must be one of the dashboard's words SUCCESS, PENDING, FAILED, ERROR, REJECTED, NOT_FOUND (given: \"maybe\") [item 1]");
		expect(posts()).toEqual([]);
	});
});

describe('another process writes the same row (queue mode)', () => {
	test('a claim another process wrote over is found unconfirmed and claimed again: every row paid once, every claim kept', async () => {
		overwriteNextCalls(1, (items) => items.length > 5);
		const rows = topUps(40, 'over');
		const { items } = await runNode(internal(), rows, service.credentials());
		expect(statusCount(items)).toEqual({ SUCCESS: 40 });
		expectEachPaidOnce(rows.map((row) => row.amount));
		for (const item of items) expect(processedDataHas(marks.id(String(item.json.transferId)))).toBe(true);
	});

	test('a slow call to the store lengthens the wait before a claim is trusted: twice the slowest recent call', async () => {
		// Fast calls first: the slow one is then one of many, above their 90th percentile.
		for (let run = 0; run < 5; run++) await runNode(internal(), topUps(1, `fast-${run}`), service.credentials());
		expect(storeCalls.filter((call) => call.kind === 'check').length).toBeGreaterThanOrEqual(10);
		// One call of n8n's database held 400 ms, as a busy n8n's can be (a garbage-collection pause).
		const slow = holdNextCall(() => true);
		const first = runNode(internal(), topUps(1, 'slow'), service.credentials());
		await slow.held;
		await new Promise((resolve) => setTimeout(resolve, 400));
		slow.release();
		expect(statusCount((await first).items)).toEqual({ SUCCESS: 1 });

		const { items } = await runNode(internal(), topUps(1, 'after-slow'), service.credentials());
		expect(statusCount(items)).toEqual({ SUCCESS: 1 });
		// The claim's call (its Transfer ID and a token) and the later call that asks for the token.
		const claimCall = storeCalls.find((call) => call.values?.includes(marks.id(String(items[0].json.transferId))));
		const token = claimCall?.values?.find((value) => value.startsWith('token:'));
		const confirmation = storeCalls.find((call) => call !== claimCall && call.startedAt! >= claimCall!.startedAt! && call.values?.includes(token!));
		expect(token).toBeDefined();
		expect(confirmation).toBeDefined();
		expect(confirmation!.startedAt! - claimCall!.endedAt!).toBeGreaterThanOrEqual(2 * 400);
		expect(posts()).toHaveLength(7);
	});
});

test("another process writes the row back as it was (its call read it before ours): what this process wrote is written again, and a forgotten mark brought back is taken for what it is", async () => {
	const [row] = topUps(1, 'stale');
	const { items } = await runNode(internal(), [row], service.credentials());
	const transferId = String(items[0].json.transferId);
	const print = fingerprint('internalTransfer', { amount: row.amount, rechargeAccount: row.account, transferId });
	// The late write of a call that read the row before this node's claim and its answer.
	forgetProcessedValues(workflowIdOfTest(), NODE, [marks.id(transferId), marks.sent(transferId, print)]);
	recordProcessedData(workflowIdOfTest(), NODE, [marks.open(transferId, print)]);
	const again = await runNode(internal(), [row], service.credentials());
	expect(again.items[0].json).toMatchObject({ status: 'ALREADY_SUBMITTED', transferId });
	expect(posts()).toHaveLength(1);
	await settledStore();
	expect([marks.id(transferId), marks.sent(transferId, print), marks.open(transferId, print)].map(processedDataHas)).toEqual([true, true, false]);
});

describe('when the record cannot be written', () => {
	test("n8n's database unreachable: internal rows, which only the record guards, say so and are not sent", async () => {
		breakProcessedData(new Error('SQLITE_BUSY: database is locked'));
		const { error } = await runNode(internal(), topUps(2, 'nodb'), service.credentials());
		expect(error?.message).toBe('The node could not record the transfer before sending it [item 0]');
		expect(error?.description).toMatch(/^Nothing was sent\. n8n's processed-data store answered: SQLITE_BUSY: database is locked/);
		expect(posts()).toEqual([]);
	});

	test("n8n's database unreachable: card and standard rows are paid, since the service refuses a repeat; a repeat reads what this process saw", async () => {
		breakProcessedData(new Error('SQLITE_BUSY: database is locked'));
		const { items, error } = await runNode(standard(), paid(2, 'nodb_std'), service.credentials());
		expect(error).toBeUndefined();
		expect(items.map((item) => item.json.status)).toEqual(['SUCCESS', 'SUCCESS']);
		const again = await runNode(standard(), paid(2, 'nodb_std'), service.credentials());
		expect(again.items.map((item) => [item.json.status, item.json.firstStatus])).toEqual([
			['ALREADY_SUBMITTED', 'SUCCESS'],
			['ALREADY_SUBMITTED', 'SUCCESS'],
		]);
		expect(ledger()).toHaveLength(2);
	});
});

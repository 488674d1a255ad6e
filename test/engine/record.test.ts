/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code runs in Node under jest, never inside n8n (it waits with Node's timers); this rule guards the code n8n loads (nodes/, credentials/) */
/**
 * The node's record of sent transfers (nodes/shared/record/) in n8n's engine, against the
 * sandbox's ledger, with the simulator's model of n8n 2.41's processed-data store
 * (test/helpers/processedData.ts): what a crash, Stop or a refusal leaves, settling rows in doubt
 * from the dashboard (Options > Dashboard Status), and a record that cannot be written, in one n8n
 * process. What other processes writing the same row do is the simulator's (test/simulator).
 */
import type { IDataObject } from 'n8n-workflow';

import { fingerprint } from '../../nodes/shared/record';
import { marks } from '../../nodes/shared/record/marks';
import { runNode, stopEngineTimers, workflowIdOfTest } from '../helpers/engine';
import { breakProcessedData, store } from '../helpers/processedData';
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
	store.seed(workflowIdOfTest(), NODE, [marks.id(transferId), marks.sent(transferId, print), marks.open(transferId, print)]);
}

beforeEach(() => service.sandbox.configure({ internalDuplicates: 'book' }));

describe('what a crash, Stop or a refusal leaves', () => {
	test('an internal transfer in flight when n8n died reads UNKNOWN, is never sent again on a guess, and is settled from the dashboard', async () => {
		const [row] = topUps(1, 'killed');
		const { items: dry } = await runNode(internal({ dryRun: true }), [row], service.credentials());
		const { transferId } = dry[0].json.body as { transferId: string };
		inFlightWhenKilled(transferId, { amount: row.amount, rechargeAccount: row.account, transferId });
		const unknown = await runNode(internal({}, { continueOnFail: true }), [row], service.credentials());
		expect(unknown.items[0].json).toMatchObject({ status: 'UNKNOWN', transferId, hint: expect.stringMatching(/map its status to Options > 'Settle With Dashboard Status'/) });
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
		store.seed(workflowIdOfTest(), NODE, [marks.sent(row.transferId, fingerprint('standardTransfer', { beneId: row.beneId, amount: 1, transferId: row.transferId, transferMode: 'banktransfer' }))]);
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

	test('a top-up the service refused clearly is not in doubt: once the cause is fixed, the same row is paid by a re-run', async () => {
		const [row] = topUps(1, 'refused');
		service.sandbox.configure({ faults: [{ fault: 'replay', status: 404, body: JSON.stringify({ status: 'ERROR', subCode: '404', message: 'Recharge Account not found' }), times: 1 }] });
		const refused = await runNode(internal({}, { continueOnFail: true }), [row], service.credentials());
		expect(refused.items[0].json).toMatchObject({ status: 'ERROR', subCode: '404' });
		// Fixed (the account is set up again): the same Transfer ID, from the same key, is sent again and paid once.
		const paidNow = await runNode(internal(), [row], service.credentials());
		expect(paidNow.items[0].json).toMatchObject({ status: 'SUCCESS', transferId: refused.items[0].json.transferId });
		expect(posts()).toHaveLength(2);
		expectEachPaidOnce([row.amount]);
	});
});

/** Waits until the node's background writes (after a Stop) are done: no store call for 200 ms. */
async function settledStore() {
	for (let last = -1; last !== store.calls.length; ) {
		last = store.calls.length;
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

	test('a not-paid status sends a transfer again once: a stale one after another unknown answer is not acted on again', async () => {
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

	test('a re-send on the dashboard\'s word that the service refuses clearly does not block the transfer: after the fix a plain run pays it (report 7)', async () => {
		const [row] = await inDoubt(2, 'blocked').then((rows) => rows.slice(1));
		// In doubt; then, settled, the service refuses the account (an operator changed it).
		service.sandbox.configure({ faults: [{ fault: 'replay', status: 404, body: JSON.stringify({ status: 'ERROR', subCode: '404', message: 'Recharge Account not found' }), times: 1 }] });
		const settled = await runNode(internal({}, { continueOnFail: true }), [{ ...row, dashboardStatus: 'NOT_FOUND' }], service.credentials());
		expect(settled.items[0].json).toMatchObject({ status: 'ERROR', subCode: '404' });
		service.sandbox.configure({ faults: [] });
		const plain = await runNode(internal(), [row], service.credentials());
		expect(plain.items[0].json).toMatchObject({ status: 'SUCCESS', transferId: row.transferId });
		expectEachPaidOnce([1, row.amount]);
	});

	test("the dashboard's paid word is kept; a contradiction of the service's own answer is reported and left alone", async () => {
		const [inDoubtRow] = await inDoubt(2, 'mistake').then((rows) => rows.slice(1));
		const settled = await runNode(internal(), [{ ...inDoubtRow, dashboardStatus: 'SUCCESS' }], service.credentials());
		expect(settled.items[0].json).toMatchObject({ status: 'ALREADY_SUBMITTED', dashboardStatus: 'SUCCESS' });
		// Read paid from now on, without the status.
		const later = await runNode(internal(), [inDoubtRow], service.credentials());
		expect(later.items[0].json.status).toBe('ALREADY_SUBMITTED');
		// Answered by the service, but the dashboard says FAILED: not sent, the contradiction said.
		const [answered] = topUps(1, 'answered');
		await runNode(internal(), [answered], service.credentials());
		const contradicted = await runNode(internal(), [{ ...answered, dashboardStatus: 'FAILED' }], service.credentials());
		expect(contradicted.items[0].json).toMatchObject({ status: 'ALREADY_SUBMITTED', dashboardStatusNote: expect.stringMatching(/contradicts the service's answer/), hint: expect.stringMatching(/may have been reversed/) });
		expect(ledger()).toHaveLength(2);
	});

	test('entries for rows not in doubt are reported: never sent and the dashboard says paid is ALREADY_EXISTS, not sent; not paid is just sent', async () => {
		const [claimsPaid, claimsFailed] = topUps(2, 'never');
		const { items } = await runNode(internal({}, { continueOnFail: true }), [{ ...claimsPaid, dashboardStatus: 'SUCCESS' }, { ...claimsFailed, dashboardStatus: 'failed' }], service.credentials());
		expect(items[0].json).toMatchObject({ status: 'ALREADY_EXISTS', dashboardStatus: 'SUCCESS' });
		expect(items[1].json).toMatchObject({ status: 'SUCCESS', dashboardStatus: 'FAILED', dashboardStatusNote: 'not needed: this node had not sent this transfer before' });
		expect(posts()).toHaveLength(1);
		// The row not sent is not in doubt: a run without the status pays it.
		const later = await runNode(internal(), [claimsPaid], service.credentials());
		expect(later.items[0].json.status).toBe('SUCCESS');
	});

	test('card and standard: a row the service holds after a request without a clear answer is settled by the dashboard; a paid word for a row this node never sent is ALREADY_EXISTS', async () => {
		const [held, failed, never] = paid(3, 'held_std');
		service.sandbox.configure({ faults: [{ fault: 'drop-after', times: 2 }] });
		const lost = await runNode(standard({ concurrency: 1 }, { continueOnFail: true }), [held, failed], service.credentials());
		expect(statusCount(lost.items)).toEqual({ UNKNOWN: 2 });
		// Sent again, the service refuses the repeat: it holds them, which says nothing of their money.
		const again = await runNode(standard({ concurrency: 1 }, { continueOnFail: true }), [held, failed], service.credentials());
		expect(again.items.map((item) => item.json.error)).toEqual([expect.stringMatching(/the service holds Transfer ID held_std_0/), expect.stringMatching(/the service holds Transfer ID held_std_1/)]);
		service.sandbox.clearRequests();
		const settled = await runNode(
			standard({ concurrency: 1, dashboardStatus: '={{ $json.dashboardStatus }}' }, { continueOnFail: true }),
			[{ ...held, dashboardStatus: 'SUCCESS' }, { ...failed, dashboardStatus: 'FAILED' }, { ...never, dashboardStatus: 'SUCCESS' }],
			service.credentials(),
		);
		expect(settled.items[0].json).toMatchObject({ status: 'ALREADY_SUBMITTED', dashboardStatus: 'SUCCESS' });
		// Not paid, says the dashboard: sent again, and the service still holds it: never payable under it.
		expect(settled.items[1].json).toMatchObject({ status: 'ERROR', dashboardStatus: 'FAILED', hint: expect.stringMatching(/can never be paid under it: pay it under a new Transfer ID/) });
		expect(settled.items[2].json).toMatchObject({ status: 'ALREADY_EXISTS', dashboardStatus: 'SUCCESS' });
		expect(posts().map((request) => (request.body as { transferId: string }).transferId)).toEqual([failed.transferId]);
		// Settled for good: without the status the paid one reads ALREADY_SUBMITTED (sent with its
		// Transfer ID, as card and standard rows always are, and refused by the service as a repeat).
		const later = await runNode(standard(), [held], service.credentials());
		expect(later.items[0].json).toMatchObject({ status: 'ALREADY_SUBMITTED', message: expect.stringMatching(/already exists/i) });
		expect(ledger().filter((transfer) => transfer.transferId.startsWith('held_std'))).toHaveLength(2);
	});

	test('card and standard: a row settled paid reads ALREADY_SUBMITTED on every later run, also when that run\'s request meets a fault', async () => {
		const rows = paid(3, 'faulted_std');
		// Each row's answer lost: in doubt, then settled paid from the dashboard (so no answer of the service in this process).
		service.sandbox.configure({ faults: [{ fault: 'drop-after', times: 3 }] });
		await runNode(standard({ concurrency: 1 }, { continueOnFail: true }), rows, service.credentials());
		service.sandbox.configure({ faults: [] });
		const settled = await runNode(standard({ concurrency: 1, dashboardStatus: '={{ $json.dashboardStatus }}' }), rows.map((row) => ({ ...row, dashboardStatus: 'SUCCESS' })), service.credentials());
		expect(settled.items.map((item) => item.json.status)).toEqual(['ALREADY_SUBMITTED', 'ALREADY_SUBMITTED', 'ALREADY_SUBMITTED']);
		// A later run without the status: each row's request meets a fault (none answered; dropped and resent
		// to a refusal as a repeat; refused as a repeat and the answer lost). The record holds them paid.
		service.sandbox.configure({ faults: [{ fault: 'html-500', status: 502, match: { transferId: 'faulted_std_0' } }, { fault: 'drop-before', times: 1, match: { transferId: 'faulted_std_1' } }, { fault: 'drop-after', match: { transferId: 'faulted_std_2' } }] });
		const faulted = await runNode(standard({ concurrency: 1, retries: 1 }, { continueOnFail: true }), rows, service.credentials());
		expect(faulted.items.map((item) => item.json.status)).toEqual(['ALREADY_SUBMITTED', 'ALREADY_SUBMITTED', 'ALREADY_SUBMITTED']);
		service.sandbox.configure({ faults: [] });
		const later = await runNode(standard({ concurrency: 1 }), rows, service.credentials());
		expect(later.items.map((item) => item.json.status)).toEqual(['ALREADY_SUBMITTED', 'ALREADY_SUBMITTED', 'ALREADY_SUBMITTED']);
		expect(ledger().filter((transfer) => transfer.transferId.startsWith('faulted_std'))).toHaveLength(3);
	});

	test("a word the node does not read is refused before anything is sent, naming the item, the option and the words", async () => {
		const { error } = await runNode(internal(), [...topUps(1, 'word'), { ...topUps(2, 'word')[1], dashboardStatus: 'maybe' }], service.credentials());
		expect(error?.message).toBe("'Settle With Dashboard Status' must be one of the dashboard's words SUCCESS, PENDING, FAILED, ERROR, REJECTED, NOT_FOUND (given: \"maybe\") [item 1]");
		expect(posts()).toEqual([]);
	});
});

test('a Dry Run calls n8n\'s store not once: what it reports comes from what this n8n knows; nothing is written or forgotten (report 1)', async () => {
	const paidBefore = topUps(30, 'paid-first');
	await runNode(internal({ concurrency: 5 }), paidBefore, service.credentials());
	await settledStore();
	const rowBefore = store.row(workflowIdOfTest(), NODE);
	const callsBefore = store.calls.length;
	const { items } = await runNode(internal({ dryRun: true, concurrency: 5 }), [...topUps(200, 'dry-new'), ...paidBefore.slice(0, 3)], service.credentials());
	expect(items).toHaveLength(203);
	expect(store.calls.slice(callsBefore)).toEqual([]);
	expect(store.row(workflowIdOfTest(), NODE)).toEqual(rowBefore);
	expect(posts()).toHaveLength(30);
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

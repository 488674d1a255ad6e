/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code runs in Node under jest, never inside n8n (it waits with Node's timers); this rule guards the code n8n loads (nodes/, credentials/) */
/**
 * The record of sent transfers at the sizes users run, in n8n's engine against the sandbox's
 * ledger, with n8n 2.41's processed-data store in memory (test/helpers/processedData.ts):
 * batches past the old reach of 10,000 marks, internal top-ups without a Transfer ID in rounds,
 * what a crash, an interrupted check and another process's overwrite leave, the node's lease,
 * and a full record. The same promises as test/engine/exactlyOnce.test.ts: a row is reported
 * paid only on its own request's evidence, no row is paid twice, and none is shown paid when not.
 */
import type { IDataObject } from 'n8n-workflow';

import { leaseTiming } from '../../nodes/shared/record/lease';
import { marks } from '../../nodes/shared/record/marks';
import { fingerprint } from '../../nodes/shared/record';
import { MAX_ENTRIES } from '../../nodes/shared/record/store';
import { runNode, stopEngineTimers } from '../helpers/engine';
import { breakProcessedData, forgetProcessedValues, holdNextCall, overwriteNextCalls, processedDataHas, recordProcessedData } from '../helpers/processedData';
import { seed, useSandbox } from '../helpers/sandbox';

jest.setTimeout(240_000);
afterAll(stopEngineTimers);

const service = useSandbox();
const WORKFLOW = 'engine-test';
const NODE = 'payoutsTransfer-id-0001';

const standard = (options: IDataObject = {}, extra: IDataObject = {}) => ({
	type: 'payoutsTransfer',
	parameters: { operation: 'standardTransfer', beneId: '={{ $json.beneId }}', amount: '={{ $json.amount }}', transferId: '={{ $json.transferId }}', transferMode: 'banktransfer', additionalFields: {}, options: { concurrency: 20, ...options } },
	...extra,
});
const internal = (options: IDataObject = {}, extra: IDataObject = {}) => ({
	type: 'payoutsTransfer',
	parameters: { operation: 'internalTransfer', amount: '={{ $json.amount }}', rechargeAccount: '={{ $json.account }}', additionalFields: { transferId: '={{ $json.transferId }}' }, options: { concurrency: 20, ...options } },
	...extra,
});
const paid = (count: number, prefix: string) => Array.from({ length: count }, (_, index) => ({ beneId: seed.beneficiaries.verified, amount: 1, transferId: `${prefix}_${index}` }));
const topUps = (count: number, prefix?: string) =>
	Array.from({ length: count }, (_, index) => ({ amount: 1 + (index % 7), account: seed.rechargeAccounts.configured, ...(prefix ? { transferId: `${prefix}-${index}` } : {}) }));

const ledger = () => service.sandbox.state().transfers as Array<{ transferId: string; amount: number }>;
const requests = () => service.sandbox.requests().filter((request) => request.method === 'POST');
const statusCount = (items: Array<{ json: IDataObject }>) => items.reduce<Record<string, number>>((counts, item) => ({ ...counts, [String(item.json.status)]: (counts[String(item.json.status)] ?? 0) + 1 }), {});
function expectNoTransferIdTwice() {
	const ids = ledger().map((transfer) => transfer.transferId);
	expect(new Set(ids).size).toBe(ids.length);
}

beforeEach(() => service.sandbox.configure({ internalDuplicates: 'book' }));

describe('batches past the old reach (the store dropped marks past 10,000)', () => {
	test('12,000 internal transfers with Transfer IDs, run again: every row ALREADY_SUBMITTED, nothing sent', async () => {
		const rows = topUps(12_000, 'big');
		const first = await runNode(internal(), rows, service.credentials());
		expect(first.error).toBeUndefined();
		expect(statusCount(first.items)).toEqual({ SUCCESS: 12_000 });
		service.sandbox.clearRequests();
		const again = await runNode(internal(), rows, service.credentials());
		expect(statusCount(again.items)).toEqual({ ALREADY_SUBMITTED: 12_000 });
		expect(requests()).toEqual([]);
		expect(ledger()).toHaveLength(12_000);
		expectNoTransferIdTwice();
	});

	test('12,000 standard transfers with Transfer IDs, run again: every row ALREADY_SUBMITTED, nothing sent', async () => {
		const rows = paid(12_000, 'std');
		const first = await runNode(standard(), rows, service.credentials());
		expect(statusCount(first.items)).toEqual({ SUCCESS: 12_000 });
		service.sandbox.clearRequests();
		const again = await runNode(standard(), rows, service.credentials());
		expect(again.error).toBeUndefined();
		expect(statusCount(again.items)).toEqual({ ALREADY_SUBMITTED: 12_000 });
		expect(requests()).toEqual([]);
		expect(ledger()).toHaveLength(12_000);
	});
});

describe('internal top-ups without a Transfer ID: rounds', () => {
	test('6,000 rows stopped at row 3,000 by a refusal: the re-run pays only what was not paid; once finished, the same batch is new top-ups', async () => {
		const rows = topUps(6000);
		const broken = rows.map((row, index) => (index === 3000 ? { ...row, account: seed.rechargeAccounts.unknown } : row));
		const stopped = await runNode(internal(), broken, service.credentials());
		expect(stopped.error?.message).toMatch(/Recharge Account not found \[item 3000\]/);
		const paidBefore = ledger().length;
		expect(paidBefore).toBeGreaterThanOrEqual(3000);
		const rerun = await runNode(internal(), rows, service.credentials());
		expect(rerun.error).toBeUndefined();
		expect(statusCount(rerun.items)).toEqual({ ALREADY_SUBMITTED: paidBefore, SUCCESS: 6000 - paidBefore });
		expect(ledger()).toHaveLength(6000);
		expectNoTransferIdTwice();
		// The re-run finished the round: the same batch again is new top-ups (as next week's would be).
		const next = await runNode(internal(), rows, service.credentials());
		expect(statusCount(next.items)).toEqual({ SUCCESS: 6000 });
		expect(ledger()).toHaveLength(12_000);
		expectNoTransferIdTwice();
	});

	test('the weekly top-up pays every week; n8n\'s Retry of a failed week pays nothing twice, however often it is pressed', async () => {
		const week = [{ amount: 2500, account: seed.rechargeAccounts.configured }];
		for (const executionId of ['week-1', 'week-2']) expect((await runNode(internal(), week, service.credentials(), { executionId })).items[0].json.status).toBe('SUCCESS');
		expect(ledger().map((transfer) => transfer.amount)).toEqual([2500, 2500]);
		// Week 3 fails after the money moved (the answer was lost): unknown, never guessed.
		service.sandbox.configure({ faults: [{ fault: 'drop-after', times: 1 }] });
		const lost = await runNode(internal(), week, service.credentials(), { executionId: 'week-3' });
		expect(lost.error?.message).toMatch(/unknown/);
		expect(ledger()).toHaveLength(3);
		for (const executionId of ['week-3-retry-1', 'week-3-retry-2']) {
			const retry = await runNode(internal(), week, service.credentials(), { executionId, mode: 'retry' });
			expect(retry.error?.message).toMatch(/The outcome of the transfer is unknown: this node sent it before/);
		}
		expect(ledger()).toHaveLength(3);
	});

	test("n8n's Retry never starts a new round: a second Retry of a failed, then completed, batch pays nothing more", async () => {
		const rows = topUps(3);
		const failed = await runNode(internal(), [rows[0], rows[1], { ...rows[2], account: seed.rechargeAccounts.unknown }], service.credentials(), { executionId: 'failed-1' });
		expect(failed.error).toBeDefined();
		const first = await runNode(internal(), rows, service.credentials(), { executionId: 'retry-1', mode: 'retry' });
		expect(first.items.map((item) => item.json.status)).toEqual(['ALREADY_SUBMITTED', 'ALREADY_SUBMITTED', 'SUCCESS']);
		const second = await runNode(internal(), rows, service.credentials(), { executionId: 'retry-2', mode: 'retry' });
		expect(second.items.map((item) => item.json.status)).toEqual(['ALREADY_SUBMITTED', 'ALREADY_SUBMITTED', 'ALREADY_SUBMITTED']);
		expect(ledger()).toHaveLength(3);
	});

	test('Top-Up Key names the top-up: the same key is paid once, a new key is a new top-up', async () => {
		const node = (key: string) => internal({ topUpKey: key });
		const month = [{ amount: 300, account: seed.rechargeAccounts.configured }];
		expect((await runNode(node('2026-11'), month, service.credentials())).items[0].json.status).toBe('SUCCESS');
		expect((await runNode(node('2026-11'), month, service.credentials())).items[0].json.status).toBe('ALREADY_SUBMITTED');
		expect((await runNode(node('2026-12'), month, service.credentials())).items[0].json.status).toBe('SUCCESS');
		expect(ledger()).toHaveLength(2);
	});

	test('a round shared by a loop and then finished: the next execution cannot tell, refuses and says what to set', async () => {
		for (const batch of [topUps(2), topUps(2).map((row) => ({ ...row, amount: row.amount + 10 }))]) {
			expect((await runNode(internal(), batch, service.credentials(), { executionId: 'loop-a' })).error).toBeUndefined();
		}
		service.sandbox.clearRequests();
		const next = await runNode(internal(), topUps(2), service.credentials(), { executionId: 'loop-b' });
		expect(next.error?.message).toMatch(/^The node cannot tell whether this top-up repeats an earlier one: .*loop.* \[item 0\]$/);
		expect(next.error?.description).toMatch(/'Transfer ID'.*'Top-Up Key'/);
		expect(requests()).toEqual([]);
	});

	test('a full record may have dropped its rounds: the node cannot tell, and says so; with a Top-Up Key it pays', async () => {
		recordProcessedData(WORKFLOW, NODE, Array.from({ length: MAX_ENTRIES }, (_, index) => `filler:${index}`));
		const refused = await runNode(internal(), topUps(1), service.credentials());
		expect(refused.error?.message).toMatch(/cannot tell .*record is full/);
		expect(requests()).toEqual([]);
		expect(processedDataHas(marks.roundChecking)).toBe(false);
		expect((await runNode(internal({ topUpKey: '2026-11' }), topUps(1), service.credentials())).items[0].json.status).toBe('SUCCESS');
	});

	test('a round check interrupted by a crash: the node cannot tell, and says so; nothing is sent', async () => {
		recordProcessedData(WORKFLOW, NODE, [marks.roundChecking]);
		const { error } = await runNode(internal(), topUps(1), service.credentials());
		expect(error?.message).toMatch(/cannot tell .*interrupted/);
		expect(requests()).toEqual([]);
	});
});

describe('what a crash leaves: claims without an answer', () => {
	const claimsOf = (kind: 'internal' | 'standard', rows: IDataObject[], operation: string) =>
		rows.map((row) => {
			const body = kind === 'internal' ? { amount: row.amount, rechargeAccount: row.account, transferId: row.transferId } : { beneId: row.beneId, amount: row.amount, transferId: row.transferId, transferMode: 'banktransfer' };
			const print = fingerprint(operation, body);
			return { claim: kind === 'internal' ? marks.sentId(String(row.transferId)) : marks.sentWith(String(row.transferId), print), done: marks.done(String(row.transferId), print) };
		});

	test('internal: answered rows ALREADY_SUBMITTED, the row in flight UNKNOWN and not sent, the rest paid', async () => {
		const rows = topUps(4, 'crash');
		const [answered, inFlight] = claimsOf('internal', rows, 'internalTransfer');
		recordProcessedData(WORKFLOW, NODE, [answered.claim, answered.done, inFlight.claim]);
		const { items } = await runNode(internal({ concurrency: 1 }, { continueOnFail: true }), rows, service.credentials());
		expect(items.map((item) => item.json.status)).toEqual(['ALREADY_SUBMITTED', 'UNKNOWN', 'SUCCESS', 'SUCCESS']);
		expect(requests().map((request) => (request.body as IDataObject).transferId)).toEqual(['crash-2', 'crash-3']);
	});

	test('standard: the row in flight is sent again with its Transfer ID; the service refuses the duplicate', async () => {
		const rows = paid(2, 'flight');
		await runNode(standard(), [rows[0]], service.credentials());
		// As if n8n had died before the answer was recorded: the claim stays, `done` is gone.
		const [inFlight] = claimsOf('standard', rows, 'standardTransfer');
		forgetProcessedValues(WORKFLOW, NODE, [inFlight.done]);
		const { items } = await runNode(standard(), rows, service.credentials());
		expect(items.map((item) => [item.json.transferId, item.json.status])).toEqual([
			['flight_0', 'ALREADY_SUBMITTED'],
			['flight_1', 'SUCCESS'],
		]);
		expect(items[0].json.message).toMatch(/already exists/i);
		expect(ledger()).toHaveLength(2);
	});

	test('a check of answers interrupted by a crash: an answer it may have recorded wrongly is never taken as paid', async () => {
		const rows = topUps(2, 'taint');
		const [first, second] = claimsOf('internal', rows, 'internalTransfer');
		recordProcessedData(WORKFLOW, NODE, [marks.checking, first.claim, first.done, second.claim]);
		const { items } = await runNode(internal({}, { continueOnFail: true }), rows, service.credentials());
		expect(items.map((item) => item.json.status)).toEqual(['UNKNOWN', 'UNKNOWN']);
		expect(items[0].json.error).toMatch(/interrupted check of the node's record left its answer unproven/);
		expect(requests()).toEqual([]);
	});
});

describe("Options > Dashboard Outcomes: what the user read in the dashboard settles an unknown outcome", () => {
	test('paid: ALREADY_SUBMITTED and nothing sent; not paid: sent once with its Transfer ID; the batch then completes', async () => {
		const rows = topUps(3, 'settle');
		service.sandbox.configure({ faults: [{ fault: 'drop-after', match: { transferId: 'settle-0' }, times: 1 }, { fault: 'drop-before', match: { transferId: 'settle-1' }, times: 1 }] });
		const first = await runNode(internal({}, {}), rows, service.credentials(), {});
		expect(first.error?.message).toMatch(/unknown/);
		const unsettled = await runNode(internal({}, { continueOnFail: true }), rows, service.credentials());
		expect(unsettled.items.map((item) => item.json.status)).toEqual(['UNKNOWN', 'UNKNOWN', 'ALREADY_SUBMITTED']);
		expect(String(unsettled.items[0].json.hint)).toMatch(/add the line "settle-0 paid" or "settle-0 not paid" to Options > 'Dashboard Outcomes'/);
		// settle-0 reached the service (drop-after); settle-1 did not (drop-before): the dashboard says so.
		expect(ledger().map((transfer) => transfer.transferId).sort()).toEqual(['settle-0', 'settle-2']);
		service.sandbox.clearRequests();
		const settled = await runNode(internal({ dashboardOutcomes: 'settle-0 paid\nsettle-1  NOT PAID\n\nother_9 paid' }), rows, service.credentials());
		expect(settled.error).toBeUndefined();
		expect(settled.items.map((item) => item.json.status)).toEqual(['ALREADY_SUBMITTED', 'SUCCESS', 'ALREADY_SUBMITTED']);
		expect(settled.items[0].json.message).toMatch(/dashboard shows this transfer paid/);
		expect(requests().map((request) => (request.body as IDataObject).transferId)).toEqual(['settle-1']);
		expect(ledger()).toHaveLength(3);
		expectNoTransferIdTwice();
		// Settled once, remembered: the next run needs no outcomes.
		const after = await runNode(internal(), rows, service.credentials());
		expect(after.items.map((item) => item.json.status)).toEqual(['ALREADY_SUBMITTED', 'ALREADY_SUBMITTED', 'ALREADY_SUBMITTED']);
	});

	test("after an interrupted check, settling every row it left unproven clears it: later runs trust the record again", async () => {
		const rows = topUps(2, 'cleared');
		await runNode(internal(), rows, service.credentials());
		recordProcessedData(WORKFLOW, NODE, [marks.checking]);
		const unproven = await runNode(internal({}, { continueOnFail: true }), rows, service.credentials());
		expect(unproven.items.map((item) => item.json.status)).toEqual(['UNKNOWN', 'UNKNOWN']);
		expect(processedDataHas(marks.checking)).toBe(true);
		await runNode(internal({ dashboardOutcomes: 'cleared-0 paid\ncleared-1 paid' }), rows, service.credentials());
		expect(processedDataHas(marks.checking)).toBe(false);
		const trusted = await runNode(internal(), rows, service.credentials());
		expect(trusted.items.map((item) => item.json.status)).toEqual(['ALREADY_SUBMITTED', 'ALREADY_SUBMITTED']);
		expect(ledger()).toHaveLength(2);
	});

	test("a 'not paid' line is acted on once: when that send is unknown too, the same line never sends it again; a new look does, once", async () => {
		// Found by the chaos run (a lost answer after a send the line allowed). The first request never reaches the service.
		const rows = [{ amount: 7, account: seed.rechargeAccounts.configured, transferId: 'stale-0' }];
		const node = (outcomes?: string) => internal(outcomes ? { dashboardOutcomes: outcomes } : {}, { continueOnFail: true });
		service.sandbox.configure({ faults: [{ fault: 'drop-before', match: { transferId: 'stale-0' }, times: 1 }] });
		const lost = (await runNode(node(), rows, service.credentials())).items[0].json;
		expect(lost.status).toBe('UNKNOWN');
		// The run that met the unknown already says how to settle it (found by the chaos run: a user needed a second run to learn the lines).
		expect(String(lost.hint)).toMatch(/add the line "stale-0 paid" or "stale-0 not paid" to Options > 'Dashboard Outcomes'/);
		expect(ledger()).toEqual([]);
		// The dashboard says not paid: sent once; the service books it and the answer is lost.
		service.sandbox.configure({ faults: [{ fault: 'drop-after', match: { transferId: 'stale-0' }, times: 1 }] });
		const lostAgain = (await runNode(node('stale-0 not paid'), rows, service.credentials())).items[0].json;
		expect(lostAgain.status).toBe('UNKNOWN');
		expect(String(lostAgain.hint)).toMatch(/"stale-0 paid" or "stale-0 not paid 2"/);
		expect(ledger()).toHaveLength(1);
		// The batch again, the line unchanged: not sent a third time; the hint asks for a new look.
		const stale = await runNode(node('stale-0 not paid'), rows, service.credentials());
		expect(stale.items[0].json.status).toBe('UNKNOWN');
		expect(String(stale.items[0].json.hint)).toMatch(/The line "stale-0 not paid" was acted on by an earlier run.*"stale-0 paid" or "stale-0 not paid 2"/);
		expect(ledger()).toHaveLength(1);
		// The second look finds it paid: ALREADY_SUBMITTED, nothing sent.
		service.sandbox.clearRequests();
		expect((await runNode(node('stale-0 paid'), rows, service.credentials())).items[0].json.status).toBe('ALREADY_SUBMITTED');
		expect(requests()).toEqual([]);
		expect(ledger()).toHaveLength(1);
	});

	test('a line it cannot read stops the run before anything is sent, and names the line', async () => {
		for (const line of ['settle-0 maybe', 'settle-0 paid 2', 'settle-0 not paid 0']) {
			const { error } = await runNode(internal({ dashboardOutcomes: line }), topUps(1, 'bad'), service.credentials());
			expect(error?.message).toBe(`'Dashboard Outcomes' has a line it cannot read: "${line}"`);
		}
		expect(requests()).toEqual([]);
	});
});

describe('a batch that stops while a call to the store is in flight', () => {
	test('the claims that call made for rows never sent are forgotten: the re-run pays them, nothing reads UNKNOWN', async () => {
		const rows = topUps(400, 'inflight');
		const broken = rows.map((row, index) => (index === 200 ? { ...row, account: seed.rechargeAccounts.unknown } : row));
		// Every answer takes 200 ms and row 200's refusal 300 ms more: while it is on its way, the
		// record's next call (claims of rows ahead) starts and is held in flight for 1.5 s, past the
		// moment the stopped batch closes the record.
		service.sandbox.configure({ latencyMs: 200, faults: [{ match: { transferId: 'inflight-200' }, fault: 'latency', latencyMs: 300 }] });
		const stopAt = () => requests().some((request) => (request.body as IDataObject).transferId === 'inflight-200');
		let claimedInFlight: string[] = [];
		const hold = holdNextCall((items) => {
			if (!stopAt()) return false;
			claimedInFlight = items.map(String).filter((item) => item.startsWith('id:'));
			return claimedInFlight.length > 0;
		});
		void hold.held.then(() => setTimeout(hold.release, 1500));
		const stopped = await runNode(internal(), broken, service.credentials());
		expect(stopped.error?.message).toMatch(/Recharge Account not found \[item 200\]/);
		const sentBefore = new Set(requests().map((request) => `id:${String((request.body as IDataObject).transferId)}`));
		// The call was in flight at the end and claimed rows the stopped batch never sent.
		expect(claimedInFlight.filter((claim) => !sentBefore.has(claim)).length).toBeGreaterThan(0);
		const paidBefore = ledger().length;

		service.sandbox.configure({ latencyMs: 0, faults: [] });
		const rerun = await runNode(internal(), rows, service.credentials());
		expect(rerun.error).toBeUndefined();
		expect(statusCount(rerun.items)).toEqual({ ALREADY_SUBMITTED: paidBefore, SUCCESS: 400 - paidBefore });
		expect(ledger()).toHaveLength(400);
		expectNoTransferIdTwice();
	});
});

describe('another process writes the same row (queue mode)', () => {
	test('two processes take the lease at the same moment: the one whose mark was overwritten waits, nothing is paid twice', async () => {
		// The first call that records (the lease) is overwritten by the other process, as if it had read the row first.
		overwriteNextCalls(1);
		const { items } = await runNode(internal(), topUps(3, 'race'), service.credentials());
		expect(statusCount(items)).toEqual({ SUCCESS: 3 });
		expect(ledger()).toHaveLength(3);
	});

	test('a group commit overwritten by another process is found by the next call and recorded again; internal rows are sent only once their claim is confirmed', async () => {
		overwriteNextCalls(1, (items) => items.length > 20);
		const rows = topUps(200, 'over');
		const { items } = await runNode(internal(), rows, service.credentials());
		expect(statusCount(items)).toEqual({ SUCCESS: 200 });
		expect(ledger()).toHaveLength(200);
		expectNoTransferIdTwice();
		for (const row of rows) expect(processedDataHas(marks.sentId(String(row.transferId)))).toBe(true);
	});

	test("another process holds the node's lease: the run waits, sends nothing meanwhile, and goes on when it is free", async () => {
		const { slotMs, pollMs } = leaseTiming;
		Object.assign(leaseTiming, { slotMs: 2000, pollMs: 100 });
		try {
			const slot = Math.floor(Date.now() / leaseTiming.slotMs);
			recordProcessedData(WORKFLOW, NODE, [marks.lease(slot), marks.lease(slot - 1)]);
			const started = Date.now();
			const run = runNode(standard(), paid(3, 'leased'), service.credentials());
			await new Promise((resolve) => setTimeout(resolve, 500));
			expect(requests()).toEqual([]);
			forgetProcessedValues(WORKFLOW, NODE, [marks.lease(slot), marks.lease(slot - 1), marks.lease(slot + 1)]);
			const { items } = await run;
			expect(items.map((item) => item.json.status)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS']);
			expect(Date.now() - started).toBeGreaterThanOrEqual(500);
		} finally {
			Object.assign(leaseTiming, { slotMs, pollMs });
		}
	});
});

describe('beyond the reach, and when the record cannot be written', () => {
	test('a full record: "Transfer Id already exists" for a row it does not know is ALREADY_EXISTS, not paid, and the batch goes on', async () => {
		recordProcessedData(
			WORKFLOW,
			NODE,
			Array.from({ length: MAX_ENTRIES }, (_, index) => `filler:${index}`),
		);
		const { items, error } = await runNode(standard(), [{ beneId: seed.beneficiaries.verified, amount: 5, transferId: seed.existingTransferId }, ...paid(1, 'after')], service.credentials());
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({ status: 'ALREADY_EXISTS', transferId: seed.existingTransferId, subCode: '400' });
		expect(String(items[0].json.hint)).toMatch(/remembers its last 100,000 transfers/);
		expect(items[1].json.status).toBe('SUCCESS');
	});

	test("n8n's database unreachable: the node says so and sends nothing", async () => {
		breakProcessedData(new Error('SQLITE_BUSY: database is locked'));
		const { error } = await runNode(standard(), paid(2, 'nodb'), service.credentials());
		expect(error?.message).toBe('The node could not start its record of sent transfers: SQLITE_BUSY: database is locked');
		expect(error?.description).toMatch(/^Nothing was sent/);
		expect(requests()).toEqual([]);
	});
});

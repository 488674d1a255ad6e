/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code runs in Node under jest, never inside n8n (it waits with Node's timers); this rule guards the code n8n loads (nodes/, credentials/) */
/**
 * The record of sent transfers (nodes/shared/record/) in n8n's engine, with the simulator's model
 * of n8n 2.41's processed-data store (harness/processedData.ts) as n8n's database and the
 * sandbox's ledger as the evidence: a transfer is paid at most once; once paid, it reads paid in
 * every later run, also after n8n restarts and from another Payouts Transfer node of the workflow;
 * a row never sent is never in doubt (a refusal, a Stop, a store that cannot be written); a Dry Run
 * writes nothing. Settling rows in doubt: settle.test.ts; the record's room: reachNote.test.ts.
 * What several n8n processes writing one row do is the simulator's (test/simulator).
 */
import type { IDataObject } from 'n8n-workflow';

import {
	restartN8n,
	runNode,
	runWorkflow,
	payoutsNode,
	stopEngineTimers,
	workflowIdOfTest,
} from '../../harness/engine';
import { breakProcessedData, recordSize, store, storeAtRest } from '../../harness/processedData';
import { seed, useSandbox } from '../../harness/sandbox';
import { booked, expectEachPaidOnce, statusCount, statuses, transferRequests } from './ledger';

jest.setTimeout(120_000);
afterAll(stopEngineTimers);

const service = useSandbox();
beforeEach(() => service.sandbox.configure({ internalDuplicates: 'book' }));

const standard = (options: IDataObject = {}, extra: IDataObject = {}) => ({
	type: 'payoutsTransfer',
	parameters: {
		operation: 'standardTransfer',
		beneId: '={{ $json.beneId }}',
		amount: '={{ $json.amount }}',
		transferId: '={{ $json.transferId }}',
		transferMode: 'banktransfer',
		additionalFields: {},
		options: { concurrency: 10, ...options },
	},
	...extra,
});
const card = (options: IDataObject = {}, extra: IDataObject = {}) => ({
	type: 'payoutsTransfer',
	parameters: {
		operation: 'cardTransfer',
		token: seed.cards.success1,
		amount: '={{ String($json.amount) }}',
		transferId: '={{ $json.transferId }}',
		cardType: 'DEBIT',
		additionalFields: {},
		options,
	},
	...extra,
});
/** Internal top-ups keyed by the row's `key`: the node's own record is their only guard. */
const internal = (options: IDataObject = {}, extra: IDataObject = {}) => ({
	type: 'payoutsTransfer',
	parameters: {
		operation: 'internalTransfer',
		amount: '={{ $json.amount }}',
		rechargeAccount: '={{ $json.account }}',
		topUpKey: '={{ $json.key }}',
		additionalFields: {},
		options: { concurrency: 10, ...options },
	},
	...extra,
});
const payouts = (count: number, prefix: string) =>
	Array.from({ length: count }, (_, index) => ({
		beneId: seed.beneficiaries.verified,
		amount: 1 + index,
		transferId: `${prefix}_${index}`,
	}));
/** Amounts tell the rows apart in the ledger: row i pays 1 + i/100. */
const topUps = (count: number, prefix: string) =>
	Array.from({ length: count }, (_, index) => ({
		amount: (100 + index) / 100,
		account: seed.rechargeAccounts.configured,
		key: `${prefix}-${index}`,
	}));

const wait = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

describe("paid at most once, and paid stays paid: the workflow's record in n8n's database", () => {
	test('top-ups paid by one run read ALREADY_SUBMITTED after n8n restarts, and none is sent again', async () => {
		const rows = topUps(3, 'restart');
		const first = await runNode(internal(), rows, service.credentials());
		expect(statuses(first.items)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS']);
		// What this n8n process heard is gone; what the record wrote to n8n's database is not.
		restartN8n();
		service.sandbox.clearRequests();
		const again = await runNode(internal(), rows, service.credentials());
		expect(again.items.map((item) => [item.json.status, item.json.transferId])).toEqual(
			first.items.map((item) => ['ALREADY_SUBMITTED', item.json.transferId]),
		);
		expect(again.items[0].json.message).toMatch(
			/^This node sent this transfer with these values before and the service answered SUCCESS or PENDING: not sent again$/,
		);
		expect(transferRequests(service.sandbox)).toEqual([]);
		expectEachPaidOnce(
			service.sandbox,
			rows.map((row) => row.amount),
		);
	});

	test.each([
		['standard', standard],
		['card', card],
	] as const)(
		'%s rows the record holds paid are not sent again after a restart: no fault on the wire can touch them',
		async (_kind, node) => {
			const rows = payouts(2, `held_${_kind}`);
			await runNode(node(), rows, service.credentials());
			// Where the service guards, paid states are written again a settling window later: done before the restart.
			await storeAtRest();
			restartN8n();
			service.sandbox.clearRequests();
			service.sandbox.configure({ faults: [{ fault: 'html-500', status: 502 }] });
			const again = await runNode(
				node({ retries: 2 }, { continueOnFail: true }),
				rows,
				service.credentials(),
			);
			expect(statuses(again.items)).toEqual(['ALREADY_SUBMITTED', 'ALREADY_SUBMITTED']);
			expect(transferRequests(service.sandbox)).toEqual([]);
			expectEachPaidOnce(
				service.sandbox,
				rows.map((row) => row.amount),
			);
		},
	);

	test("the record is the workflow's: another Payouts Transfer node of the workflow does not pay a top-up the first one paid", async () => {
		const [row] = topUps(1, 'two-nodes');
		const topUpNode = (id: string, name: string) => payoutsNode({ ...internal(), id, name });
		const first = await runWorkflow({
			nodes: [topUpNode('node-a', 'Top Up')],
			input: [row],
			credentials: { payoutsApi: service.credentials() },
		});
		const second = await runWorkflow({
			nodes: [topUpNode('node-b', 'Top Up Again')],
			input: [row],
			credentials: { payoutsApi: service.credentials() },
		});
		expect(first.output('Top Up')[0].json.status).toBe('SUCCESS');
		// A Top-Up Key makes the same Transfer ID in every node of the workflow: one key, one top-up.
		expect(second.output('Top Up Again')[0].json).toMatchObject({
			status: 'ALREADY_SUBMITTED',
			transferId: first.output('Top Up')[0].json.transferId,
		});
		expect(transferRequests(service.sandbox)).toHaveLength(1);
		expectEachPaidOnce(service.sandbox, [row.amount]);
	});

	test('a run ends once its record is written: the next run, at once, in a restarted n8n, finds every row it paid', async () => {
		const rows = topUps(40, 'written');
		const first = await runNode(internal({ concurrency: 8 }), rows, service.credentials());
		expect(statusCount(first.items)).toEqual({ SUCCESS: 40 });
		restartN8n();
		const again = await runNode(internal({ concurrency: 8 }), rows, service.credentials());
		expect(statusCount(again.items)).toEqual({ ALREADY_SUBMITTED: 40 });
		expectEachPaidOnce(
			service.sandbox,
			rows.map((row) => row.amount),
		);
	});
});

describe('a row never sent is never in doubt', () => {
	test('a top-up the service refused clearly is not in doubt: once the cause is fixed, the same row is paid by a re-run', async () => {
		const [row] = topUps(1, 'refused');
		service.sandbox.configure({
			faults: [
				{
					fault: 'replay',
					status: 404,
					body: JSON.stringify({
						status: 'ERROR',
						subCode: '404',
						message: 'Recharge Account not found',
					}),
					times: 1,
				},
			],
		});
		const refused = await runNode(
			internal({}, { continueOnFail: true }),
			[row],
			service.credentials(),
		);
		expect(refused.items[0].json).toMatchObject({
			status: 'ERROR',
			subCode: '404',
			nextStep: 'fixRow',
		});
		restartN8n();
		const paidNow = await runNode(internal(), [row], service.credentials());
		expect(paidNow.items[0].json).toMatchObject({
			status: 'SUCCESS',
			transferId: refused.items[0].json.transferId,
		});
		expect(transferRequests(service.sandbox)).toHaveLength(2);
		expectEachPaidOnce(service.sandbox, [row.amount]);
	});

	test('Stop mid-batch: rows never sent are paid by the re-run; only rows in flight at the Stop can be in doubt (at most Concurrency)', async () => {
		service.sandbox.configure({ latencyMs: 40 });
		const rows = topUps(60, 'stop');
		let stop!: () => void;
		const run = runNode(
			internal({ concurrency: 5 }, { continueOnFail: true }),
			rows,
			service.credentials(),
			{ onStart: (cancel) => (stop = cancel) },
		);
		while (transferRequests(service.sandbox).length < 12) await wait(5);
		stop();
		const stopped = await run;
		const sentAtStop = transferRequests(service.sandbox).length;
		expect(sentAtStop).toBeLessThan(rows.length);
		// The stopped run says of each row what became of it: paid, cut off in flight (UNKNOWN, at
		// most Concurrency), or not sent; a row it says was not sent never reached the service.
		const reached = new Set(transferRequests(service.sandbox));
		expect(
			statuses(stopped.items).filter((status) => status === 'UNKNOWN').length,
		).toBeLessThanOrEqual(5);
		const notSent = stopped.items.filter((item) => item.json.status === 'ERROR');
		expect(notSent.length).toBeGreaterThan(0);
		for (const item of notSent) {
			expect(item.json).toMatchObject({
				nextStep: 'runAgain',
				error: expect.stringMatching(
					/^Not sent: the execution was stopped before this transfer went out/,
				),
			});
			expect(reached.has(String(item.json.transferId))).toBe(false);
		}
		const rerun = await runNode(
			internal({ concurrency: 5 }, { continueOnFail: true }),
			rows,
			service.credentials(),
		);
		const counts = statusCount(rerun.items);
		// A row never sent is never in doubt: a row in doubt reached the service (maybe after the Stop),
		// or the Stop cut its request off on the way, which the node cannot tell from a lost answer:
		// then it was in flight, and lanes take rows in order, so it is among the first ones.
		rerun.items.forEach((item, index) => {
			if (item.json.status === 'UNKNOWN' && !reached.has(String(item.json.transferId)))
				expect(index).toBeLessThan(sentAtStop + 5);
		});
		expect(counts.UNKNOWN ?? 0).toBeLessThanOrEqual(5);
		expect((counts.SUCCESS ?? 0) + (counts.ALREADY_SUBMITTED ?? 0) + (counts.UNKNOWN ?? 0)).toBe(
			rows.length,
		);
		const ids = booked(service.sandbox).map((transfer) => transfer.transferId);
		expect(new Set(ids).size).toBe(ids.length);
		expect(ids.length).toBeGreaterThanOrEqual(rows.length - (counts.UNKNOWN ?? 0));
	});

	test.each([
		['internal (the node guards)', internal, topUps(2, 'paced')],
		['standard (the service guards)', standard, payouts(2, 'paced')],
	] as const)(
		'%s: Stop during a Requests Per Second wait sends nothing more, and the row that waited reads ERROR not sent, never UNKNOWN',
		async (_kind, node, rows) => {
			let stop!: () => void;
			// One request a second: the second row waits about a second for its turn.
			const run = runNode(
				node({ requestsPerSecond: 1, concurrency: 1 }, { continueOnFail: true }),
				[...rows],
				service.credentials(),
				{ onStart: (cancel) => (stop = cancel) },
			);
			while (booked(service.sandbox).length < 1) await wait(5);
			// The first row's answer is in; the second row is waiting for its turn.
			await wait(150);
			stop();
			const { items } = await run;
			expect(items[0].json.status).toBe('SUCCESS');
			expect(items[1].json).toMatchObject({
				status: 'ERROR',
				nextStep: 'runAgain',
				error: 'Not sent: the execution was stopped before this transfer went out [item 1]',
				hint: 'Nothing was sent for this row. Run it again to pay it.',
			});
			expect(transferRequests(service.sandbox)).toEqual([items[0].json.transferId]);
			// Never in doubt: the same batch run again pays the row that waited, and only it.
			const again = await runNode(node(), [...rows], service.credentials());
			expect(statuses(again.items)).toEqual(['ALREADY_SUBMITTED', 'SUCCESS']);
			expectEachPaidOnce(
				service.sandbox,
				rows.map((row) => row.amount),
			);
		},
	);

	test.each([
		['internal', internal, topUps(3, 'nodb')],
		['standard', standard, payouts(3, 'nodb')],
	] as const)(
		"%s: n8n's database unreachable: nothing is sent, every row says so, and the same batch pays once it answers again",
		async (_kind, node, rows) => {
			breakProcessedData(new Error('SQLITE_BUSY: database is locked'));
			const { error } = await runNode(node(), [...rows], service.credentials());
			expect(error?.message).toBe(
				'3 rows were not paid and need you; the first: The node could not record the transfer before sending it [item 0]',
			);
			expect(error?.description).toMatch(
				/^Nothing was sent\. n8n's processed-data store answered: SQLITE_BUSY: database is locked\. Running the row again is safe/,
			);
			expect(error?.context?.rows).toEqual(
				rows.map((_, item) =>
					expect.objectContaining({ item, status: 'ERROR', nextStep: 'runAgain' }),
				),
			);
			expect(transferRequests(service.sandbox)).toEqual([]);
			store.failure = undefined;
			const again = await runNode(node(), [...rows], service.credentials());
			expect(statuses(again.items)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS']);
			expectEachPaidOnce(
				service.sandbox,
				rows.map((row) => row.amount),
			);
		},
	);
});

describe('a row in doubt stays in doubt until its answer or the dashboard settles it', () => {
	test('standard rows whose answers were lost, taken on by a re-run that is stopped before sending them: a later run still says the service holds each from this node, never that this node has no record of it', async () => {
		const rows = payouts(30, 'doubt_kept');
		// Every other row's answer lost after booking (one in a row: the service does not look down).
		const lostAnswer = (index: number) => index % 2 === 0;
		service.sandbox.configure({
			faults: rows
				.filter((_, index) => lostAnswer(index))
				.map((row) => ({ fault: 'drop-after', match: { transferId: row.transferId }, times: 1 })),
		});
		const first = await runNode(
			standard({ concurrency: 1 }, { continueOnFail: true }),
			rows,
			service.credentials(),
		);
		const expected = rows.map((_, index) => (lostAnswer(index) ? 'UNKNOWN' : 'SUCCESS'));
		expect(statuses(first.items)).toEqual(expected);
		// A re-run taking rows on ahead of its lanes, stopped once its first request is out.
		service.sandbox.configure({ faults: [], latencyMs: 40 });
		service.sandbox.clearRequests();
		let stop!: () => void;
		const stopped = runNode(
			standard({ concurrency: 2 }, { continueOnFail: true }),
			rows,
			service.credentials(),
			{ onStart: (cancel) => (stop = cancel) },
		);
		while (transferRequests(service.sandbox).length < 1) await wait(2);
		stop();
		await stopped;
		expect(transferRequests(service.sandbox).length).toBeLessThan(6);
		service.sandbox.configure({ latencyMs: 0 });
		const later = await runNode(
			standard({}, { continueOnFail: true }),
			rows,
			service.credentials(),
		);
		expect(statuses(later.items)).toEqual(
			rows.map((_, index) => (lostAnswer(index) ? 'UNKNOWN' : 'ALREADY_SUBMITTED')),
		);
		for (const item of later.items.filter((entry) => entry.json.status === 'UNKNOWN'))
			expect(item.json.error).toMatch(/the service holds Transfer ID .* from this node's request/);
		expectEachPaidOnce(
			service.sandbox,
			rows.map((row) => row.amount),
		);
	});
});

describe('Dry Runs write nothing', () => {
	test("a Dry Run calls n8n's store not once, so it neither records nor forgets; the rows it checked are then paid by a real run", async () => {
		const paidBefore = topUps(30, 'paid-first');
		await runNode(internal({ concurrency: 5 }), paidBefore, service.credentials());
		const rowOfThisWorkflow = `${workflowIdOfTest()}|`;
		const sizeBefore = await recordSize(workflowIdOfTest());
		const callsBefore = store.calls.length;
		const newRows = topUps(200, 'dry-new');
		const { items } = await runNode(
			internal({ dryRun: true, concurrency: 5 }),
			[...newRows, ...paidBefore.slice(0, 3)],
			service.credentials(),
		);
		expect(items).toHaveLength(203);
		expect(items.every((item) => item.json.dryRun === true)).toBe(true);
		expect(store.calls.slice(callsBefore).filter((call) => call.row === rowOfThisWorkflow)).toEqual(
			[],
		);
		expect(await recordSize(workflowIdOfTest())).toBe(sizeBefore);
		expect(transferRequests(service.sandbox)).toHaveLength(30);
		const real = await runNode(
			internal({ concurrency: 5 }),
			newRows.slice(0, 5),
			service.credentials(),
		);
		expect(statuses(real.items)).toEqual(Array(5).fill('SUCCESS'));
	});
});

describe("the record's store calls", () => {
	// Each store call reads and writes the whole record, so a batch's cost is its number of calls.
	const claimCalls = (from: number) =>
		store.calls
			.slice(from)
			.filter((call) => call.row === `${workflowIdOfTest()}|` && call.kind === 'check');

	test('where the service guards, rows are claimed in chunks: 400 standard rows at Concurrency 10 take a few claiming calls, not one per row, and each row is paid once', async () => {
		const rows = payouts(400, 'chunks');
		const callsBefore = store.calls.length;
		const { items } = await runNode(standard(), rows, service.credentials());
		expect(statuses(items)).toEqual(Array(400).fill('SUCCESS'));
		// Chunks of 8 x Concurrency rows beyond the lanes' lead, asked for once half of one is left: at least 40 rows (80 entries) a call.
		expect(claimCalls(callsBefore).length).toBeLessThanOrEqual(400 / 20);
		expectEachPaidOnce(
			service.sandbox,
			rows.map((row) => row.amount),
		);
	});

	test('where the node guards, never more than Concurrency rows are claimed ahead: no claiming call carries more than twice Concurrency rows', async () => {
		const callsBefore = store.calls.length;
		const { items } = await runNode(internal(), topUps(200, 'ahead'), service.credentials());
		expect(statuses(items)).toEqual(Array(200).fill('SUCCESS'));
		const calls = claimCalls(callsBefore);
		expect(calls.length).toBeGreaterThan(0);
		// Three entries a row (transferId, claim, unconfirmed).
		for (const call of calls) expect(call.values.length).toBeLessThanOrEqual(3 * 2 * 10);
	});
});

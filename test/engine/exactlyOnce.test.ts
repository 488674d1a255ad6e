/**
 * Exactly once through everything n8n does around a node: Retry On Fail, n8n's execution retry
 * (a new execution of the same workflow and node), the node run again (loops), two executions
 * at once, and a re-run after a stop. Three promises, checked against the sandbox's ledger:
 * 1. a row is reported SUCCESS, PENDING or ALREADY_SUBMITTED only on the evidence of a request
 *    that carried that row's own values;
 * 2. no row moves money twice;
 * 3. a row whose money did not move is never shown as paid.
 * Internal transfers run against a sandbox that books a repeated transferId again (the document
 * does not say the service refuses it), so nothing here leans on the service to deduplicate them.
 */
import type { IDataObject } from 'n8n-workflow';

import { runNode, stopEngineTimers } from '../helpers/engine';
import { seed, useSandbox } from '../helpers/sandbox';

afterAll(stopEngineTimers);

const service = useSandbox();

const standard = (extra: Record<string, unknown> = {}, options: Record<string, unknown> = {}) => ({
	type: 'payoutsTransfer',
	parameters: { operation: 'standardTransfer', beneId: '={{ $json.beneId }}', amount: '={{ $json.amount }}', transferId: '={{ $json.transferId }}', transferMode: 'banktransfer', additionalFields: {}, options },
	...extra,
});
const internal = (extra: Record<string, unknown> = {}, options: Record<string, unknown> = {}) => ({
	type: 'payoutsTransfer',
	parameters: { operation: 'internalTransfer', amount: '={{ $json.amount }}', rechargeAccount: '={{ $json.account }}', additionalFields: {}, options },
	...extra,
});
const row = (transferId: string, amount = 100, beneId = seed.beneficiaries.verified) => ({ beneId, amount, transferId });
const topUp = (amount: number, account = seed.rechargeAccounts.configured) => ({ amount, account });

const ledger = () => service.sandbox.state().transfers as Array<{ transferId: string; amount: number; operation: string }>;
const sentIds = () => service.sandbox.requests().map((request) => (request.body as { transferId?: string }).transferId);
const statuses = (items: Array<{ json: IDataObject }>) => items.map((item) => item.json.status);
/** Each transferId in the ledger once, and each paid row's amount as given. */
function expectPaidOnce(expected: Array<{ amount: number }>) {
	const transfers = ledger();
	expect(new Set(transfers.map((transfer) => transfer.transferId)).size).toBe(transfers.length);
	expect(transfers.map((transfer) => transfer.amount).sort()).toEqual(expected.map((entry) => entry.amount).sort());
}

beforeEach(() => service.sandbox.configure({ internalDuplicates: 'book' }));

describe("n8n's Retry On Fail", () => {
	test('answered rows are not sent again; the one without an answer is re-sent with its Transfer ID', async () => {
		service.sandbox.configure({ faults: [{ fault: 'drop-after', match: { transferId: 'rof_3' }, times: 1 }] });
		const { items, error } = await runNode(standard({ retryOnFail: true, maxTries: 2 }), [row('rof_1'), row('rof_2'), row('rof_3')], service.credentials());
		expect(error).toBeUndefined();
		expect(statuses(items)).toEqual(['ALREADY_SUBMITTED', 'ALREADY_SUBMITTED', 'ALREADY_SUBMITTED']);
		expect(items[2].json.message).toMatch(/already exists/i);
		expect(sentIds()).toEqual(['rof_1', 'rof_2', 'rof_3', 'rof_3']);
		expect(ledger().map((transfer) => transfer.transferId)).toEqual(['rof_1', 'rof_2', 'rof_3']);
	});

	test('an internal transfer without an answer is not sent again: its outcome stays UNKNOWN', async () => {
		service.sandbox.configure({ faults: [{ fault: 'drop-after', times: 1 }] });
		const { error } = await runNode(internal({ retryOnFail: true, maxTries: 3 }), [topUp(10)], service.credentials());
		expect(error?.message).toMatch(/^The outcome of the transfer is unknown: this node sent it before and no clear answer came \[item 0\]$/);
		expect(error?.description).toMatch(/Look up Transfer ID n8n-[0-9a-f]{36} in the payouts dashboard/);
		expect(sentIds()).toHaveLength(1);
		expectPaidOnce([{ amount: 10 }]);
	});
});

test('Retries of Unknown Outcomes never re-sends an internal transfer (the option is not offered for it)', async () => {
	service.sandbox.configure({ faults: [{ fault: 'drop-after', times: 1 }] });
	const { error } = await runNode(internal({}, { retries: 3 }), [topUp(15)], service.credentials());
	expect(error?.message).toMatch(/The outcome of the transfer is unknown/);
	expect(error?.description).toMatch(/this node will not send it again/);
	expect(sentIds()).toHaveLength(1);
	expectPaidOnce([{ amount: 15 }]);
});

describe("n8n's execution retry: a new execution of the same workflow and node", () => {
	test('internal transfers without a Transfer ID that stopped at item 2: items 0 and 1 are not paid again', async () => {
		const rows = [topUp(11), topUp(12), topUp(13)];
		// Item 2 is refused (no money moves): the execution fails; the user fixes it and retries.
		const first = await runNode(internal(), [rows[0], rows[1], { amount: 13, account: seed.rechargeAccounts.unknown }], service.credentials(), { executionId: 'exec-1' });
		const calls = sentIds().length;
		expect(first.error?.message).toMatch(/Recharge Account not found \[item 2\]/);
		expect(first.error?.description).toMatch(/Items sent in this run: 0 \(SUCCESS\), 1 \(SUCCESS\), 2 \(ERROR\)/);
		const retry = await runNode(internal(), rows, service.credentials(), { executionId: 'exec-2' });
		expect(retry.error).toBeUndefined();
		expect(statuses(retry.items)).toEqual(['ALREADY_SUBMITTED', 'ALREADY_SUBMITTED', 'SUCCESS']);
		expect(retry.items.slice(0, 2).map((item) => item.json.transferId)).toEqual(sentIds().slice(0, 2));
		expect(sentIds().length - calls).toBe(1);
		expectPaidOnce([{ amount: 11 }, { amount: 12 }, { amount: 13 }]);
		// The retry finished the round: the same rows once more are new top-ups, as next week's run.
		const next = await runNode(internal(), rows, service.credentials(), { executionId: 'exec-3' });
		expect(statuses(next.items)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS']);
		expect(next.items.map((item) => item.json.transferId).filter((id) => retry.items.some((earlier) => earlier.json.transferId === id))).toEqual([]);
		expectPaidOnce([{ amount: 11 }, { amount: 12 }, { amount: 13 }, { amount: 11 }, { amount: 12 }, { amount: 13 }]);
	});

	test('a card transfer whose answer was lost is re-sent once and reported ALREADY_SUBMITTED', async () => {
		const card = { type: 'payoutsTransfer', parameters: { operation: 'cardTransfer', token: seed.cards.success1, amount: '={{ $json.amount }}', transferId: '={{ $json.transferId }}', cardType: 'CREDIT', additionalFields: {}, options: {} } };
		service.sandbox.configure({ faults: [{ fault: 'drop-after', times: 1 }] });
		const lost = await runNode(card, [{ amount: '25.50', transferId: 'card_lost_1' }], service.credentials(), { executionId: 'card-1' });
		expect(lost.error?.message).toMatch(/unknown/);
		const retry = await runNode(card, [{ amount: '25.50', transferId: 'card_lost_1' }], service.credentials(), { executionId: 'card-2' });
		expect(retry.items[0].json).toMatchObject({ status: 'ALREADY_SUBMITTED', transferId: 'card_lost_1', subCode: '400' });
		expectPaidOnce([{ amount: 25.5 }]);
	});
});

describe('resumable batches: a re-run pays only what was not paid', () => {
	test('a batch stopped by a refused row; the row fixed; the re-run needs no Continue On Fail', async () => {
		const rows = [row('resume_1'), row('resume_2'), row('resume_3', 100, seed.unknownBeneId), row('resume_4')];
		const stopped = await runNode(standard(), rows, service.credentials());
		expect(stopped.error?.message).toMatch(/Beneficiary does not exist \[item 2\]/);
		rows[2] = row('resume_3');
		const rerun = await runNode(standard(), rows, service.credentials());
		expect(rerun.error).toBeUndefined();
		expect(statuses(rerun.items)).toEqual(['ALREADY_SUBMITTED', 'ALREADY_SUBMITTED', 'SUCCESS', 'SUCCESS']);
		expect(ledger().map((transfer) => transfer.transferId)).toEqual(['resume_1', 'resume_2', 'resume_3', 'resume_4']);
	});

	test('"this node sent this Transfer ID with these values" is told apart from "another transfer has it"', async () => {
		await runNode(standard(), [row('mine_1')], service.credentials());
		const again = await runNode(standard(), [row('mine_1')], service.credentials());
		expect(again.items[0].json).toMatchObject({ status: 'ALREADY_SUBMITTED', transferId: 'mine_1' });
		// Used by an earlier transfer that is not this node's: an error, not ALREADY_SUBMITTED.
		const foreign = await runNode(standard(), [row(seed.existingTransferId)], service.credentials());
		expect(foreign.error?.message).toBe('Transfer Id already exists [item 0]');
		expect(foreign.error?.description).toMatch(/already exists, so this request moved no money/);
		// This node's own Transfer ID with other values: another transfer, refused by the service.
		const changed = await runNode(standard(), [row('mine_1', 250)], service.credentials());
		expect(changed.error?.message).toBe('Transfer Id already exists [item 0]');
		expectPaidOnce([{ amount: 100 }]);
	});

	test('a refused row is forgotten: after a top-up the same row is paid', async () => {
		const low = service.credentials({ accessToken: seed.tokens.lowBalance });
		const refused = await runNode(standard(), [row('topped_1', 600)], low);
		expect(refused.error?.message).toMatch(/balance/);
		const paid = await runNode(standard(), [row('topped_1', 2)], low);
		expect(paid.items[0].json.status).toBe('SUCCESS');
	});
});

describe('Transfer IDs within one batch', () => {
	test('two rows with one Transfer ID are refused before the first request, each naming the other', async () => {
		const { error } = await runNode(standard(), [row('shared_1', 100), row('other_1'), row('shared_1', 200)], service.credentials());
		expect(error?.message).toBe("'Transfer ID' shared_1 is also used by item 2 [item 0]");
		expect(error?.description).toMatch(/No item was sent: every item is checked before the first request\. Also invalid: item 2\.$/);
		expect(service.sandbox.requests()).toEqual([]);
	});

	test('under Continue On Fail neither duplicate is sent; the other rows are', async () => {
		const { items } = await runNode(standard({ continueOnFail: true }), [row('dup_1', 100), row('dup_ok'), row('dup_1', 200)], service.credentials());
		expect(statuses(items)).toEqual(['ERROR', 'SUCCESS', 'ERROR']);
		expect(items[2].json.error).toBe("'Transfer ID' dup_1 is also used by item 0 [item 2]");
		expect(sentIds()).toEqual(['dup_ok']);
	});

	test('two identical top-ups without a Transfer ID in one run are two transfers; the next run pays them again as new top-ups', async () => {
		const first = await runNode(internal(), [topUp(20), topUp(20)], service.credentials());
		expect(statuses(first.items)).toEqual(['SUCCESS', 'SUCCESS']);
		const ids = first.items.map((item) => item.json.transferId);
		expect(new Set(ids).size).toBe(2);
		const next = await runNode(internal(), [topUp(20), topUp(20)], service.credentials());
		expect(statuses(next.items)).toEqual(['SUCCESS', 'SUCCESS']);
		expect(new Set([...ids, ...next.items.map((item) => item.json.transferId)]).size).toBe(4);
		expectPaidOnce([{ amount: 20 }, { amount: 20 }, { amount: 20 }, { amount: 20 }]);
	});
});

describe('the node run again in one execution (Loop Over Items)', () => {
	test('each batch of internal transfers gets IDs of its own rows, not of the previous batch', async () => {
		const batches = [[topUp(31), topUp(32)], [topUp(33), topUp(34)]];
		const outputs = [];
		for (const batch of batches) outputs.push(await runNode(internal(), batch, service.credentials(), { executionId: 'loop-1' }));
		expect(outputs.flatMap((output) => statuses(output.items))).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS', 'SUCCESS']);
		expectPaidOnce([{ amount: 31 }, { amount: 32 }, { amount: 33 }, { amount: 34 }]);
	});

	test('with Retry On Fail a later batch never gets an earlier batch\'s results', async () => {
		const first = await runNode(internal({ retryOnFail: true }), [topUp(41)], service.credentials(), { executionId: 'loop-2' });
		const second = await runNode(internal({ retryOnFail: true }), [topUp(42)], service.credentials(), { executionId: 'loop-2' });
		expect(second.items[0].json).toMatchObject({ status: 'SUCCESS' });
		expect(second.items[0].json.transferId).not.toBe(first.items[0].json.transferId);
		expectPaidOnce([{ amount: 41 }, { amount: 42 }]);
	});
});

describe('two executions of one workflow at once', () => {
	test.each([
		['standard', () => standard({}, {}), [row('both_1'), row('both_2'), row('both_3')]],
		['internal', () => internal(), [topUp(51), topUp(52), topUp(53)]],
	] as const)('%s transfers: each row paid once, every row reported truthfully', async (_kind, node, rows) => {
		service.sandbox.configure({ latencyMs: 30 });
		const runs = await Promise.all([runNode(node(), [...rows], service.credentials({}), { executionId: 'at-once-1' }), runNode(node(), [...rows], service.credentials(), { executionId: 'at-once-2' })]);
		expectPaidOnce(rows.map((entry) => ({ amount: entry.amount })));
		for (const run of runs) {
			// Whatever each run says, it never says paid for a row the ledger lacks, nor hides one.
			const reported = run.items.length > 0 ? statuses(run.items) : [];
			for (const status of reported) expect(['SUCCESS', 'ALREADY_SUBMITTED', 'UNKNOWN', 'ERROR']).toContain(status);
		}
		const paidBy = runs.map((run) => run.items.filter((item) => item.json.status === 'SUCCESS').length);
		expect(paidBy[0] + paidBy[1]).toBe(rows.length);
	});
});

describe('a stopped batch names every item whose request may have reached the service', () => {
	test('Concurrency 3, two answers lost at once: both are named, with what is known', async () => {
		service.sandbox.configure({ latencyMs: 50, faults: [{ fault: 'drop-after', match: { transferId: 'lost_2' } }, { fault: 'drop-after', match: { transferId: 'lost_3' } }] });
		const rows = [row('lost_1'), row('lost_2'), row('lost_3'), row('lost_4'), row('lost_5')];
		const { error } = await runNode(standard({}, { concurrency: 3 }), rows, service.credentials());
		expect(error?.message).toMatch(/unknown.*\[item 1\]/);
		expect(error?.description).toMatch(/Items sent in this run: 0 \(SUCCESS\), 1 \(UNKNOWN\), 2 \(UNKNOWN\)/);
		// Every transfer in the ledger is named in the error.
		for (const transfer of ledger()) expect(error?.description).toContain(`${rows.findIndex((entry) => entry.transferId === transfer.transferId)} (`);
	});
});

/**
 * Exactly once through everything n8n 2.41 does around a node, in its engine: Retry On Fail, a
 * retry branch on the error output with a second Payouts Transfer node, n8n's execution retry (a
 * new execution of the same workflow and node), the node run again (loops), executions at once
 * (events), a step after the node that fails, and a batch whose rows need a person (which never
 * keeps the other rows from being paid). Every transfer has a key the user sees (its Transfer ID,
 * or an internal row's Top-Up Key); the evidence is the sandbox's ledger. Internal transfers run
 * against a sandbox that books a repeated transferId again (the interface does not say the service
 * refuses it), so nothing here leans on the service to refuse them.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	passThroughNode,
	runNode,
	runWorkflow,
	payoutsNode,
	stopEngineTimers,
	workflowIdOfTest,
} from '../../harness/engine';
import { store } from '../../harness/processedData';
import { seed, useSandbox } from '../../harness/sandbox';

afterAll(stopEngineTimers);

const service = useSandbox();

const standard = (extra: Record<string, unknown> = {}, options: Record<string, unknown> = {}) => ({
	type: 'payoutsTransfer',
	parameters: {
		operation: 'standardTransfer',
		beneId: '={{ $json.beneId }}',
		amount: '={{ $json.amount }}',
		transferId: '={{ $json.transferId }}',
		transferMode: 'banktransfer',
		additionalFields: {},
		options,
	},
	...extra,
});
/** Internal transfers keyed by the row's `key` column (a new user's node has no key: `keyed: false`). */
const internal = (
	extra: Record<string, unknown> = {},
	options: Record<string, unknown> = {},
	keyed = true,
) => ({
	type: 'payoutsTransfer',
	parameters: {
		operation: 'internalTransfer',
		amount: '={{ $json.amount }}',
		rechargeAccount: '={{ $json.account }}',
		...(keyed ? { topUpKey: '={{ $json.key }}' } : {}),
		additionalFields: {},
		options,
	},
	...extra,
});
const row = (transferId: string, amount = 100, beneId = seed.beneficiaries.verified) => ({
	beneId,
	amount,
	transferId,
});
const topUp = (amount: number, key: string, account = seed.rechargeAccounts.configured) => ({
	amount,
	account,
	key,
});

const ledger = () =>
	service.sandbox.state().transfers as Array<{
		transferId: string;
		amount: number;
		operation: string;
	}>;
const sentIds = () =>
	service.sandbox.requests().map((request) => (request.body as { transferId?: string }).transferId);
const statuses = (items: Array<{ json: IDataObject }>) => items.map((item) => item.json.status);
/** Each transferId in the ledger once, and each paid row's amount as given. */
function expectPaidOnce(expected: Array<{ amount: number }>) {
	const transfers = ledger();
	expect(new Set(transfers.map((transfer) => transfer.transferId)).size).toBe(transfers.length);
	expect(transfers.map((transfer) => transfer.amount).sort()).toEqual(
		expected.map((entry) => entry.amount).sort(),
	);
}

beforeEach(() => service.sandbox.configure({ internalDuplicates: 'book' }));

describe("n8n's Retry On Fail", () => {
	test('answered rows are not sent again; the one without an answer is re-sent with its Transfer ID, and the service holding it is not taken for paid', async () => {
		service.sandbox.configure({
			faults: [{ fault: 'drop-after', match: { transferId: 'rof_3' }, times: 1 }],
		});
		const { error } = await runNode(
			standard({ retryOnFail: true, maxTries: 2 }),
			[row('rof_1'), row('rof_2'), row('rof_3')],
			service.credentials(),
		);
		// The retry re-sent rof_3 with its Transfer ID, and the service refused the repeat: it holds
		// rof_3, which says nothing of its money. The two answered rows were not sent again.
		expect(error?.message).toBe(
			"The outcome of the transfer is unknown: the service holds Transfer ID rof_3 from this node's request that had no clear answer [item 2]",
		);
		expect(error?.description).toMatch(
			/^Not paid again: the service refuses it as a repeat, and whether its money moved is in the dashboard \(the service has no status lookup the node could ask\)\..* map its status for Transfer ID rof_3 to Options > 'Settle With Dashboard Status': SUCCESS or PENDING, it is paid; FAILED, it can never be paid under this Transfer ID\. Never give it a new Transfer ID before that\./,
		);
		expect(error?.context?.rows).toEqual([
			expect.objectContaining({ item: 0, status: 'ALREADY_SUBMITTED' }),
			expect.objectContaining({ item: 1, status: 'ALREADY_SUBMITTED' }),
			expect.objectContaining({ item: 2, status: 'UNKNOWN', nextStep: 'settleFromDashboard' }),
		]);
		expect(sentIds()).toEqual(['rof_1', 'rof_2', 'rof_3', 'rof_3']);
		expect(ledger().map((transfer) => transfer.transferId)).toEqual(['rof_1', 'rof_2', 'rof_3']);
	});

	test('an internal transfer without an answer is not sent again: it stays UNKNOWN, with how to settle it', async () => {
		service.sandbox.configure({ faults: [{ fault: 'drop-after', times: 1 }] });
		const { error } = await runNode(
			internal({ retryOnFail: true, maxTries: 3 }),
			[topUp(10, 'rof-internal')],
			service.credentials(),
		);
		expect(error?.message).toMatch(
			/^The outcome of the transfer is unknown: this node sent it before and no clear answer came, or another execution is sending it right now \[item 0\]$/,
		);
		expect(error?.description).toMatch(
			/^Not sent again\. .*export the payouts dashboard and map its status for Transfer ID rof-internal-[0-9a-f]+ to Options > 'Settle With Dashboard Status'/,
		);
		expect(error?.context?.rows).toEqual([
			expect.objectContaining({ item: 0, status: 'UNKNOWN', nextStep: 'settleFromDashboard' }),
		]);
		expect(sentIds()).toHaveLength(1);
		expectPaidOnce([{ amount: 10 }]);
	});
});

test('Resend If No Clear Answer never re-sends an internal transfer the node guards', async () => {
	service.sandbox.configure({ faults: [{ fault: 'drop-after', times: 1 }] });
	const { error } = await runNode(
		internal({}, { retries: 3 }),
		[topUp(15, 'resend-internal')],
		service.credentials(),
	);
	expect(error?.message).toMatch(/The outcome of the transfer is unknown/);
	expect(error?.description).toMatch(/never sends it again on a guess/);
	expect(sentIds()).toHaveLength(1);
	expectPaidOnce([{ amount: 15 }]);
});

describe('internal transfers need a key the user can see: nothing is guessed', () => {
	test("a new user's node without a key refuses every row before anything is sent, saying what to set", async () => {
		const { error } = await runNode(
			internal({}, {}, false),
			[
				{ amount: 100, account: seed.rechargeAccounts.configured },
				{ amount: 100, account: seed.rechargeAccounts.configured },
			],
			service.credentials(),
		);
		expect(error?.message).toBe(
			"'Top-Up Key' is empty, and so is 'Transfer ID': the node cannot tell this top-up from a repeat of it [item 0]",
		);
		expect(error?.description).toContain("the event's ID ({{ $json.body.eventId }})");
		expect(error?.description).toContain('{{ $today.toISODate() }} for once a day');
		expect(error?.description).toContain("'Pay Again on Every Run'");
		expect(error?.description).toMatch(/No item was sent/);
		expect(service.sandbox.requests()).toEqual([]);
	});

	test('two rows with the same key in one batch are one transfer: neither is sent, each names the other', async () => {
		const { items } = await runNode(
			internal({ continueOnFail: true }),
			[topUp(20, 'same'), topUp(21, 'other'), topUp(20, 'same')],
			service.credentials(),
		);
		expect(statuses(items)).toEqual(['ERROR', 'SUCCESS', 'ERROR']);
		expect(items[0].json.error).toBe('\'Top-Up Key\' "same" is also used by item 2 [item 0]');
		expectPaidOnce([{ amount: 21 }]);
	});

	test('a key used before with other values is refused, not paid: one key is one transfer', async () => {
		await runNode(internal(), [topUp(30, 'week-47')], service.credentials());
		const changed = await runNode(
			internal({ continueOnFail: true }),
			[topUp(35, 'week-47')],
			service.credentials(),
		);
		expect(changed.items[0].json).toMatchObject({
			status: 'ERROR',
			error: expect.stringMatching(
				/This node sent another transfer with Transfer ID week-47-[0-9a-f]+ \(other amount or account\)/,
			),
		});
		expectPaidOnce([{ amount: 30 }]);
	});

	test("Pay Again on Every Run: each run pays; n8n's Retry On Fail (the same run) does not pay again", async () => {
		const node = (extra = {}) => internal(extra, { payEveryRun: true }, false);
		const rows = [{ amount: 40, account: seed.rechargeAccounts.configured }];
		await runNode(node(), rows, service.credentials(), { executionId: 'every-1' });
		await runNode(node(), rows, service.credentials(), { executionId: 'every-2' });
		expectPaidOnce([{ amount: 40 }, { amount: 40 }]);
		// A refusal after a paid row stops the run; Retry On Fail runs it again: the paid row is not paid twice.
		service.sandbox.reset();
		service.sandbox.configure({ internalDuplicates: 'book' });
		const retried = await runNode(
			node({ retryOnFail: true, maxTries: 2 }),
			[rows[0], { amount: 41, account: seed.rechargeAccounts.unknown }],
			service.credentials(),
			{ executionId: 'every-3' },
		);
		expect(retried.error?.message).toMatch(/Recharge Account not found \[item 1\]/);
		expectPaidOnce([{ amount: 40 }]);
	});
});

describe('a step after the node fails, and the documented re-run (report 1)', () => {
	test('the same batch run again, unchanged, pays nothing twice and reports each row ALREADY_SUBMITTED', async () => {
		const rows = [topUp(11, 'topup-a'), topUp(12, 'topup-b'), topUp(13, 'topup-c')];
		// The step after it fails every time (a lookup of a paylink that does not exist stands for the chat).
		const nodes = [
			payoutsNode({ ...internal(), name: 'Pay' }),
			{
				...payoutsNode({
					type: 'payoutsPaylink',
					name: 'Post To Chat',
					parameters: { operation: 'getStatus', paylinkId: 'no-such-paylink' },
				}),
				id: 'after',
			},
		];
		const connections = {
			Pay: { main: [[{ node: 'Post To Chat', type: 'main' as const, index: 0 }]] },
		};
		const first = await runWorkflow({
			nodes,
			connections,
			input: rows,
			credentials: { payoutsApi: service.credentials() },
			executionId: 'chat-1',
		});
		// The step after the node failed; the payouts were made.
		expect(first.error?.node?.name).toBe('Post To Chat');
		expect(statuses(first.output('Pay'))).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS']);
		const again = await runWorkflow({
			nodes,
			connections,
			input: rows,
			credentials: { payoutsApi: service.credentials() },
			executionId: 'chat-2',
		});
		expect(statuses(again.output('Pay'))).toEqual([
			'ALREADY_SUBMITTED',
			'ALREADY_SUBMITTED',
			'ALREADY_SUBMITTED',
		]);
		expectPaidOnce([{ amount: 11 }, { amount: 12 }, { amount: 13 }]);
	});
});

describe('a weekly top-up keyed by its week (report 2)', () => {
	test("week 2's run, after an earlier step failed, pays week 2; running it again pays nothing", async () => {
		const week = (n: number) => [topUp(100, `2026-W${n}-a`), topUp(200, `2026-W${n}-b`)];
		await runNode(internal(), week(47), service.credentials(), { executionId: 'week-47' });
		// Week 48: the step before the node failed, so the node never ran; the user runs it again.
		const retry = await runNode(internal(), week(48), service.credentials(), {
			executionId: 'week-48-retry',
		});
		expect(statuses(retry.items)).toEqual(['SUCCESS', 'SUCCESS']);
		const again = await runNode(internal(), week(48), service.credentials(), {
			executionId: 'week-48-retry-2',
		});
		expect(statuses(again.items)).toEqual(['ALREADY_SUBMITTED', 'ALREADY_SUBMITTED']);
		expectPaidOnce([{ amount: 100 }, { amount: 200 }, { amount: 100 }, { amount: 200 }]);
	});
});

describe('evidence is not erased by a refused re-send (report 3)', () => {
	test('a standard transfer whose answer was lost, then a re-send refused (token expired), then a run with a valid token: paid once, in doubt until the dashboard is read, never "use a new Transfer ID"', async () => {
		service.sandbox.configure({ faults: [{ fault: 'drop-after', times: 1 }] });
		const lost = await runNode(
			standard({ continueOnFail: true }),
			[row('lost_then_403')],
			service.credentials(),
			{ executionId: 'r3-1' },
		);
		expect(lost.items[0].json.status).toBe('UNKNOWN');
		const refused = await runNode(
			standard({ continueOnFail: true }),
			[row('lost_then_403')],
			service.credentials({ accessToken: 'expired-token-value' }),
			{ executionId: 'r3-2' },
		);
		expect(refused.items[0].json).toMatchObject({
			status: 'UNKNOWN',
			subCode: '403',
			error: expect.stringMatching(
				/this node sent it before without a clear answer, and sending it again was refused: Token is not valid/,
			),
		});
		expect(String(refused.items[0].json.hint)).toMatch(/The earlier request may have paid/);
		// The service holds it: that is not evidence of money (it may have failed at the bank).
		const settled = await runNode(
			standard({ continueOnFail: true }),
			[row('lost_then_403')],
			service.credentials(),
			{ executionId: 'r3-3' },
		);
		expect(settled.items[0].json).toMatchObject({
			status: 'UNKNOWN',
			message: expect.stringMatching(/already exists/i),
			error: expect.stringMatching(/the service holds Transfer ID lost_then_403/),
		});
		expect(JSON.stringify([lost.items, refused.items, settled.items])).not.toMatch(
			/new Transfer ID'? for a new|use a new 'Transfer ID'/,
		);
		expectPaidOnce([{ amount: 100 }]);
	});

	test('a refused first request is forgotten: after a top-up of the balance the same row is paid', async () => {
		const low = service.credentials({ accessToken: seed.tokens.lowBalance });
		const refused = await runNode(standard(), [row('topped_1', 600)], low);
		expect(refused.error?.message).toMatch(/balance/);
		const paid = await runNode(standard(), [row('topped_1', 2)], low);
		expect(paid.items[0].json.status).toBe('SUCCESS');
	});
});

describe('events at once: one execution per event (report 4)', () => {
	const event = (id: string, amount = 100) => ({
		amount,
		account: seed.rechargeAccounts.configured,
		key: id,
	});

	test('ten top-ups of 100 at once, each keyed by its event: ten paid', async () => {
		service.sandbox.configure({ latencyMs: 20 });
		const runs = await Promise.all(
			Array.from({ length: 10 }, (_, i) =>
				runNode(internal(), [event(`evt_${i}`)], service.credentials(), {
					executionId: `evt-run-${i}`,
				}),
			),
		);
		expect(runs.map((run) => run.error?.message ?? run.items[0].json.status)).toEqual(
			Array(10).fill('SUCCESS'),
		);
		expect(ledger()).toHaveLength(10);
	});

	test('ten at once without a key, as a new user leaves the node: none paid, each refused saying what to set', async () => {
		const runs = await Promise.all(
			Array.from({ length: 10 }, (_, i) =>
				runNode(
					internal({}, {}, false),
					[{ amount: 100, account: seed.rechargeAccounts.configured }],
					service.credentials(),
					{ executionId: `nokey-${i}` },
				),
			),
		);
		for (const run of runs) expect(run.error?.message).toMatch(/'Top-Up Key' is empty/);
		expect(service.sandbox.requests()).toEqual([]);
	});

	test.each([
		['internal (the node guards)', () => internal(), () => event('evt_twice')],
		['standard (the service guards)', () => standard(), () => row('std_evt_twice')],
	] as const)(
		"%s: the same event twice at once pays once; the second says ALREADY_SUBMITTED with the first answer's references",
		async (_kind, node, payload) => {
			service.sandbox.configure({ latencyMs: 30 });
			const runs = await Promise.all([
				runNode(node(), [payload()], service.credentials(), { executionId: 'twice-1' }),
				runNode(node(), [payload()], service.credentials(), { executionId: 'twice-2' }),
			]);
			expect(runs.map((run) => run.items[0].json.status).sort()).toEqual([
				'ALREADY_SUBMITTED',
				'SUCCESS',
			]);
			const second = runs.find((run) => run.items[0].json.status === 'ALREADY_SUBMITTED')!.items[0]
				.json;
			expect(second).toMatchObject({
				firstStatus: 'SUCCESS',
				transferId: runs[0].items[0].json.transferId,
			});
			expect(ledger()).toHaveLength(1);
			expect(service.sandbox.requests()).toHaveLength(1);
		},
	);
});

describe('the node run again in one execution (Loop Over Items)', () => {
	test('each batch of keyed top-ups is paid once; a batch seen again is ALREADY_SUBMITTED', async () => {
		const batches = [
			[topUp(31, 'loop-1'), topUp(32, 'loop-2')],
			[topUp(33, 'loop-3'), topUp(34, 'loop-4')],
			[topUp(31, 'loop-1')],
		];
		const outputs = [];
		for (const batch of batches)
			outputs.push(
				await runNode(internal({ retryOnFail: true }), batch, service.credentials(), {
					executionId: 'loop-1',
				}),
			);
		expect(outputs.flatMap((output) => statuses(output.items))).toEqual([
			'SUCCESS',
			'SUCCESS',
			'SUCCESS',
			'SUCCESS',
			'ALREADY_SUBMITTED',
		]);
		expectPaidOnce([{ amount: 31 }, { amount: 32 }, { amount: 33 }, { amount: 34 }]);
	});
});

describe('Transfer IDs within one batch', () => {
	test('two rows with one Transfer ID are refused before the first request, each naming the other', async () => {
		const { error } = await runNode(
			standard(),
			[row('shared_1', 100), row('other_1'), row('shared_1', 200)],
			service.credentials(),
		);
		expect(error?.message).toBe("'Transfer ID' shared_1 is also used by item 2 [item 0]");
		expect(error?.description).toMatch(
			/No item was sent: every item is checked before the first request\. Also invalid: item 2\.$/,
		);
		expect(service.sandbox.requests()).toEqual([]);
	});

	test('"this node sent these values" is told apart from "another transfer has this Transfer ID"', async () => {
		await runNode(standard(), [row('mine_1')], service.credentials());
		const again = await runNode(standard(), [row('mine_1')], service.credentials());
		expect(again.items[0].json).toMatchObject({
			status: 'ALREADY_SUBMITTED',
			transferId: 'mine_1',
		});
		// Another transfer's Transfer ID, and this node's own with other values: not paid, and a person
		// must look it up, so the run stops as on an error (or the row comes out under Continue).
		for (const other of [row(seed.existingTransferId), row('mine_1', 250)]) {
			const { error } = await runNode(standard(), [other], service.credentials());
			expect(error).toMatchObject({
				errorResponse: { status: 'ALREADY_EXISTS' },
				description: expect.stringMatching(
					/^Not paid by this run\. Look Transfer ID \w+ up in the dashboard/,
				),
			});
			const { items } = await runNode(
				standard({ continueOnFail: true }),
				[other],
				service.credentials(),
			);
			expect(items[0].json).toMatchObject({
				status: 'ALREADY_EXISTS',
				transferId: other.transferId,
			});
		}
		expectPaidOnce([{ amount: 100 }]);
	});
});

// Node defect, left failing on purpose (see the branch's report): a Dry Run's items carry no
// `realRun` for card, standard or internal rows the node or the service guards, though the option's
// description and docs/nodes/payouts-transfer.md promise it: execute.ts opens the record only for a
// real run, and run/sendRow.ts's dryRun() writes `realRun` only where it has one.
test('a Dry Run says which rows a real run would not send because this n8n holds their paid answer (realRun), and sends and records nothing', async () => {
	await runNode(internal(), [topUp(61, 'dry-paid')], service.credentials());
	await runNode(standard(), [row('dry_std_paid')], service.credentials());
	service.sandbox.clearRequests();
	const callsBefore = store.calls.length;
	const internalDry = await runNode(
		internal({}, { dryRun: true }),
		[topUp(61, 'dry-paid'), topUp(62, 'dry-new')],
		service.credentials(),
	);
	const standardDry = await runNode(
		standard({}, { dryRun: true }),
		[row('dry_std_paid'), row('dry_std_new')],
		service.credentials(),
	);
	expect(service.sandbox.requests()).toEqual([]);
	expect(
		store.calls
			.slice(callsBefore)
			.filter((call) => call.kind !== 'count' && call.row.startsWith(`${workflowIdOfTest()}|`)),
	).toEqual([]);
	expect([...internalDry.items, ...standardDry.items].map((item) => item.json.realRun)).toEqual([
		expect.stringMatching(/^would not send: ALREADY_SUBMITTED/),
		expect.stringMatching(/^would send/),
		expect.stringMatching(/^would not send: ALREADY_SUBMITTED/),
		expect.stringMatching(/^would send/),
	]);
});

describe('a row that needs a person never blocks the others', () => {
	test('a refusal at item 3: every other row is sent, and the error names item 3 and every row sent with its status, referenceId and utr', async () => {
		const rows = [
			row('stop_1'),
			row('stop_2'),
			row('stop_3'),
			row('stop_4', 100, seed.unknownBeneId),
			row('stop_5'),
		];
		const { error } = await runNode(standard(), rows, service.credentials());
		expect(error?.message).toBe('Beneficiary does not exist [item 3]');
		expect(ledger().map((transfer) => transfer.transferId)).toEqual([
			'stop_1',
			'stop_2',
			'stop_3',
			'stop_5',
		]);
		for (const transfer of ledger()) {
			const index = rows.findIndex((entry) => entry.transferId === transfer.transferId);
			expect(error?.description).toContain(
				`item ${index}: SUCCESS (referenceId ${String((transfer as { referenceId?: string }).referenceId)}, utr UTR`,
			);
		}
		expect(error?.context?.rows).toEqual(
			rows.map((_, item) =>
				expect.objectContaining({ item, status: item === 3 ? 'ERROR' : 'SUCCESS' }),
			),
		);
	});

	test.each([
		[
			'internal (the node guards)',
			() => internal(),
			[topUp(71, 'doubt-a'), topUp(72, 'doubt-b'), topUp(73, 'doubt-c'), topUp(74, 'doubt-d')],
		],
		[
			'standard (the service guards)',
			() => standard(),
			[row('doubt_a', 71), row('doubt_b', 72), row('doubt_c', 73), row('doubt_d', 74)],
		],
	] as const)(
		'%s, On Error Stop Workflow: a row whose answer is lost does not stop the batch; the error lists it, every other row is paid, and the batch run again pays none twice',
		async (_kind, node, rows) => {
			const dry = await runNode(
				{ ...node(), parameters: { ...node().parameters, options: { dryRun: true } } },
				[...rows],
				service.credentials(),
			);
			const lostId = (dry.items[1].json.body as { transferId: string }).transferId;
			service.sandbox.configure({
				faults: [{ fault: 'drop-after', match: { transferId: lostId }, times: 1 }],
			});
			const { error } = await runNode(node(), [...rows], service.credentials());
			expect(error?.message).toMatch(
				/^The outcome of the transfer is unknown: the connection was dropped before an answer came \[item 1\]$/,
			);
			expect(error?.description).toMatch(
				/Sent in this run: item 0: SUCCESS[^;]*; item 2: SUCCESS[^;]*; item 3: SUCCESS/,
			);
			expect(error?.context?.rows).toEqual([
				expect.objectContaining({ item: 0, status: 'SUCCESS' }),
				expect.objectContaining({ item: 1, status: 'UNKNOWN', transferId: lostId }),
				expect.objectContaining({ item: 2, status: 'SUCCESS' }),
				expect.objectContaining({ item: 3, status: 'SUCCESS' }),
			]);
			expectPaidOnce([...rows]);
			// Run again as the docs advise: the paid rows are not sent, the row in doubt still needs a person.
			const again = await runNode(
				{ ...node(), continueOnFail: true },
				[...rows],
				service.credentials(),
			);
			expect(statuses(again.items)).toEqual([
				'ALREADY_SUBMITTED',
				'UNKNOWN',
				'ALREADY_SUBMITTED',
				'ALREADY_SUBMITTED',
			]);
			expectPaidOnce([...rows]);
		},
	);

	test('Concurrency 3, two answers lost at once: both are named, and every other row is paid', async () => {
		service.sandbox.configure({
			latencyMs: 50,
			faults: [
				{ fault: 'drop-after', match: { transferId: 'lost_2' } },
				{ fault: 'drop-after', match: { transferId: 'lost_3' } },
			],
		});
		const rows = [row('lost_1'), row('lost_2'), row('lost_3'), row('lost_4'), row('lost_5')];
		const { error } = await runNode(standard({}, { concurrency: 3 }), rows, service.credentials());
		expect(error?.message).toMatch(
			/^2 rows are in doubt \(they may have been paid\) and need you; the first: The outcome of the transfer is unknown: .*\[item 1\]$/,
		);
		expect(error?.description).toMatch(
			/1 other row needs you too: item 2: UNKNOWN \(runAgain\): The outcome of the transfer is unknown/,
		);
		expect(error?.description).toMatch(
			/Sent in this run: item 0: SUCCESS .*item 3: SUCCESS .*item 4: SUCCESS/,
		);
		expect(ledger()).toHaveLength(5);
	});

	test('three transfers in a row without any answer: the service looks down, so the run sends nothing more and says so on each row it did not send', async () => {
		service.sandbox.configure({ faults: [{ fault: 'html-500', status: 502 }] });
		const rows = [row('down_1'), row('down_2'), row('down_3'), row('down_4'), row('down_5')];
		const { items } = await runNode(
			standard({ continueOnFail: true }),
			rows,
			service.credentials(),
		);
		expect(statuses(items)).toEqual(['UNKNOWN', 'UNKNOWN', 'UNKNOWN', 'ERROR', 'ERROR']);
		for (const item of items.slice(3)) {
			expect(item.json).toMatchObject({
				nextStep: 'runAgain',
				error: expect.stringMatching(
					/^Not sent: the run stopped sending after "The service gave no answer to 3 transfers in a row, so the run sent nothing more/,
				),
			});
		}
		expect(sentIds()).toEqual(['down_1', 'down_2', 'down_3']);
	});

	test('a refusal of the whole account (IP not on the allow-list) stops the run at once: the rows after it are not sent, and say why', async () => {
		const rows = [row('ip_1'), row('ip_2'), row('ip_3')];
		const { items } = await runNode(
			standard({ continueOnFail: true }),
			rows,
			service.credentials({ accessToken: seed.tokens.ipRestricted }),
		);
		expect(items[0].json).toMatchObject({ status: 'ERROR', subCode: '403' });
		expect(items.slice(1).map((item) => item.json.error)).toEqual([
			expect.stringMatching(
				/^Not sent: the run stopped sending after "IP not whitelisted" \[item 1\]$/,
			),
			expect.stringMatching(
				/^Not sent: the run stopped sending after "IP not whitelisted" \[item 2\]$/,
			),
		]);
		expect(sentIds()).toEqual(['ip_1']);
	});
});

describe("a retry branch: a second Payouts Transfer node on the first one's error output", () => {
	/** Event -> Top Up -(error output)-> Top Up Again, both internal top-ups the node guards. */
	function retryBranch(first: Record<string, unknown>, second: Record<string, unknown>) {
		const nodes = [
			passThroughNode('Event'),
			payoutsNode({ ...first, name: 'Top Up', id: 'top-up', errorOutput: true } as never),
			payoutsNode({
				...second,
				name: 'Top Up Again',
				id: 'top-up-again',
				continueOnFail: true,
			} as never),
		];
		const connections = {
			Event: { main: [[{ node: 'Top Up', type: 'main' as const, index: 0 }]] },
			'Top Up': { main: [[], [{ node: 'Top Up Again', type: 'main' as const, index: 0 }]] },
		};
		return async (input: IDataObject[]) =>
			await runWorkflow({
				nodes,
				connections,
				input,
				credentials: { payoutsApi: service.credentials() },
			});
	}
	const withTransferId = () => ({
		...internal({}, {}, false),
		parameters: {
			...internal({}, {}, false).parameters,
			additionalFields: { transferId: '={{ $json.transferId }}' },
		},
	});

	test.each([
		[
			'an explicit Transfer ID',
			withTransferId,
			{ amount: 81, account: seed.rechargeAccounts.configured, transferId: 'branch-explicit-1' },
		],
		['a Top-Up Key', () => internal(), topUp(82, 'branch-key-1')],
	] as const)(
		'%s: the first answer lost, the second node reads the same Transfer ID in doubt and sends nothing: booked once',
		async (_how, node, payload) => {
			service.sandbox.configure({ faults: [{ fault: 'drop-after', times: 1 }] });
			const run = await retryBranch(node(), node())([payload]);
			expectPaidOnce([payload]);
			const [failed] = run.output('Top Up', 1);
			const transferId = (failed.json.error as IDataObject).transferId;
			expect(sentIds()).toEqual([transferId]);
			expect(failed.json.error).toMatchObject({
				status: 'UNKNOWN',
				nextStep: 'settleFromDashboard',
			});
			expect(run.output('Top Up Again').map((item) => item.json)).toEqual([
				expect.objectContaining({ status: 'UNKNOWN', nextStep: 'settleFromDashboard', transferId }),
			]);
		},
	);

	test('a second node that would send the row under another Transfer ID sends nothing, and says which Transfer ID to settle first', async () => {
		service.sandbox.configure({ faults: [{ fault: 'drop-after', times: 1 }] });
		const payload = { ...topUp(83, 'branch-other-key'), transferId: 'branch-other-id' };
		const run = await retryBranch(internal(), withTransferId())([payload]);
		const firstId = (run.output('Top Up', 1)[0].json.error as IDataObject).transferId as string;
		expect(run.output('Top Up Again')[0].json).toMatchObject({
			status: 'UNKNOWN',
			transferId: firstId,
			error: `Not sent: an earlier Payouts Transfer node of this workflow reported this row UNKNOWN under Transfer ID ${firstId} [item 0]`,
		});
		expect(sentIds()).toEqual([firstId]);
		expectPaidOnce([payload]);
	});

	test('the first node refused the row clearly: the second node pays it, once', async () => {
		service.sandbox.configure({
			faults: [
				{
					fault: 'replay',
					status: 422,
					body: JSON.stringify({
						status: 'ERROR',
						subCode: '422',
						message: 'Account not configured; contact the account manager',
					}),
					times: 1,
				},
			],
		});
		const payload = topUp(84, 'branch-refused');
		const run = await retryBranch(internal(), internal())([payload]);
		expect(run.output('Top Up', 1)[0].json.error).toMatchObject({
			status: 'ERROR',
			subCode: '422',
		});
		expect(run.output('Top Up Again')[0].json).toMatchObject({ status: 'SUCCESS' });
		expectPaidOnce([payload]);
	});
});

/**
 * Rows in doubt settled as data, in real n8n, as docs/safety.md's recipe says: the batch's
 * workflow downloads the dashboard's CSV export (the sandbox's stand-in), reads it with n8n's
 * Extract From File, merges it into the rows by Transfer ID with n8n's Merge, and maps the
 * dashboard's status to the payouts node's Options > Settle With Dashboard Status. Of 600 internal
 * transfers, every other one meets a lost answer (150 after the service booked them, 150 before).
 * The same workflow run again once the first run has ended settles all 300 and sends nothing: the
 * booked ones read ALREADY_SUBMITTED, the others ERROR with nextStep newTransferId (the export says
 * NOT_FOUND: they did not pay, and are never sent again under that Transfer ID); the rows answered
 * before are noted as not needing the dashboard. The user gives those 150 rows new Transfer IDs, as
 * the hint says, and runs it again: each is paid once. Judged by the sandbox's ledger.
 */
import { expectRun, n8n, runWithCli, suiteN8n } from '../helpers/e2e';
import type { Json, SuiteN8n } from '../helpers/e2e';
import { seed } from '../../harness/sandbox';
import type { Sandbox } from '../../harness/sandbox';

jest.setTimeout(20 * 60 * 1000);

const IN_DOUBT = 300;
/** Every other row is answered: the node stops sending after three transfers in a row without an answer (the service looks down). */
const ANSWERED = 300;
const credentials = { payoutsApi: { id: n8n.CREDENTIAL_ID, name: 'Payouts Sandbox' } };
let rows = Array.from({ length: IN_DOUBT + ANSWERED }, (_, i) => ({
	transferId: `settle-${String(i).padStart(4, '0')}`,
	amount: Math.round(100 + i) / 100,
	account: seed.rechargeAccounts.configured,
}));

/**
 * Start → the batch (rows) and the dashboard's export (downloaded, Extract From File) → Merge
 * (the batch enriched with the export's columns, by Transfer ID) → Pay.
 */
function settleWorkflow(dashboardUrl: string) {
	const at = (x: number, y = 0) => [x * 240, y * 200];
	const nodes = [
		{
			id: 'st-start',
			name: 'Start',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: at(0),
			parameters: {},
		},
		{
			id: 'st-rows',
			name: 'Batch',
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			position: at(1),
			parameters: { mode: 'raw', jsonOutput: JSON.stringify({ rows }), options: {} },
		},
		{
			id: 'st-split',
			name: 'One Item per Row',
			type: 'n8n-nodes-base.splitOut',
			typeVersion: 1,
			position: at(2),
			parameters: { fieldToSplitOut: 'rows', options: {} },
		},
		{
			id: 'st-export',
			name: 'Dashboard Export',
			type: 'n8n-nodes-base.httpRequest',
			typeVersion: 4.2,
			position: at(1, 1),
			parameters: {
				url: dashboardUrl,
				options: { response: { response: { responseFormat: 'file', outputPropertyName: 'data' } } },
			},
		},
		{
			id: 'st-extract',
			name: 'Extract From File',
			type: 'n8n-nodes-base.extractFromFile',
			typeVersion: 1,
			position: at(2, 1),
			parameters: { operation: 'csv', binaryPropertyName: 'data', options: {} },
		},
		{
			id: 'st-merge',
			name: 'Merge',
			type: 'n8n-nodes-base.merge',
			typeVersion: 3.2,
			position: at(3),
			parameters: {
				mode: 'combine',
				combineBy: 'combineByFields',
				advanced: true,
				mergeByFields: { values: [{ field1: 'transferId', field2: 'Transfer ID' }] },
				joinMode: 'enrichInput1',
				options: {},
			},
		},
		{
			id: 'st-pay',
			name: 'Pay',
			type: 'n8n-nodes-payouts.payoutsTransfer',
			typeVersion: 1,
			position: at(4),
			credentials,
			onError: 'continueRegularOutput',
			parameters: {
				operation: 'internalTransfer',
				amount: '={{ $json.amount }}',
				rechargeAccount: '={{ $json.account }}',
				additionalFields: { transferId: '={{ $json.transferId }}' },
				// The export lists what the service booked: a Transfer ID it does not list, it does not have.
				// One at a time, so that no three lost answers come in a row (at Concurrency 10 they bunch).
				options: { concurrency: 1, dashboardStatus: "={{ $json.Status ?? 'NOT_FOUND' }}" },
			},
		},
	];
	const connections = {
		Start: {
			main: [
				[
					{ node: 'Batch', type: 'main', index: 0 },
					{ node: 'Dashboard Export', type: 'main', index: 0 },
				],
			],
		},
		Batch: { main: [[{ node: 'One Item per Row', type: 'main', index: 0 }]] },
		'One Item per Row': { main: [[{ node: 'Merge', type: 'main', index: 0 }]] },
		'Dashboard Export': { main: [[{ node: 'Extract From File', type: 'main', index: 0 }]] },
		'Extract From File': { main: [[{ node: 'Merge', type: 'main', index: 1 }]] },
		Merge: { main: [[{ node: 'Pay', type: 'main', index: 0 }]] },
	};
	return {
		id: 'settleFromDashboard',
		name: 'E2E: settle rows in doubt from the dashboard',
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
		active: false,
	};
}

let suite: SuiteN8n;
let sandbox: Sandbox;

let dashboardUrl = '';

beforeAll(async () => {
	suite = await suiteN8n({
		name: 'e2e-settle',
		sandbox: { internalDuplicates: 'book' },
		prepare: async (started) => {
			dashboardUrl = `${started.baseUrl}/__sandbox/dashboard.csv`;
		},
		workflows: [],
	});
	sandbox = suite.sandbox;
	await n8n.importWorkflows(suite.userFolder, suite.env, [settleWorkflow(dashboardUrl)]);
});

afterAll(async () => suite?.close());

const counts = (items: Json[]) =>
	items.reduce<Record<string, number>>(
		(tally, item) => ({ ...tally, [String(item.status)]: (tally[String(item.status)] ?? 0) + 1 }),
		{},
	);

test(`${IN_DOUBT} rows in doubt are settled from the dashboard's CSV export as the docs say (paid: never sent again; not found: paid under a new Transfer ID): every payout paid once`, async () => {
	// The first run: 150 answers lost after the service booked the transfer, 150 before it did.
	// Every other row's answer is lost: after the service booked it (rows 0, 4, 8, …) or before (2, 6, 10, …).
	const lost = rows.filter((_, index) => index % 2 === 0);
	sandbox.configure({
		faults: lost.map((row, index) => ({
			fault: index % 2 === 0 ? 'drop-after' : 'drop-before',
			times: 1,
			match: { transferId: row.transferId },
		})),
	});
	const first = await runWithCli('settleFromDashboard', suite.env);
	expectRun(first, { code: 0 }, sandbox);
	expect(counts(first.output('Pay'))).toEqual({ SUCCESS: ANSWERED, UNKNOWN: IN_DOUBT });
	expect(sandbox.state().transfers).toHaveLength(ANSWERED + IN_DOUBT / 2);

	// The same workflow again, once the first run has ended (nothing in flight at the service): the
	// export lists the 170 booked transfers; that settles the 300, and sends nothing.
	sandbox.configure({ faults: [] });
	sandbox.clearRequests();
	const settled = await runWithCli('settleFromDashboard', suite.env);
	expectRun(settled, { code: 0 }, sandbox);
	const items = settled.output('Pay');
	expect(counts(items)).toEqual({
		ALREADY_SUBMITTED: ANSWERED + IN_DOUBT / 2,
		ERROR: IN_DOUBT / 2,
	});
	// Each row says what its dashboard status did.
	const byDashboard = items.filter(
		(item) =>
			item.status === 'ALREADY_SUBMITTED' &&
			item.dashboardStatus === 'SUCCESS' &&
			!item.dashboardStatusNote,
	);
	expect(byDashboard).toHaveLength(IN_DOUBT / 2);
	expect(
		items.filter(
			(item) =>
				item.dashboardStatusNote ===
				"not needed: this node has the service's answer for this transfer",
		),
	).toHaveLength(ANSWERED);
	const notPaid = items.filter((item) => item.status === 'ERROR');
	expect(
		notPaid.filter(
			(item) =>
				item.dashboardStatus === 'NOT_FOUND' &&
				item.nextStep === 'newTransferId' &&
				/it did not pay/.test(String(item.error)),
		),
	).toHaveLength(IN_DOUBT / 2);
	// Nothing sent, and nothing the export lists is called not paid.
	expect(
		sandbox.requests().filter((request) => request.path === '/payout/v1/internalTransfer'),
	).toHaveLength(0);
	const booked = new Set(sandbox.state().transfers.map((transfer) => transfer.transferId));
	expect(notPaid.filter((item) => booked.has(String(item.transferId)))).toEqual([]);

	// As the hint says: those rows get new Transfer IDs, and the workflow runs again.
	const renamed = new Set(notPaid.map((item) => String(item.transferId)));
	rows = rows.map((row) =>
		renamed.has(row.transferId) ? { ...row, transferId: `${row.transferId}-b` } : row,
	);
	await n8n.importWorkflows(suite.userFolder, suite.env, [settleWorkflow(dashboardUrl)]);
	const paid = await runWithCli('settleFromDashboard', suite.env);
	expectRun(paid, { code: 0 }, sandbox);
	expect(counts(paid.output('Pay'))).toEqual({
		ALREADY_SUBMITTED: ANSWERED + IN_DOUBT / 2,
		SUCCESS: IN_DOUBT / 2,
	});
	expect(
		sandbox.requests().filter((request) => request.path === '/payout/v1/internalTransfer'),
	).toHaveLength(IN_DOUBT / 2);
	// The ledger: every payout (its amount) once, every Transfer ID once.
	const transfers = sandbox.state().transfers;
	expect(transfers.map((transfer) => transfer.amount).sort((a, b) => a - b)).toEqual(
		rows.map((row) => row.amount).sort((a, b) => a - b),
	);
	expect(new Set(transfers.map((transfer) => transfer.transferId)).size).toBe(rows.length);
});

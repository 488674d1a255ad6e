/**
 * Rows in doubt settled as data, in real n8n, as docs/safety.md's recipe says: the batch's
 * workflow downloads the dashboard's CSV export (the sandbox's stand-in), reads it with n8n's
 * Extract From File, merges it into the rows by Transfer ID with n8n's Merge, and maps the
 * dashboard's status to the payouts node's Options > Dashboard Status. 300 internal transfers
 * meet lost answers (150 after the service booked them, 150 before); one run of the same workflow
 * settles all 300: the booked ones read ALREADY_SUBMITTED, the others are paid once; the rows
 * answered before are noted as not needing the dashboard. Judged by the sandbox's ledger.
 */
import { expectRun, n8n, runWithCli, suiteN8n } from '../helpers/e2e';
import type { Json, SuiteN8n } from '../helpers/e2e';
import { seed } from '../helpers/sandbox';
import type { Sandbox } from '../helpers/sandbox';

jest.setTimeout(20 * 60 * 1000);

const IN_DOUBT = 300;
const ANSWERED = 20;
const credentials = { payoutsApi: { id: n8n.CREDENTIAL_ID, name: 'Payouts Sandbox' } };
const rows = Array.from({ length: IN_DOUBT + ANSWERED }, (_, i) => ({ transferId: `settle-${String(i).padStart(4, '0')}`, amount: Math.round(100 + i) / 100, account: seed.rechargeAccounts.configured }));

/**
 * Start → the batch (rows) and the dashboard's export (downloaded, Extract From File) → Merge
 * (the batch enriched with the export's columns, by Transfer ID) → Pay.
 */
function settleWorkflow(dashboardUrl: string) {
	const at = (x: number, y = 0) => [x * 240, y * 200];
	const nodes = [
		{ id: 'st-start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: at(0), parameters: {} },
		{ id: 'st-rows', name: 'Batch', type: 'n8n-nodes-base.set', typeVersion: 3.4, position: at(1), parameters: { mode: 'raw', jsonOutput: JSON.stringify({ rows }), options: {} } },
		{ id: 'st-split', name: 'One Item per Row', type: 'n8n-nodes-base.splitOut', typeVersion: 1, position: at(2), parameters: { fieldToSplitOut: 'rows', options: {} } },
		{ id: 'st-export', name: 'Dashboard Export', type: 'n8n-nodes-base.httpRequest', typeVersion: 4.2, position: at(1, 1), parameters: { url: dashboardUrl, options: { response: { response: { responseFormat: 'file', outputPropertyName: 'data' } } } } },
		{ id: 'st-extract', name: 'Extract From File', type: 'n8n-nodes-base.extractFromFile', typeVersion: 1, position: at(2, 1), parameters: { operation: 'csv', binaryPropertyName: 'data', options: {} } },
		{
			id: 'st-merge',
			name: 'Merge',
			type: 'n8n-nodes-base.merge',
			typeVersion: 3.2,
			position: at(3),
			parameters: { mode: 'combine', combineBy: 'combineByFields', advanced: true, mergeByFields: { values: [{ field1: 'transferId', field2: 'Transfer ID' }] }, joinMode: 'enrichInput1', options: {} },
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
				options: { concurrency: 10, dashboardStatus: "={{ $json.Status ?? 'NOT_FOUND' }}" },
			},
		},
	];
	const connections = {
		Start: { main: [[{ node: 'Batch', type: 'main', index: 0 }, { node: 'Dashboard Export', type: 'main', index: 0 }]] },
		Batch: { main: [[{ node: 'One Item per Row', type: 'main', index: 0 }]] },
		'One Item per Row': { main: [[{ node: 'Merge', type: 'main', index: 0 }]] },
		'Dashboard Export': { main: [[{ node: 'Extract From File', type: 'main', index: 0 }]] },
		'Extract From File': { main: [[{ node: 'Merge', type: 'main', index: 1 }]] },
		Merge: { main: [[{ node: 'Pay', type: 'main', index: 0 }]] },
	};
	return { id: 'settleFromDashboard', name: 'E2E: settle rows in doubt from the dashboard', nodes, connections, settings: { executionOrder: 'v1' }, active: false };
}

let suite: SuiteN8n;
let sandbox: Sandbox;

beforeAll(async () => {
	let dashboardUrl = '';
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

const counts = (items: Json[]) => items.reduce<Record<string, number>>((tally, item) => ({ ...tally, [String(item.status)]: (tally[String(item.status)] ?? 0) + 1 }), {});

test(`${IN_DOUBT} rows in doubt are settled in one run from the dashboard's CSV export: paid once each, none twice`, async () => {
	// The first run: 150 answers lost after the service booked the transfer, 150 before it did.
	sandbox.configure({ faults: [{ fault: 'drop-after', times: IN_DOUBT / 2, match: { path: '/payout/v1/internalTransfer' } }, { fault: 'drop-before', times: IN_DOUBT / 2, match: { path: '/payout/v1/internalTransfer' } }] });
	const first = await runWithCli('settleFromDashboard', suite.env);
	expectRun(first, { code: 0 }, sandbox);
	expect(counts(first.output('Pay'))).toEqual({ SUCCESS: ANSWERED, UNKNOWN: IN_DOUBT });
	expect(sandbox.state().transfers).toHaveLength(ANSWERED + IN_DOUBT / 2);

	// The same workflow again: the export now lists the 170 booked transfers; that settles the 300.
	sandbox.configure({ faults: [] });
	sandbox.clearRequests();
	const settled = await runWithCli('settleFromDashboard', suite.env);
	expectRun(settled, { code: 0 }, sandbox);
	const items = settled.output('Pay');
	expect(counts(items)).toEqual({ ALREADY_SUBMITTED: ANSWERED + IN_DOUBT / 2, SUCCESS: IN_DOUBT / 2 });
	// Each row says what its dashboard status did.
	const byDashboard = items.filter((item) => item.status === 'ALREADY_SUBMITTED' && item.dashboardStatus === 'SUCCESS' && !item.dashboardStatusNote);
	expect(byDashboard).toHaveLength(IN_DOUBT / 2);
	expect(items.filter((item) => item.dashboardStatusNote === "not needed: this node has the service's answer for this transfer")).toHaveLength(ANSWERED);
	expect(items.filter((item) => item.status === 'SUCCESS').every((item) => item.dashboardStatus === 'NOT_FOUND')).toBe(true);
	// Only the 150 never booked were sent: once each.
	expect(sandbox.requests().filter((request) => request.path === '/payout/v1/internalTransfer')).toHaveLength(IN_DOUBT / 2);
	const transfers = sandbox.state().transfers;
	expect(transfers).toHaveLength(rows.length);
	expect(new Set(transfers.map((transfer) => transfer.transferId)).size).toBe(rows.length);
});

/**
 * End to end in real n8n: the package is packed and installed the way n8n installs community
 * packages, then the examples started by hand (the CSV batch, the reconciliation template) are
 * imported and executed by the n8n CLI against the sandbox. This proves that every runtime import
 * (zod included) resolves inside n8n. The examples started by a webhook, a schedule or a trigger
 * run published, as in production: examplesPublished.test.ts (and incidentLoop.test.ts).
 */
import { example, expectRun, n8n, runWithCli, suiteN8n } from '../helpers/e2e';
import type { Json, SuiteN8n, Workflow } from '../helpers/e2e';
import { seed } from '../../harness/sandbox';
import type { Sandbox } from '../../harness/sandbox';

jest.setTimeout(20 * 60 * 1000);

const unknownBeneficiary = {
	id: 'payoutsE2eError',
	name: 'E2E: unknown beneficiary',
	nodes: [
		{
			id: 'e-1',
			name: 'Start',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		},
		{
			id: 'e-2',
			name: 'Beneficiary',
			type: 'n8n-nodes-payouts.payoutsBeneficiary',
			typeVersion: 1,
			position: [260, 0],
			parameters: { operation: 'get', beneId: seed.unknownBeneId, options: {} },
			credentials: { payoutsApi: { id: n8n.CREDENTIAL_ID, name: 'Payouts Sandbox' } },
		},
	],
	connections: { Start: { main: [[{ node: 'Beneficiary', type: 'main', index: 0 }]] } },
	settings: { executionOrder: 'v1' },
	active: false,
};

/**
 * The CSV batch example again, under an id of its own: the reconciliation test runs a batch the first
 * test paid, against a sandbox reset since, and the record is the workflow's (a copy of a workflow
 * starts a record of its own, docs/safety.md), so the copy's run pays again what the reset forgot.
 */
const csvBatchCopy = {
	...example('csv-batch-payouts'),
	id: 'payoutsCsvBatchRecon',
	name: 'E2E: the CSV batch example, a copy for the reconciliation',
};

let suite: SuiteN8n;
let sandbox: Sandbox;

beforeAll(async () => {
	suite = await suiteN8n({
		name: 'e2e-examples',
		workflows: [
			example('csv-batch-payouts'),
			csvBatchCopy,
			example('reconcile-dashboard'),
			unknownBeneficiary,
		],
	});
	sandbox = suite.sandbox;
});

afterAll(async () => suite?.close());

// Every run here is a CLI process the test waits for: nothing of one test is still running in the next.
beforeEach(() => sandbox.reset());

/** Runs a workflow with `n8n execute`; a run that ends otherwise than `code` fails with its error, output by status and ledger. */
async function execute(id: string, code = 0) {
	const run = await runWithCli(id, suite.env);
	expectRun(run, { code }, sandbox);
	return run;
}

test('batch payouts from CSV: read by Extract From File (quoted commas, CRLF), every row routed by its status, the bad row does not stop the batch', async () => {
	const { output } = await execute('payoutsCsvBatch');
	const routed = (name: string) => output(name).map((item) => [item.transferId, item.status]);
	expect({
		paid: routed('Paid'),
		pending: routed('Pending'),
		check: routed('Needs a Check'),
		notSent: routed('Not Sent'),
	}).toEqual({
		paid: [
			['nov_payout_0001', 'SUCCESS'],
			['nov_payout_0003', 'SUCCESS'],
		],
		pending: [['nov_payout_0004', 'PENDING']],
		check: [['nov_payout_0005', 'UNKNOWN']],
		notSent: [['nov_payout_0002', 'ERROR']],
	});
	// The columns come from Extract From File: the quoted "Consulting, October" did not shift them.
	expect(output('Paid')[0].summary).toMatch(
		/^Paid nov_payout_0001 to BENEVERIFIED1: 1500\.00 \(SUCCESS, reference \d+, UTR \S+\)$/,
	);
	expect(output('Not Sent')[0].summary).toContain(
		'Not sent nov_payout_0002 (BENEUNKNOWN9, 250.50): Beneficiary does not exist [item 1] -> ',
	);
	expect(
		sandbox
			.state()
			.transfers.map((transfer) => transfer.transferId)
			.sort(),
	).toEqual(['nov_payout_0001', 'nov_payout_0003', 'nov_payout_0004', 'nov_payout_0005']);
});

test('an error stops the run with exit code 1 and the mapped error: name, message, httpCode', async () => {
	const { error } = await execute('payoutsE2eError', 1);
	expect(error).toMatchObject({
		name: 'NodeApiError',
		message: 'Beneficiary does not exist [item 0]',
		httpCode: '404',
	});
	expect(error?.description).toContain("No beneficiary has this 'Beneficiary ID'");
});

describe("the reconciliation template (a run's output against the dashboard's export)", () => {
	type Row = { transferId: string; status: string; amount?: string; beneId?: string };
	/** The template with a run's rows in Run Output and an export's text in Dashboard Export, as a user puts theirs. */
	const withData = (template: Workflow, rows: Row[], exported: string): Workflow => ({
		...template,
		nodes: template.nodes.map((node) => {
			if (node.name === 'Run Output')
				return {
					...node,
					parameters: { ...(node.parameters as Json), jsonOutput: JSON.stringify({ rows }) },
				};
			if (node.name !== 'Dashboard Export') return node;
			const parameters = node.parameters as { assignments: { assignments: Json[] } };
			return {
				...node,
				parameters: {
					...parameters,
					assignments: {
						assignments: [{ ...parameters.assignments.assignments[0], value: exported }],
					},
				},
			};
		}),
	});
	/** The template's own sample run. */
	const sample = JSON.parse(
		String(
			(
				example('reconcile-dashboard').nodes.find((node) => node.name === 'Run Output')
					?.parameters as Json
			).jsonOutput,
		),
	) as { rows: Row[] };
	/** Each list's rows as [Transfer ID, the run's status, the dashboard's], by Transfer ID (Merge puts matched rows first). */
	const lists = (output: (node: string) => Json[]) => {
		const rows = (node: string) =>
			output(node)
				.map((item) => [String(item.transferId), String(item.status), String(item.dashboardStatus)])
				.sort((a, b) => a[0].localeCompare(b[0]));
		return {
			reportedPaidNotOnDashboard: rows('Reported Paid, Not Paid on Dashboard'),
			inDoubt: rows('In Doubt'),
			amountOrPayeeDiffers: rows('Paid, Amount or Payee Differs'),
			paidOnDashboardOnly: rows('Paid on Dashboard Only'),
			matches: rows('Matches'),
		};
	};

	test("as shipped: its sample (example 3's run, one row reversed on the dashboard) sorted into the five lists", async () => {
		const { output } = await execute('payoutsReconcile');
		expect(lists(output)).toEqual({
			reportedPaidNotOnDashboard: [['nov_payout_0003', 'SUCCESS', 'FAILED']],
			inDoubt: [['nov_payout_0005', 'UNKNOWN', 'PENDING']],
			amountOrPayeeDiffers: [],
			paidOnDashboardOnly: [],
			matches: [
				['nov_payout_0001', 'SUCCESS', 'SUCCESS'],
				['nov_payout_0002', 'ERROR', 'NOT_FOUND'],
				['nov_payout_0004', 'PENDING', 'PENDING'],
			],
		});
		expect(output('In Doubt')[0].settle).toBe(
			"Paid on the dashboard (PENDING, amount 75.00 to BENENORESPONSE; the run's row: 75.00 to BENENORESPONSE): it is paid; never pay it again. Map PENDING to Options > 'Settle With Dashboard Status', so the row reads so from then on.",
		);
	});

	test('a row paid on both sides with another amount or payee is not a match; a row in doubt that failed on the dashboard is paid under a new Transfer ID, as the status table says', async () => {
		const exported = [
			'Transfer ID,Status,Amount,Reference ID,Type,Payee',
			'nov_payout_0001,SUCCESS,150.00,500001,standardTransfer,BENEVERIFIED1',
			'nov_payout_0003,SUCCESS,99.99,500002,standardTransfer,BENEVERIFIED1',
			'nov_payout_0004,PENDING,500.00,500003,standardTransfer,BENEPENDING',
			'nov_payout_0005,FAILED,75.00,500004,standardTransfer,BENENORESPONSE',
		].join('\r\n');
		await n8n.importWorkflows(suite.userFolder, suite.env, [
			withData(example('reconcile-dashboard'), sample.rows, exported),
		]);
		const { output } = await execute('payoutsReconcile');
		expect(lists(output)).toEqual({
			reportedPaidNotOnDashboard: [],
			inDoubt: [['nov_payout_0005', 'UNKNOWN', 'FAILED']],
			amountOrPayeeDiffers: [
				['nov_payout_0001', 'SUCCESS', 'SUCCESS'],
				['nov_payout_0003', 'SUCCESS', 'SUCCESS'],
			],
			paidOnDashboardOnly: [],
			matches: [
				['nov_payout_0002', 'ERROR', 'NOT_FOUND'],
				['nov_payout_0004', 'PENDING', 'PENDING'],
			],
		});
		expect(output('In Doubt')[0].settle).toBe(
			'Not paid on the dashboard (FAILED). Card or standard: it can never be paid under this Transfer ID: pay it under a new one.',
		);
	});

	test('an export with no transfers at all (only its header): every row the run reported paid is listed, none lost', async () => {
		await n8n.importWorkflows(suite.userFolder, suite.env, [
			withData(example('reconcile-dashboard'), sample.rows, sandbox.dashboardCsv()),
		]);
		const { output } = await execute('payoutsReconcile');
		expect(lists(output)).toEqual({
			reportedPaidNotOnDashboard: [
				['nov_payout_0001', 'SUCCESS', 'NOT_FOUND'],
				['nov_payout_0003', 'SUCCESS', 'NOT_FOUND'],
				['nov_payout_0004', 'PENDING', 'NOT_FOUND'],
			],
			inDoubt: [['nov_payout_0005', 'UNKNOWN', 'NOT_FOUND']],
			amountOrPayeeDiffers: [],
			paidOnDashboardOnly: [],
			matches: [['nov_payout_0002', 'ERROR', 'NOT_FOUND']],
		});
	});

	test("a real run's output against the sandbox's export: every row where the ledger puts it", async () => {
		const batch = await execute(csvBatchCopy.id);
		// Two rows the run and the service disagree on: one the run reports paid that the service
		// never booked (a row edited by hand), one the run refused that was paid from elsewhere.
		const outside = await fetch(`${sandbox.baseUrl}/payout/v1.2/requestTransfer`, {
			method: 'POST',
			headers: {
				authorization: `Bearer ${seed.credentials.accessToken}`,
				'content-type': 'application/json',
			},
			body: JSON.stringify({
				beneId: seed.beneficiaries.verified2,
				amount: 42,
				transferId: 'nov_payout_0007',
				transferMode: 'banktransfer',
			}),
		});
		expect(outside.status).toBe(200);
		const run: Row[] = [
			...['Paid', 'Pending', 'Needs a Check', 'Not Sent'].flatMap((node) =>
				batch.output(node).map((item) => ({
					transferId: String(item.transferId),
					status: String(item.status),
					amount: String(item.amount),
					beneId: String(item.beneId),
				})),
			),
			{
				transferId: 'nov_payout_0006',
				status: 'SUCCESS',
				amount: '10.00',
				beneId: seed.beneficiaries.verified,
			},
			{
				transferId: 'nov_payout_0007',
				status: 'ERROR',
				amount: '42.00',
				beneId: seed.beneficiaries.verified2,
			},
		].sort((a, b) => a.transferId.localeCompare(b.transferId));
		const exported = await (await fetch(`${sandbox.baseUrl}/__sandbox/dashboard.csv`)).text();

		await n8n.importWorkflows(suite.userFolder, suite.env, [
			withData(example('reconcile-dashboard'), run, exported),
		]);
		const { output } = await execute('payoutsReconcile');

		// The judge: the sandbox's ledger, read by the rule the template documents.
		const transfers = new Map(
			sandbox
				.state()
				.transfers.map((transfer) => [
					transfer.transferId,
					transfer as unknown as { status: string; amount: number; beneId?: string },
				]),
		);
		const dashboard = (id: string) => {
			const status = transfers.get(id)?.status;
			return status === undefined ? 'NOT_FOUND' : status === 'UNKNOWN' ? 'PENDING' : status;
		};
		const paidThere = (id: string) => ['SUCCESS', 'PENDING'].includes(dashboard(id));
		const sameValues = (row: Row) =>
			transfers.get(row.transferId)?.amount === Number(row.amount) &&
			transfers.get(row.transferId)?.beneId === row.beneId;
		const expected = {
			reportedPaidNotOnDashboard: [] as string[][],
			inDoubt: [] as string[][],
			amountOrPayeeDiffers: [] as string[][],
			paidOnDashboardOnly: [] as string[][],
			matches: [] as string[][],
		};
		for (const row of run) {
			const { transferId, status } = row;
			const entry = [transferId, status, dashboard(transferId)];
			if (['SUCCESS', 'PENDING', 'ALREADY_SUBMITTED'].includes(status))
				(paidThere(transferId)
					? sameValues(row)
						? expected.matches
						: expected.amountOrPayeeDiffers
					: expected.reportedPaidNotOnDashboard
				).push(entry);
			else if (['UNKNOWN', 'ALREADY_EXISTS'].includes(status)) expected.inDoubt.push(entry);
			else (paidThere(transferId) ? expected.paidOnDashboardOnly : expected.matches).push(entry);
		}
		expect(lists(output)).toEqual(expected);
		// What that is here, in words: the ledger's view of example 3's run and the two rows above.
		expect(lists(output)).toEqual({
			reportedPaidNotOnDashboard: [['nov_payout_0006', 'SUCCESS', 'NOT_FOUND']],
			inDoubt: [['nov_payout_0005', 'UNKNOWN', 'PENDING']],
			amountOrPayeeDiffers: [],
			paidOnDashboardOnly: [['nov_payout_0007', 'ERROR', 'SUCCESS']],
			matches: [
				['nov_payout_0001', 'SUCCESS', 'SUCCESS'],
				['nov_payout_0002', 'ERROR', 'NOT_FOUND'],
				['nov_payout_0003', 'SUCCESS', 'SUCCESS'],
				['nov_payout_0004', 'PENDING', 'PENDING'],
			],
		});
	});
});

/**
 * End to end in real n8n: the package is packed and installed the way n8n installs community
 * packages, then every example workflow is imported and executed by the n8n CLI against the
 * sandbox. This proves that every runtime import (zod included) resolves inside n8n.
 */
import { example, expectRun, n8n, runWithCli, suiteN8n } from '../helpers/e2e';
import type { SuiteN8n } from '../helpers/e2e';
import { seed } from '../helpers/sandbox';
import type { Sandbox } from '../helpers/sandbox';

jest.setTimeout(20 * 60 * 1000);

/** The editor starts these from a schedule or a webhook; the CLI needs a Manual Trigger. */
function withManualTrigger<T extends { nodes: Array<Record<string, unknown>>; connections: Record<string, unknown> }>(workflow: T, triggerName: string, output?: Record<string, unknown>): T {
	const nodes = workflow.nodes.map((node) =>
		node.name === triggerName ? { id: node.id, name: triggerName, type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: node.position, parameters: {} } : node,
	);
	if (!output) return { ...workflow, nodes };
	// Stand in for what the trigger would have received (the webhook's query string).
	const stand = { id: 'stand-in', name: 'Webhook Data', type: 'n8n-nodes-base.set', typeVersion: 3.4, position: [120, 200], parameters: { mode: 'raw', jsonOutput: JSON.stringify(output), options: {} } };
	const connections = { ...workflow.connections, [triggerName]: { main: [[{ node: 'Webhook Data', type: 'main', index: 0 }]] }, 'Webhook Data': (workflow.connections as Record<string, unknown>)[triggerName] };
	return { ...workflow, nodes: [...nodes, stand], connections };
}

const unknownBeneficiary = {
	id: 'payoutsE2eError',
	name: 'E2E: unknown beneficiary',
	nodes: [
		{ id: 'e-1', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
		{ id: 'e-2', name: 'Beneficiary', type: 'n8n-nodes-payouts.payoutsBeneficiary', typeVersion: 1, position: [260, 0], parameters: { operation: 'get', beneId: seed.unknownBeneId, options: {} }, credentials: { payoutsApi: { id: n8n.CREDENTIAL_ID, name: 'Payouts Sandbox' } } },
	],
	connections: { Start: { main: [[{ node: 'Beneficiary', type: 'main', index: 0 }]] } },
	settings: { executionOrder: 'v1' },
	active: false,
};

let suite: SuiteN8n;
let sandbox: Sandbox;

beforeAll(async () => {
	suite = await suiteN8n({
		name: 'e2e-examples',
		workflows: [
			withManualTrigger(example('incident-check'), 'Every 15 Minutes'),
			example('paylink-status'),
			example('csv-batch-payouts'),
			withManualTrigger(example('oauth-callback'), 'OAuth Redirect URL', { query: { auth_code: seed.authCodes[3] } }),
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

test('scheduled incident check: one notification message per unresolved incident of today', async () => {
	const { output } = await execute('payoutsIncidentCheck');
	const incidents = output('Unresolved Incidents');
	expect(incidents.length).toBeGreaterThan(0);
	expect(incidents.every((incident) => incident.isResolved === false)).toBe(true);
	const messages = output('Notification Message');
	expect(messages).toHaveLength(incidents.length);
	expect(messages[0].message).toMatch(/^Bank incident: .+ \(.+\), [A-Z]+ transfers affected since \d{4}-\d{2}-\d{2}T.+Z, impact (LOW|MEDIUM|HIGH)/);
	expect(n8nTypesUsed(sandbox)).toEqual(['GET /payout/v1/incidents']);
});

test('paylink status into a notification message', async () => {
	const { output } = await execute('payoutsPaylinkStatus');
	expect(output('Notification Message')).toEqual([{ message: `Paylink ${seed.paylinks.active} is ACTIVE: https://payouts.example.com/paylink/paylink_active_1` }]);
});

test('batch payouts from CSV: read by Extract From File (quoted commas, CRLF), every row routed by its status, the bad row does not stop the batch', async () => {
	const { output } = await execute('payoutsCsvBatch');
	const routed = (name: string) => output(name).map((item) => [item.transferId, item.status]);
	expect({ paid: routed('Paid'), pending: routed('Pending'), check: routed('Needs a Check'), notSent: routed('Not Sent') }).toEqual({
		paid: [
			['nov_payout_0001', 'SUCCESS'],
			['nov_payout_0003', 'SUCCESS'],
		],
		pending: [['nov_payout_0004', 'PENDING']],
		check: [['nov_payout_0005', 'UNKNOWN']],
		notSent: [['nov_payout_0002', 'ERROR']],
	});
	// The columns come from Extract From File: the quoted "Consulting, October" did not shift them.
	expect(output('Paid')[0].summary).toMatch(/^Paid nov_payout_0001 to BENEVERIFIED1: 1500\.00 \(SUCCESS, reference \d+, UTR \S+\)$/);
	expect(output('Not Sent')[0].summary).toContain('Not sent nov_payout_0002 (BENEUNKNOWN9, 250.50): Beneficiary does not exist [item 1] -> ');
	expect(sandbox.state().transfers.map((transfer) => transfer.transferId).sort()).toEqual(['nov_payout_0001', 'nov_payout_0003', 'nov_payout_0004', 'nov_payout_0005']);
});

test('OAuth callback: the code from the redirect is exchanged for a token', async () => {
	const { output } = await execute('payoutsOAuthCallback');
	const [connected] = output('Connected');
	expect(connected.message).toMatch(/^Connected: verification verification_\d+, token valid until \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
	expect(sandbox.state().usedAuthCodes).toEqual([seed.authCodes[3]]);
});

test('an error stops the run with exit code 1 and the mapped error: name, message, httpCode', async () => {
	const { error } = await execute('payoutsE2eError', 1);
	expect(error).toMatchObject({ name: 'NodeApiError', message: 'Beneficiary does not exist [item 0]', httpCode: '404' });
	expect(error?.description).toContain("No beneficiary has this 'Beneficiary ID'");
});

function n8nTypesUsed(service: Sandbox) {
	return [...new Set(service.requests().map((request) => `${request.method} ${request.path}`))];
}

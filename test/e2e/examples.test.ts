/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code runs in Node under jest, never inside n8n (it uses Node's own modules, timers, files and the environment); these rules guard the code n8n loads (nodes/, credentials/) */
/**
 * End to end in real n8n: the package is packed and installed the way n8n installs community
 * packages, then every example workflow is imported and executed by the n8n CLI against the
 * sandbox. This proves that every runtime import (zod included) resolves inside n8n.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { seed, startSandbox } from '../helpers/sandbox';
import type { Sandbox } from '../helpers/sandbox';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const n8n = require('../../scripts/n8n.js');

jest.setTimeout(20 * 60 * 1000);

const examplesDir = path.join(__dirname, '..', '..', 'examples');
const example = (name: string) => JSON.parse(fs.readFileSync(path.join(examplesDir, `${name}.json`), 'utf8'));

/** The editor starts these from a schedule or a webhook; the CLI needs a Manual Trigger. */
function withManualTrigger(workflow: { nodes: Array<Record<string, unknown>>; connections: Record<string, unknown> }, triggerName: string, output?: Record<string, unknown>) {
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
		{ id: 'e-2', name: 'Beneficiary', type: 'n8n-nodes-payouts.payoutsBeneficiary', typeVersion: 1, position: [260, 0], parameters: { operation: 'get', beneId: seed.unknownBeneId, options: {} }, credentials: { payoutsApi: { id: 'payoutsSandbox01', name: 'Payouts Sandbox' } } },
	],
	connections: { Start: { main: [[{ node: 'Beneficiary', type: 'main', index: 0 }]] } },
	settings: { executionOrder: 'v1' },
	active: false,
};

let sandbox: Sandbox;
let userFolder: string;
let env: Record<string, string>;

beforeAll(async () => {
	await n8n.ensureRuntime();
	sandbox = await startSandbox({ port: 0 });
	userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'payouts-e2e-'));
	await n8n.installPackage(userFolder);
	env = n8n.n8nEnv(userFolder, { port: await n8n.freePort(), brokerPort: await n8n.freePort() });
	await n8n.importCredential(userFolder, env, sandbox, seed);
	await n8n.importWorkflows(userFolder, env, [
		withManualTrigger(example('incident-check'), 'Every 15 Minutes'),
		example('paylink-status'),
		example('csv-batch-payouts'),
		withManualTrigger(example('oauth-callback'), 'OAuth Redirect URL', { query: { auth_code: seed.authCodes[3] } }),
		unknownBeneficiary,
	]);
});

afterAll(async () => {
	await sandbox?.close();
	if (userFolder) fs.rmSync(userFolder, { recursive: true, force: true });
});

beforeEach(() => sandbox.reset());

async function execute(id: string) {
	const { code, run } = await n8n.executeWorkflow(id, env);
	const output = (node: string, branch = 0) =>
		(run.data.resultData.runData[node]?.[0]?.data?.main?.[branch] ?? []).map((item: { json: Record<string, unknown> }) => item.json);
	return { code, run, output, error: run.data.resultData.error };
}

test('scheduled incident check: one notification message per unresolved incident of today', async () => {
	const { code, output } = await execute('payoutsIncidentCheck');
	expect(code).toBe(0);
	const incidents = output('Unresolved Incidents');
	expect(incidents.length).toBeGreaterThan(0);
	expect(incidents.every((incident: { isResolved: boolean }) => incident.isResolved === false)).toBe(true);
	const messages = output('Notification Message');
	expect(messages).toHaveLength(incidents.length);
	expect(messages[0].message).toMatch(/^Bank incident: .+ \(.+\), [A-Z]+ transfers affected since \d{4}-\d{2}-\d{2}T.+Z, impact (LOW|MEDIUM|HIGH)/);
	expect(n8nTypesUsed(sandbox)).toEqual(['GET /payout/v1/incidents']);
});

test('paylink status into a notification message', async () => {
	const { code, output } = await execute('payoutsPaylinkStatus');
	expect(code).toBe(0);
	expect(output('Notification Message')).toEqual([{ message: `Paylink ${seed.paylinks.active} is ACTIVE: https://payouts.example.com/paylink/paylink_active_1` }]);
});

test('batch payouts from CSV: successes and failures split, the bad row does not stop the batch', async () => {
	const { code, output } = await execute('payoutsCsvBatch');
	expect(code).toBe(0);
	expect(output('Paid')).toEqual([
		{ summary: expect.stringMatching(/^Paid nov_payout_0001: SUCCESS \(reference \d+\)$/), transferId: 'nov_payout_0001', status: 'SUCCESS' },
		{ summary: expect.stringMatching(/^Paid nov_payout_0003: SUCCESS \(reference \d+\)$/), transferId: 'nov_payout_0003', status: 'SUCCESS' },
	]);
	expect(output('Not Paid')).toEqual([
		{ summary: expect.stringContaining('Not paid nov_payout_0002 (BENEUNKNOWN9, 250.50): Beneficiary does not exist [item 1] -> No beneficiary has this'), transferId: 'nov_payout_0002', status: 'ERROR' },
	]);
	expect(sandbox.state().transfers.map((transfer) => transfer.transferId)).toEqual(['nov_payout_0001', 'nov_payout_0003']);
});

test('OAuth callback: the code from the redirect is exchanged for a token', async () => {
	const { code, output } = await execute('payoutsOAuthCallback');
	expect(code).toBe(0);
	const [connected] = output('Connected');
	expect(connected.message).toMatch(/^Connected: verification verification_\d+, token valid until \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
	expect(sandbox.state().usedAuthCodes).toEqual([seed.authCodes[3]]);
});

test('an error stops the run with exit code 1 and the mapped error: name, message, httpCode', async () => {
	const { code, error } = await execute('payoutsE2eError');
	expect(code).toBe(1);
	expect(error).toMatchObject({ name: 'NodeApiError', message: 'Beneficiary does not exist [item 0]', httpCode: '404' });
	expect(error.description).toContain("No beneficiary has this 'Beneficiary ID'");
});

function n8nTypesUsed(service: Sandbox) {
	return [...new Set(service.requests().map((request) => `${request.method} ${request.path}`))];
}

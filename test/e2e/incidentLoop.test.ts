/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code runs in Node under jest, never inside n8n (it uses Node's own modules, timers, files and the environment); these rules guard the code n8n loads (nodes/, credentials/) */
/**
 * The loop closed, in real n8n: the example "guarded CSV batch" (examples/incident-guarded-batch.json)
 * holds the rows that an open bank incident would break and keeps them in an n8n data table; the
 * example "release held payouts" (examples/incident-release-held.json), started by the Payouts
 * Incident Trigger of an active workflow on `resolved`, pays the held rows of that bank and mode
 * with their own Transfer IDs and forgets them. The evidence is the sandbox's ledger.
 *
 * Both run in the n8n server (the Data Table module is not loaded by `n8n execute`).
 *
 * Seeded: an open IMPS incident at HDFC (row 0001, BENEHDFC1, imps: held) and an open RTGS
 * incident at YESB (row 0004, BENEVERIFIED2, rtgs: held, and still held when HDFC resolves).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { seed, startSandbox } from '../helpers/sandbox';
import type { Sandbox } from '../helpers/sandbox';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const n8n = require('../../scripts/n8n.js');

jest.setTimeout(20 * 60 * 1000);

type Json = Record<string, unknown>;
const example = (name: string) => JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'examples', `${name}.json`), 'utf8'));

/** Reads the held rows back through n8n's own Data Table node. */
const readHeld = {
	id: 'payoutsReadHeld',
	name: 'E2E: read held payouts',
	nodes: [
		{ id: 'r-1', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
		{ id: 'r-2', name: 'Held Rows', type: 'n8n-nodes-base.dataTable', typeVersion: 1, position: [240, 0], parameters: { resource: 'row', operation: 'get', dataTableId: { __rl: true, mode: 'name', value: 'payouts_held' }, returnAll: true, filters: {} }, alwaysOutputData: true },
	],
	connections: { Start: { main: [[{ node: 'Held Rows', type: 'main', index: 0 }]] } },
	settings: { executionOrder: 'v1' },
	active: false,
};

let sandbox: Sandbox;
let userFolder: string;
let env: Record<string, string>;
let server: { url: string; stop: () => Promise<void> } | undefined;
let rest: (method: string, route: string, body?: unknown) => Promise<unknown>;

beforeAll(async () => {
	await n8n.ensureRuntime();
	sandbox = await startSandbox({ port: 0 });
	userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'payouts-e2e-incidents-'));
	await n8n.installPackage(userFolder);
	env = n8n.n8nEnv(userFolder, { port: await n8n.freePort(), brokerPort: await n8n.freePort() });
	await n8n.importCredential(userFolder, env, sandbox, seed);
	await n8n.importWorkflows(userFolder, env, [example('incident-guarded-batch'), example('incident-release-held'), readHeld]);
	// The release workflow is active (published) before n8n starts, as a user would leave it.
	await n8n.publishWorkflow(env, 'payoutsReleaseHeld');
	const started = await n8n.startServer(env, path.join(userFolder, 'n8n.log'));
	server = started;
	rest = await n8n.restClient(started.url);
});

afterAll(async () => {
	await server?.stop();
	await sandbox?.close();
	if (userFolder) fs.rmSync(userFolder, { recursive: true, force: true });
});

type RunData = { resultData: { error?: Json; runData: Record<string, Array<{ data?: { main?: Array<Array<{ json: Json }>> } }>> } };

/** A saved execution's run data, read with n8n's own copy of flatted (the form n8n stores it in). */
async function savedRun(id: string) {
	const saved = (await rest('GET', `/executions/${id}`)) as { data: string; status: string; finished: boolean };
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const flatted = require(require.resolve('flatted', { paths: [n8n.RUNTIME_DIR] })) as { parse: (text: string) => unknown };
	return { status: saved.status, data: flatted.parse(saved.data) as RunData };
}

/**
 * Runs a workflow as the editor's "Execute workflow" does, in the n8n server: the Data Table
 * module is loaded by `n8n start`, not by the `n8n execute` command.
 */
async function execute(id: string, trigger: string) {
	const workflowData = await rest('GET', `/workflows/${id}`);
	const { executionId } = (await rest('POST', `/workflows/${id}/run`, { workflowData, triggerToStartFrom: { name: trigger } })) as { executionId: string };
	const run = await until(`execution ${executionId} of ${id}`, async () => {
		const found = await savedRun(executionId).catch(() => undefined);
		return found && !['new', 'running', 'waiting'].includes(found.status) ? found : undefined;
	}, 120);
	const output = (node: string, branch = 0): Json[] => (run.data.resultData.runData[node]?.[0]?.data?.main?.[branch] ?? []).map((item) => item.json);
	return { status: run.status, output, error: run.data.resultData.error };
}

const heldRows = async () => (await execute('payoutsReadHeld', 'Start')).output('Held Rows').filter((row) => row.transferId !== undefined);
const ledger = () => sandbox.state().transfers.map((transfer) => transfer.transferId);

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, seconds: number): Promise<T> {
	const deadline = Date.now() + seconds * 1000;
	for (;;) {
		const value = await probe();
		if (value !== undefined) return value;
		if (Date.now() > deadline) throw new Error(`waited ${seconds} s for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 1000));
	}
}

test('a row held by an open incident is kept, then paid exactly once when the incident is resolved', async () => {
	// 0. The release workflow's trigger polled once on activation: the open incidents are history.
	await until("the trigger's first poll", () => (sandbox.requests().some((request) => request.path === '/payout/v1/incidents') ? true : undefined), 60);

	// 1. The batch: rows at banks with open incidents on their mode are held, the others paid.
	const batch = await execute('payoutsGuardedBatch', 'When Clicking Test');
	expect(batch.error).toBeUndefined();
	expect(batch.status).toBe('success');
	expect(batch.output('Paid').map((row) => [row.transferId, row.status])).toEqual([
		['dec_payout_0002', 'SUCCESS'],
		['dec_payout_0003', 'SUCCESS'],
	]);
	expect(ledger()).toEqual(['dec_payout_0002', 'dec_payout_0003']);
	const held = await heldRows();
	expect(held.map(({ transferId, bankCode, incidentMode, amount, incidentIds }) => ({ transferId, bankCode, incidentMode, amount, incidentIds }))).toEqual([
		{ transferId: 'dec_payout_0001', bankCode: 'HDFC', incidentMode: 'IMPS', amount: 1200, incidentIds: String(seed.incidentBanks.openScheduledImpsAtHdfc.incidentId) },
		{ transferId: 'dec_payout_0004', bankCode: 'YESB', incidentMode: 'RTGS', amount: 2500, incidentIds: String(seed.incidentBanks.openRtgsAtYesb.incidentId) },
	]);

	expect(ledger()).toEqual(['dec_payout_0002', 'dec_payout_0003']);

	// 3. HDFC's IMPS incident is resolved (over the sandbox's HTTP control interface).
	const resolved = await fetch(`${sandbox.baseUrl}/__sandbox/incidents/resolve`, { method: 'POST', body: JSON.stringify({ entityCode: 'HDFC', mode: 'IMPS' }) });
	expect((await resolved.json()).map((incident: Json) => incident.id)).toEqual([seed.incidentBanks.openScheduledImpsAtHdfc.incidentId]);

	// 4. The next poll (at most a minute later) pays the HDFC IMPS row with its own Transfer ID, and forgets it.
	await until('the held row to be paid', () => (ledger().includes('dec_payout_0001') ? true : undefined), 150);
	await until('the paid row to leave the table', async () => ((await heldRows()).length === 1 ? true : undefined), 60);
	expect((await heldRows()).map((row) => row.transferId)).toEqual(['dec_payout_0004']);
	const payment = sandbox.requests().filter((request) => request.path === '/payout/v1.2/requestTransfer' && (request.body as Json).transferId === 'dec_payout_0001');
	expect(payment).toHaveLength(1);
	expect(payment[0].body).toMatchObject({ beneId: seed.beneficiaries.hdfcBank, amount: 1200, transferMode: 'imps' });

	// 5. Paid exactly once, even when the batch is run again: the service refuses the Transfer ID it has.
	const again = await execute('payoutsGuardedBatch', 'When Clicking Test');
	expect(again.output('Not Paid').map((row) => row.transferId)).toEqual(['dec_payout_0001']);
	const transfers = ledger();
	expect(transfers.sort()).toEqual(['dec_payout_0001', 'dec_payout_0002', 'dec_payout_0003']);
	expect(sandbox.state().transfers.find((transfer) => transfer.transferId === 'dec_payout_0001')?.amount).toBe(1200);
	expect((await heldRows()).map((row) => row.transferId)).toEqual(['dec_payout_0004']);
});

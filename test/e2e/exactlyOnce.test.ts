/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- test code runs in Node under jest, never inside n8n (it uses Node's own modules, timers, files and the environment); these rules guard the code n8n loads (nodes/, credentials/) */
/**
 * Exactly once in real n8n: the package installed as n8n installs community packages, workflows
 * executed by n8n's CLI (each execution saved in n8n's database), n8n's execution retry through
 * its REST API (both variants), Retry On Fail, Loop Over Items, and the n8n process killed with
 * SIGKILL in the middle of a batch. The evidence is the sandbox's ledger, not n8n's output.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { seed, startSandbox } from '../helpers/sandbox';
import type { Sandbox } from '../helpers/sandbox';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const n8n = require('../../scripts/n8n.js');

jest.setTimeout(20 * 60 * 1000);

type Json = Record<string, unknown>;
type Row = Json;

const credentials = { payoutsApi: { id: n8n.CREDENTIAL_ID, name: 'Payouts Sandbox' } };

/** Manual Trigger → the rows → one item per row → the transfer node (→ optional loop). */
function batchWorkflow(id: string, rows: Row[], pay: Json, { loop = 0 }: { loop?: number } = {}) {
	const nodes: Json[] = [
		{ id: `${id}-1`, name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
		{ id: `${id}-2`, name: 'Rows', type: 'n8n-nodes-base.set', typeVersion: 3.4, position: [200, 0], parameters: { mode: 'raw', jsonOutput: JSON.stringify({ rows }), options: {} } },
		{ id: `${id}-3`, name: 'One Item per Row', type: 'n8n-nodes-base.splitOut', typeVersion: 1, position: [400, 0], parameters: { fieldToSplitOut: 'rows', options: {} } },
		{ id: `${id}-pay`, name: 'Pay', type: 'n8n-nodes-payouts.payoutsTransfer', typeVersion: 1, position: [800, 0], credentials, ...pay },
	];
	const connections: Json = {
		Start: { main: [[{ node: 'Rows', type: 'main', index: 0 }]] },
		Rows: { main: [[{ node: 'One Item per Row', type: 'main', index: 0 }]] },
	};
	if (loop > 0) {
		nodes.push({ id: `${id}-loop`, name: 'Loop Over Items', type: 'n8n-nodes-base.splitInBatches', typeVersion: 3, position: [600, 0], parameters: { batchSize: loop, options: {} } });
		connections['One Item per Row'] = { main: [[{ node: 'Loop Over Items', type: 'main', index: 0 }]] };
		connections['Loop Over Items'] = { main: [[], [{ node: 'Pay', type: 'main', index: 0 }]] };
		connections.Pay = { main: [[{ node: 'Loop Over Items', type: 'main', index: 0 }]] };
	} else {
		connections['One Item per Row'] = { main: [[{ node: 'Pay', type: 'main', index: 0 }]] };
	}
	return { id, name: `E2E exactly once: ${id}`, nodes, connections, settings: { executionOrder: 'v1' }, active: false };
}

const standardPay = (extra: Json = {}) => ({
	parameters: { operation: 'standardTransfer', beneId: '={{ $json.beneId }}', amount: '={{ $json.amount }}', transferId: '={{ $json.transferId }}', transferMode: 'banktransfer', additionalFields: {}, options: {} },
	...extra,
});
const internalPay = (extra: Json = {}) => ({
	parameters: { operation: 'internalTransfer', amount: '={{ $json.amount }}', rechargeAccount: '={{ $json.account }}', additionalFields: { transferId: '={{ $json.transferId ?? "" }}' }, options: {} },
	...extra,
});
const paid = (transferId: string, amount = 100) => ({ beneId: seed.beneficiaries.verified, amount, transferId });
const topUp = (amount: number, extra: Row = {}) => ({ amount, account: seed.rechargeAccounts.configured, ...extra });

let sandbox: Sandbox;
let userFolder: string;
let env: Record<string, string>;
let server: { url: string; stop: () => Promise<void> };
let rest: (method: string, route: string, body?: unknown) => Promise<unknown>;

const workflows = {
	retryInternal: batchWorkflow('eoRetryInternal', [topUp(11), topUp(12), topUp(13, { transferId: 'eo-retry-row-2' })], internalPay()),
	retryReload: batchWorkflow('eoRetryReload', [topUp(21), topUp(22), topUp(23, { transferId: 'eo-reload-row-2' })], internalPay()),
	retryOnFail: batchWorkflow('eoRetryOnFail', [paid('eo_rof_1'), paid('eo_rof_2'), paid('eo_rof_3')], standardPay({ retryOnFail: true, maxTries: 2, waitBetweenTries: 10 })),
	loop: batchWorkflow('eoLoop', [topUp(31), topUp(32), topUp(33), topUp(34), topUp(35)], internalPay({ retryOnFail: true, maxTries: 2, waitBetweenTries: 10 }), { loop: 2 }),
	killStandard: batchWorkflow('eoKillStandard', Array.from({ length: 6 }, (_, i) => paid(`eo_kill_${i}`, 101 + i)), standardPay()),
	killInternal: batchWorkflow('eoKillInternal', Array.from({ length: 6 }, (_, i) => topUp(41 + i)), internalPay({ onError: 'continueRegularOutput' })),
	secrets: batchWorkflow(
		'eoSecrets',
		[{ card: ` ${seed.cards.success1} `, amount: '10', transferId: 'eo_card_secret' }],
		{ parameters: { operation: 'cardTransfer', token: '={{ $json.card }}', amount: '={{ $json.amount }}', transferId: '={{ $json.transferId }}', cardType: 'CREDIT', additionalFields: {}, options: {} }, onError: 'continueErrorOutput' },
	),
};

beforeAll(async () => {
	await n8n.ensureRuntime();
	// The document does not say the service refuses a repeated internal transferId: assume it books it.
	sandbox = await startSandbox({ port: 0, internalDuplicates: 'book' });
	userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'payouts-e2e-once-'));
	await n8n.installPackage(userFolder);
	// The CLI and the server share the database, each with a task-runner broker port of its own.
	env = n8n.n8nEnv(userFolder, { port: await n8n.freePort(), brokerPort: await n8n.freePort() });
	await n8n.importCredential(userFolder, env, sandbox, seed);
	await n8n.importWorkflows(userFolder, env, Object.values(workflows));
	const serverEnv = n8n.n8nEnv(userFolder, { port: await n8n.freePort(), brokerPort: await n8n.freePort() });
	server = await n8n.startServer(serverEnv, path.join(userFolder, 'n8n.log'));
	rest = await n8n.restClient(server.url);
});

afterAll(async () => {
	await server?.stop();
	await sandbox?.close();
	if (userFolder) fs.rmSync(userFolder, { recursive: true, force: true });
});

beforeEach(() => {
	sandbox.reset();
	sandbox.configure({ internalDuplicates: 'book' });
});

const ledger = () => sandbox.state().transfers as Array<{ transferId: string; amount: number }>;
function expectEachPaidOnce(amounts: number[]) {
	const transfers = ledger();
	expect(new Set(transfers.map((transfer) => transfer.transferId)).size).toBe(transfers.length);
	expect(transfers.map((transfer) => transfer.amount).sort((a, b) => a - b)).toEqual([...amounts].sort((a, b) => a - b));
}

async function execute(id: string) {
	const { code, run } = await n8n.executeWorkflow(id, env);
	return { code, run, pay: payOutput(run), error: run.data.resultData.error as Json | undefined };
}

/** The Pay node's items over all its runs (a loop runs it once per batch). */
function payOutput(run: { data: { resultData: { runData: Record<string, Array<{ data?: { main?: Array<Array<{ json: Json }>> } }>> } } }) {
	return (run.data.resultData.runData.Pay ?? []).flatMap((task) => task.data?.main?.[0] ?? []).map((item) => item.json);
}

async function executionsOf(workflowId: string) {
	const found = (await rest('GET', `/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId }))}`)) as { results: Array<{ id: string; status: string; retryOf: string | null }> };
	return found.results;
}

/** A saved execution's run data, read with n8n's own copy of flatted (the form n8n stores it in). */
async function savedRunData(id: string) {
	const saved = (await rest('GET', `/executions/${id}`)) as { data: string };
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const flatted = require(require.resolve('flatted', { paths: [n8n.RUNTIME_DIR] })) as { parse: (text: string) => unknown };
	return { text: JSON.stringify(saved), data: flatted.parse(saved.data) as { resultData: { runData: Record<string, Array<{ error?: unknown; data?: { main?: Array<Array<{ json: Json }>> } }>> } } };
}

describe("n8n's execution retry (Executions list → Retry) of a batch that stopped at item 2", () => {
	test.each([
		['with the original workflow', 'retryInternal', false, [11, 12, 13], 'eo-retry-row-2'],
		['with the currently saved workflow', 'retryReload', true, [21, 22, 23], 'eo-reload-row-2'],
	] as const)('%s: items 0 and 1 are never paid again, however often it is retried', async (_, key, loadWorkflow, amounts, failingId) => {
		// Item 2 is refused once (no money moves); the retry sends it again.
		sandbox.configure({ faults: [{ fault: 'replay', match: { transferId: failingId }, times: 1, status: 422, body: JSON.stringify({ status: 'ERROR', subCode: '422', message: 'Account not configured; contact the account manager' }) }] });
		const workflowId = workflows[key].id;
		const first = await execute(workflowId);
		expect(first.code).toBe(1);
		expect(String(first.error?.message)).toMatch(/Account not configured.*\[item 2\]/);
		expect(String(first.error?.description)).toMatch(/Items sent in this run: 0 \(SUCCESS\), 1 \(SUCCESS\), 2 \(ERROR\)/);
		expectEachPaidOnce([amounts[0], amounts[1]]);

		const [failed] = await executionsOf(workflowId);
		expect(failed.status).toBe('error');
		await rest('POST', `/executions/${failed.id}/retry`, { loadWorkflow });
		expectEachPaidOnce([...amounts]);
		// Retrying the failed execution again pays nothing more.
		await rest('POST', `/executions/${failed.id}/retry`, { loadWorkflow });
		expectEachPaidOnce([...amounts]);

		const retries = (await executionsOf(workflowId)).filter((saved) => saved.retryOf === failed.id);
		expect(retries.length).toBe(2);
		expect(retries.every((saved) => saved.status === 'success')).toBe(true);
	});
});

test('Retry On Fail with an answer lost after the money moved: every row paid once, none reported paid by guess', async () => {
	sandbox.configure({ faults: [{ fault: 'drop-after', match: { transferId: 'eo_rof_2' }, times: 1 }] });
	const { code, pay } = await execute(workflows.retryOnFail.id);
	expect(code).toBe(0);
	// The retry outputs what it knows: rows answered before are not sent again; the lost one is
	// re-sent with its Transfer ID and refused by the service as a duplicate.
	expect(pay.map((item) => [item.transferId, item.status])).toEqual([
		['eo_rof_1', 'ALREADY_SUBMITTED'],
		['eo_rof_2', 'ALREADY_SUBMITTED'],
		['eo_rof_3', 'SUCCESS'],
	]);
	expect(ledger().map((transfer) => transfer.transferId)).toEqual(['eo_rof_1', 'eo_rof_2', 'eo_rof_3']);
	const sent = sandbox.requests().map((request) => (request.body as { transferId: string }).transferId);
	expect(sent).toEqual(['eo_rof_1', 'eo_rof_2', 'eo_rof_2', 'eo_rof_3']);
});

test('Loop Over Items with internal transfers without a Transfer ID: each batch pays its own rows; the next execution cannot tell and says so', async () => {
	const { code, pay } = await execute(workflows.loop.id);
	expect(code).toBe(0);
	expect(pay.map((item) => item.status)).toEqual(['SUCCESS', 'SUCCESS', 'SUCCESS', 'SUCCESS', 'SUCCESS']);
	expect(new Set(pay.map((item) => item.transferId)).size).toBe(5);
	expectEachPaidOnce([31, 32, 33, 34, 35]);
	// The whole workflow again: the loop shared one top-up round and finished it, and the node
	// cannot tell whether that execution finished: it refuses, says what to set, pays nothing.
	const again = await execute(workflows.loop.id);
	expect(again.code).toBe(1);
	expect(String(again.error?.message)).toMatch(/cannot tell whether this top-up repeats an earlier one.*loop/);
	expect(String(again.error?.description)).toMatch(/'Top-Up Key'/);
	expectEachPaidOnce([31, 32, 33, 34, 35]);
});

/** Starts `n8n execute` and kills the whole n8n process group with SIGKILL once `paidBefore` rows are paid. */
async function executeAndKill(workflowId: string, paidBefore: number) {
	const child = spawn(n8n.N8N_BIN, ['execute', `--id=${workflowId}`, '--rawOutput'], { env, stdio: 'ignore', detached: true });
	const exited = new Promise((resolve) => child.once('exit', resolve));
	const deadline = Date.now() + 120_000;
	while (ledger().length < paidBefore && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
	process.kill(-(child.pid as number), 'SIGKILL');
	await exited;
	return ledger().length;
}

describe('n8n killed with SIGKILL in the middle of a batch, then the batch run again', () => {
	test('standard transfers: the re-run pays only the rows not yet paid, without Continue On Fail', async () => {
		sandbox.configure({ latencyMs: 400 });
		const paidAtKill = await executeAndKill(workflows.killStandard.id, 2);
		expect(paidAtKill).toBeGreaterThanOrEqual(2);
		expect(paidAtKill).toBeLessThan(6);
		// The request in flight at the kill may still be booked by the service after n8n died.
		await new Promise((resolve) => setTimeout(resolve, 600));
		const { code, pay } = await execute(workflows.killStandard.id);
		expect(code).toBe(0);
		expectEachPaidOnce([101, 102, 103, 104, 105, 106]);
		const paidBeforeRerun = new Set(ledger().slice(0, paidAtKill).map((transfer) => transfer.transferId));
		for (const item of pay) {
			// A row paid before the kill is never reported paid again, and a row paid now says SUCCESS.
			if (paidBeforeRerun.has(String(item.transferId))) expect(item.status).toBe('ALREADY_SUBMITTED');
		}
		expect(pay.filter((item) => item.status === 'SUCCESS').length + pay.filter((item) => item.status === 'ALREADY_SUBMITTED').length).toBe(6);
	});

	test('internal transfers (the service may book a repeat): nothing paid twice or shown paid by guess; the unknown rows, settled from the dashboard, complete the batch', async () => {
		sandbox.configure({ latencyMs: 400 });
		await executeAndKill(workflows.killInternal.id, 2);
		await new Promise((resolve) => setTimeout(resolve, 600));
		const { code, pay } = await execute(workflows.killInternal.id);
		expect(code).toBe(0);
		expect(pay).toHaveLength(6);
		const transfers = ledger();
		// Never paid twice; every row reported paid is in the ledger; the rest is UNKNOWN, never guessed.
		expect(new Set(transfers.map((transfer) => transfer.transferId)).size).toBe(transfers.length);
		const booked = new Set(transfers.map((transfer) => transfer.transferId));
		for (const item of pay) {
			if (item.status === 'UNKNOWN') continue;
			expect(['SUCCESS', 'ALREADY_SUBMITTED']).toContain(item.status);
			expect(booked.has(String(item.transferId))).toBe(true);
		}
		const unknown = pay.filter((item) => item.status === 'UNKNOWN');
		for (const item of unknown) expect(String(item.hint)).toMatch(/Look up Transfer ID n8n-[0-9a-f]{36} in the payouts dashboard/);
		// What the dashboard says (the sandbox's ledger), told to the node: the batch completes.
		const outcomes = unknown.map((item) => `${item.transferId} ${booked.has(String(item.transferId)) ? 'paid' : 'not paid'}`).join('\n');
		const saved = (await rest('GET', `/workflows/${workflows.killInternal.id}`)) as { nodes: Array<{ name: string; parameters: Json }>; connections: Json; versionId: string };
		const payNode = saved.nodes.find((node) => node.name === 'Pay') as unknown as { parameters: { options: Json } };
		payNode.parameters.options = { ...payNode.parameters.options, dashboardOutcomes: outcomes };
		await rest('PATCH', `/workflows/${workflows.killInternal.id}`, { nodes: saved.nodes, connections: saved.connections, versionId: saved.versionId });
		const settled = await execute(workflows.killInternal.id);
		expect(settled.code).toBe(0);
		expect(settled.pay.map((item) => item.status).filter((status) => !['SUCCESS', 'ALREADY_SUBMITTED'].includes(String(status)))).toEqual([]);
		expectEachPaidOnce([41, 42, 43, 44, 45, 46]);
	});
});

test("secrets in n8n's saved execution: nothing the node made carries the card token or the bearer token, even when the service echoes them", async () => {
	const echo = `<html>rejected card ${seed.cards.success1} for ${seed.credentials.accessToken}</html>`;
	sandbox.configure({ faults: [{ fault: 'replay', status: 502, contentType: 'text/html', body: echo }] });
	await execute(workflows.secrets.id);
	const [saved] = await executionsOf(workflows.secrets.id);
	const { text, data } = await savedRunData(saved.id);
	expect(text).not.toContain(seed.credentials.accessToken);
	const [task] = data.resultData.runData.Pay;
	expect(task.error).toBeUndefined();
	const [failed] = task.data?.main?.[1] ?? [];
	// The node's part of the error item: redacted, then shortened.
	expect(JSON.stringify(failed.json.error)).not.toContain(seed.cards.success1.slice(0, 8));
	expect(String((failed.json.error as Json).message)).toContain('***');
	// n8n itself adds the input row beside it: the user's own data, as the row holds it.
	expect(failed.json.card).toBe(` ${seed.cards.success1} `);
});

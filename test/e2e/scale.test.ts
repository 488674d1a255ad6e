/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code runs in Node under jest, never inside n8n (it uses Node's own modules, timers, files and the environment); these rules guard the code n8n loads (nodes/, credentials/) */
/**
 * The record of sent transfers at the sizes users run, in real n8n (the default version, SQLite,
 * `n8n start`, workflows run as the editor runs them), judged by the sandbox's ledger: batches
 * past the reach the record had before (n8n's store kept 10,000 marks per node), run again when
 * complete and when stopped, and a weekly top-up. 12,000 rows a batch by default (about three
 * minutes); PAYOUTS_SCALE_ROWS=100000 runs the record at its full reach (about an hour).
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
const ROWS = Number(process.env.PAYOUTS_SCALE_ROWS ?? 12_000);

let sandbox: Sandbox;
let userFolder: string;
let server: { url: string; stop: () => Promise<void> };
let rest: (method: string, route: string, body?: unknown) => Promise<unknown>;

beforeAll(async () => {
	await n8n.ensureRuntime();
	sandbox = await startSandbox({ port: 0, internalDuplicates: 'book' });
	userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'payouts-e2e-scale-'));
	await n8n.installPackage(userFolder);
	const env = n8n.n8nEnv(userFolder, { port: await n8n.freePort(), brokerPort: await n8n.freePort() });
	await n8n.importCredential(userFolder, env, sandbox, seed);
	server = await n8n.startServer(env, path.join(userFolder, 'n8n.log'));
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

const credentials = { payoutsApi: { id: n8n.CREDENTIAL_ID, name: 'Payouts Sandbox' } };
const pays = {
	standard: { operation: 'standardTransfer', beneId: '={{ $json.beneId }}', amount: '={{ $json.amount }}', transferId: '={{ $json.transferId }}', transferMode: 'banktransfer', additionalFields: {}, options: { concurrency: 20 } },
	card: { operation: 'cardTransfer', token: '={{ $json.card }}', amount: '={{ $json.amount }}', transferId: '={{ $json.transferId }}', cardType: 'DEBIT', additionalFields: {}, options: { concurrency: 20 } },
	internal: { operation: 'internalTransfer', amount: '={{ $json.amount }}', rechargeAccount: '={{ $json.account }}', additionalFields: { transferId: '={{ $json.transferId }}' }, options: { concurrency: 20 } },
};

/** Manual Trigger → Code (the rows, from `code`) → Pay; returns the saved workflow's id. */
async function workflow(name: string, pay: Json, code: string): Promise<string> {
	const created = (await rest('POST', '/workflows', {
		name,
		nodes: [
			{ id: `${name}-1`, name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{ id: `${name}-2`, name: 'Rows', type: 'n8n-nodes-base.code', typeVersion: 2, position: [200, 0], parameters: { jsCode: code } },
			{ id: `${name}-3`, name: 'Pay', type: 'n8n-nodes-payouts.payoutsTransfer', typeVersion: 1, position: [400, 0], credentials, parameters: pay },
		],
		connections: { Start: { main: [[{ node: 'Rows', type: 'main', index: 0 }]] }, Rows: { main: [[{ node: 'Pay', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	})) as { id: string };
	return created.id;
}

/** The rows' code changed, as a user editing the sheet the batch comes from. */
async function setRows(workflowId: string, code: string) {
	const saved = (await rest('GET', `/workflows/${workflowId}`)) as { nodes: Array<{ name: string; parameters: Json }>; connections: Json; versionId: string };
	saved.nodes.find((node) => node.name === 'Rows')!.parameters.jsCode = code;
	await rest('PATCH', `/workflows/${workflowId}`, { nodes: saved.nodes, connections: saved.connections, versionId: saved.versionId });
}

/** Runs the saved workflow as the editor's "Execute workflow" does and reads what n8n saved. */
async function run(workflowId: string) {
	const workflowData = await rest('GET', `/workflows/${workflowId}`);
	const { executionId } = (await rest('POST', `/workflows/${workflowId}/run`, { workflowData, triggerToStartFrom: { name: 'Start' } })) as { executionId: string };
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const flatted = require(require.resolve('flatted', { paths: [n8n.RUNTIME_DIR] })) as { parse: (text: string) => unknown };
	for (;;) {
		await new Promise((resolve) => setTimeout(resolve, 1000));
		const saved = (await rest('GET', `/executions/${executionId}`).catch(() => undefined)) as { status: string; data: string } | undefined;
		if (!saved || ['new', 'running', 'waiting'].includes(saved.status)) continue;
		const data = flatted.parse(saved.data) as { resultData: { error?: Json; runData: Record<string, Array<{ data?: { main?: Array<Array<{ json: Json }>> } }>> } };
		const items = (data.resultData.runData.Pay?.[0]?.data?.main?.[0] ?? []).map((item) => item.json);
		const counts: Record<string, number> = {};
		for (const item of items) counts[String(item.status)] = (counts[String(item.status)] ?? 0) + 1;
		const error = data.resultData.error;
		// The status with the error's words, so that a failed assertion says why the run ended so.
		const ended = error ? `${saved.status}: ${String(error.message)} ${String(error.description ?? '')}`.trim() : saved.status;
		return { status: saved.status, ended, items, counts, error };
	}
}

const ledger = () => sandbox.state().transfers;
const posts = () => sandbox.requests().filter((request) => request.method === 'POST').length;
function expectNoTransferIdTwice() {
	const ids = ledger().map((transfer) => transfer.transferId);
	expect(new Set(ids).size).toBe(ids.length);
}
const rowsCode = (row: string, count = ROWS) => `return Array.from({ length: ${count} }, (_, i) => ({ json: ${row} }));`;

test.each([
	['internal', pays.internal, `{ amount: 1 + (i % 9), account: '${seed.rechargeAccounts.configured}', transferId: 'scale-int-' + i }`],
	['standard', pays.standard, `{ beneId: '${seed.beneficiaries.verified}', amount: 1, transferId: 'scale_std_' + i }`],
	['card', pays.card, `{ card: '${seed.cards.success1}', amount: '1.00', transferId: 'scale_card_' + i }`],
] as const)(`${ROWS.toLocaleString('en-US')} %s transfers with Transfer IDs, then the same batch again: every row ALREADY_SUBMITTED, nothing sent`, async (kind, pay, row) => {
	const id = await workflow(`scale-${kind}`, pay, rowsCode(row));
	const first = await run(id);
	expect(first.ended).toBe('success');
	expect(first.counts).toEqual({ SUCCESS: ROWS });
	sandbox.clearRequests();
	const again = await run(id);
	expect(again.ended).toBe('success');
	expect(again.counts).toEqual({ ALREADY_SUBMITTED: ROWS });
	expect(posts()).toBe(0);
	expect(ledger()).toHaveLength(ROWS);
	expectNoTransferIdTwice();
});

test(`${ROWS.toLocaleString('en-US')} internal top-ups without a Transfer ID: stopped half-way, the re-run pays only what was not paid; the completed batch run again is new top-ups`, async () => {
	const good = `{ amount: 1 + (i % 9), account: '${seed.rechargeAccounts.configured}', transferId: '' }`;
	const broken = `(i === ${Math.floor(ROWS / 2)} ? { amount: 5, account: '${seed.rechargeAccounts.unknown}', transferId: '' } : ${good})`;
	const id = await workflow('scale-internal-topups', pays.internal, rowsCode(broken));
	const stopped = await run(id);
	expect(stopped.status).toBe('error');
	expect(String(stopped.error?.message)).toMatch(new RegExp(`Recharge Account not found \\[item ${Math.floor(ROWS / 2)}\\]`));
	const paidBefore = ledger().length;
	expect(paidBefore).toBeGreaterThanOrEqual(Math.floor(ROWS / 2));

	await setRows(id, rowsCode(good));
	const rerun = await run(id);
	expect(rerun.ended).toBe('success');
	expect(rerun.counts).toEqual({ ALREADY_SUBMITTED: paidBefore, SUCCESS: ROWS - paidBefore });
	expect(ledger()).toHaveLength(ROWS);
	expectNoTransferIdTwice();

	// The batch is complete: the same rows again are new top-ups, as next week's run would be.
	const next = await run(id);
	expect(next.ended).toBe('success');
	expect(next.counts).toEqual({ SUCCESS: ROWS });
	expect(ledger()).toHaveLength(2 * ROWS);
	expectNoTransferIdTwice();
});

test('a weekly top-up without a Transfer ID: the saved workflow run twice, as its schedule would, pays twice', async () => {
	const id = await workflow('scale-weekly', { ...pays.internal, options: {} }, rowsCode(`{ amount: 2500, account: '${seed.rechargeAccounts.configured}', transferId: '' }`, 1));
	for (let week = 1; week <= 2; week++) expect((await run(id)).counts).toEqual({ SUCCESS: 1 });
	expect(ledger().map((transfer) => transfer.amount)).toEqual([2500, 2500]);
	expectNoTransferIdTwice();
});

/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code runs in Node under jest, never inside n8n (it writes its figures to stderr); the rule guards the code n8n loads (nodes/, credentials/) */
/**
 * The record of sent transfers at its reach, in real n8n (the default version, SQLite, `n8n start`,
 * workflows run as the editor runs them), judged by the sandbox's ledger: the numbers
 * docs/safety.md states, shown at their size. An internal batch of the reach and 500 more: run
 * again, every row of the reach reads ALREADY_SUBMITTED and nothing is sent, while a dry run says
 * the 500 oldest would be sent (forgotten). A standard batch of what the store keeps (the reach
 * and room for rows in flight) and 500 more, with n8n restarted (nothing in its memory): run again,
 * the last rows of the reach read ALREADY_SUBMITTED, the 500 oldest ALREADY_EXISTS, and nothing is paid twice. About three minutes.
 */
import { RECORD_REACH } from '../../nodes/shared/record';
import { MAX_ENTRIES } from '../../nodes/shared/record/journal';
import { expectRun, n8n, runInServer, suiteN8n } from '../helpers/e2e';
import type { Json, Rest, SuiteN8n } from '../helpers/e2e';
import { seed } from '../helpers/sandbox';
import type { Sandbox } from '../helpers/sandbox';

jest.setTimeout(30 * 60 * 1000);

const BEYOND = 500;
const credentials = { payoutsApi: { id: n8n.CREDENTIAL_ID, name: 'Payouts Sandbox' } };
const pays = {
	standard: { operation: 'standardTransfer', beneId: '={{ $json.beneId }}', amount: '={{ $json.amount }}', transferId: '={{ $json.transferId }}', transferMode: 'banktransfer', additionalFields: {}, options: { concurrency: 20 } },
	internal: { operation: 'internalTransfer', amount: '={{ $json.amount }}', rechargeAccount: '={{ $json.account }}', topUpKey: '={{ $json.key }}', additionalFields: {}, options: { concurrency: 20 } },
};

/** Manual Trigger → Code (the rows of `from` to `to`) → Pay. */
function batch(id: string, pay: Json, row: string, [from, to]: [number, number]) {
	return {
		id,
		name: `E2E scale: ${id}`,
		nodes: [
			{ id: `${id}-1`, name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{ id: `${id}-2`, name: 'Rows', type: 'n8n-nodes-base.code', typeVersion: 2, position: [200, 0], parameters: { jsCode: rowsCode(row, from, to) } },
			{ id: `${id}-3`, name: 'Pay', type: 'n8n-nodes-payouts.payoutsTransfer', typeVersion: 1, position: [400, 0], credentials, parameters: pay },
		],
		connections: { Start: { main: [[{ node: 'Rows', type: 'main', index: 0 }]] }, Rows: { main: [[{ node: 'Pay', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
		active: false,
	};
}
const rowsCode = (row: string, from: number, to: number) => `return Array.from({ length: ${to - from} }, (_, n) => { const i = ${from} + n; return { json: ${row} }; });`;
const rows = {
	internal: `{ amount: 1 + (i % 9), account: '${seed.rechargeAccounts.configured}', key: 'scale-int-' + i }`,
	standard: `{ beneId: '${seed.beneficiaries.verified}', amount: 1, transferId: 'scale_std_' + i }`,
};
const reach = { internal: RECORD_REACH.node, standard: RECORD_REACH.service };
/**
 * A standard transfer is one mark, and the store keeps MAX_ENTRIES (the reach and room for rows in
 * flight): past that the oldest go.
 */
const kept = { standard: MAX_ENTRIES };
const workflows = {
	internal: batch('scaleInternal', pays.internal, rows.internal, [0, reach.internal + BEYOND]),
	standard: batch('scaleStandard', pays.standard, rows.standard, [0, kept.standard + BEYOND]),
};

let suite: SuiteN8n;
let sandbox: Sandbox;
let rest: Rest;

beforeAll(async () => {
	suite = await suiteN8n({ name: 'e2e-scale', sandbox: { internalDuplicates: 'book' }, workflows: Object.values(workflows), server: true });
	sandbox = suite.sandbox;
	rest = suite.rest as Rest;
});

afterAll(async () => suite?.close());

/** The Code node's rows changed, as a user editing the sheet the batch comes from, and Options too. */
async function edit(id: string, [from, to]: [number, number], kind: keyof typeof rows, options: Json = {}) {
	const saved = (await rest('GET', `/workflows/${id}`)) as { nodes: Array<{ name: string; parameters: Json }>; connections: Json; versionId: string };
	saved.nodes.find((node) => node.name === 'Rows')!.parameters.jsCode = rowsCode(rows[kind], from, to);
	const payNode = saved.nodes.find((node) => node.name === 'Pay')!;
	payNode.parameters = { ...payNode.parameters, options: { ...(pays[kind].options as Json), ...options } };
	await rest('PATCH', `/workflows/${id}`, { nodes: saved.nodes, connections: saved.connections, versionId: saved.versionId });
}

async function run(id: string) {
	const execution = await runInServer(rest, id, { seconds: 15 * 60 });
	expectRun(execution, { status: 'success' }, sandbox);
	const items = execution.output('Pay');
	const counts: Record<string, number> = {};
	for (const item of items) counts[String(item.status)] = (counts[String(item.status)] ?? 0) + 1;
	return { items, counts };
}

const posts = () => sandbox.requests().filter((request) => request.method === 'POST').length;
function expectNoTransferIdTwice() {
	const ids = sandbox.state().transfers.map((transfer) => transfer.transferId);
	expect(ids.length - new Set(ids).size).toBe(0);
}

test(`internal transfers: ${(reach.internal + BEYOND).toLocaleString('en-US')} keyed top-ups; the last ${reach.internal.toLocaleString('en-US')} run again read ALREADY_SUBMITTED, nothing sent; beyond the reach, the oldest are forgotten`, async () => {
	const first = await run(workflows.internal.id);
	expect(first.counts).toEqual({ SUCCESS: reach.internal + BEYOND });
	sandbox.clearRequests();
	await edit(workflows.internal.id, [BEYOND, reach.internal + BEYOND], 'internal');
	const again = await run(workflows.internal.id);
	expect(again.counts).toEqual({ ALREADY_SUBMITTED: reach.internal });
	expect(posts()).toBe(0);
	// Past the reach: the record no longer holds the oldest, and a dry run says so (nothing sent, nothing recorded).
	await edit(workflows.internal.id, [0, BEYOND], 'internal', { dryRun: true });
	const dry = await run(workflows.internal.id);
	// The reach is what is promised. Past it, how many of the oldest are gone depends on the marks
	// in flight when the row was full (the re-run's own `open` marks, tokens, this dry run's asks),
	// so both answers are true there (454 of 500 forgotten seen on a loaded machine, 500 before).
	const realRuns = dry.items.map((item) => String(item.realRun));
	expect([...new Set(realRuns)].filter((said) => said !== 'would send' && !said.includes('ALREADY_SUBMITTED'))).toEqual([]);
	// 10,500 transfers fill the row's 21,000 marks exactly, so any mark in flight pushes the oldest
	// out: the very oldest is surely forgotten, oldest first.
	expect(realRuns[0]).toBe('would send');
	process.stderr.write(`[scale test] internal, the ${BEYOND} oldest after ${reach.internal} newer: ${realRuns.filter((said) => said === 'would send').length} forgotten\n`);
	expect(posts()).toBe(0);
	expect(sandbox.state().transfers.filter((transfer) => transfer.transferId.startsWith('scale-int-'))).toHaveLength(reach.internal + BEYOND);
	expectNoTransferIdTwice();
});

test(`standard transfers: ${(kept.standard + BEYOND).toLocaleString('en-US')}, then n8n restarted and the batch run again: the last ${reach.standard.toLocaleString('en-US')} (the reach) ALREADY_SUBMITTED, the ${BEYOND} oldest ALREADY_EXISTS, nothing paid twice`, async () => {
	const first = await run(workflows.standard.id);
	expect(first.counts).toEqual({ SUCCESS: kept.standard + BEYOND });
	// A restart: only n8n's database remembers (this process's answers are gone).
	rest = (await suite.restart()) as Rest;
	const again = await run(workflows.standard.id);
	const statuses = (items: Json[]) => [...new Set(items.map((item) => item.status))];
	// The reach is what is promised; between it and the oldest, the room for rows in flight (the
	// re-run's own claims of the oldest rows take some of it), either answer is true.
	expect(statuses(again.items.slice(-reach.standard))).toEqual(['ALREADY_SUBMITTED']);
	expect(statuses(again.items.slice(0, BEYOND))).toEqual(['ALREADY_EXISTS']);
	expect(Object.keys(again.counts).sort()).toEqual(['ALREADY_EXISTS', 'ALREADY_SUBMITTED']);
	process.stderr.write(`[scale test] standard re-run after a restart: ${JSON.stringify(again.counts)}\n`);
	expect(sandbox.state().transfers.filter((transfer) => transfer.transferId.startsWith('scale_std_'))).toHaveLength(kept.standard + BEYOND);
	expectNoTransferIdTwice();
});

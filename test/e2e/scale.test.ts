/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code runs in Node under jest, never inside n8n (it writes its figures to stderr); the rule guards the code n8n loads (nodes/, credentials/) */
/**
 * The record of sent transfers at its reach, in real n8n (the default version, SQLite, `n8n start`,
 * workflows run as the editor runs them), judged by the sandbox's ledger: the numbers
 * docs/safety.md states, shown at their size.
 * - Report 1 of issue 33: 9,000 keyed top-ups paid, a Dry Run of 3,000 new keys, the 200 oldest run
 *   again: all read ALREADY_SUBMITTED, nothing sent (the Dry Run wrote nothing, evicted nothing).
 * - Then the reach: 2,000 more fill the record (10,500 top-ups of two marks each) and go 500 past
 *   it; the rows whose marks made n8n forget the oldest say so (`recordNote`); the last 10,000 run
 *   again read ALREADY_SUBMITTED, nothing sent; the 500 oldest, more than 10,000 top-ups ago, are
 *   past the reach (paid again, as stated).
 * - A standard batch of what the store keeps and 500 more, with n8n restarted (nothing in its
 *   memory): run again, the last rows of the reach read ALREADY_SUBMITTED, the 500 oldest
 *   ALREADY_EXISTS (the service refuses the repeat: nothing paid twice). About five minutes.
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

/** Manual Trigger → Code (the rows of `from` to `to`) → Pay, which on an error goes on (every row comes out with its status). */
function batch(id: string, pay: Json, row: string, [from, to]: [number, number]) {
	return {
		id,
		name: `E2E scale: ${id}`,
		nodes: [
			{ id: `${id}-1`, name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{ id: `${id}-2`, name: 'Rows', type: 'n8n-nodes-base.code', typeVersion: 2, position: [200, 0], parameters: { jsCode: rowsCode(row, from, to) } },
			{ id: `${id}-3`, name: 'Pay', type: 'n8n-nodes-payouts.payoutsTransfer', typeVersion: 1, position: [400, 0], credentials, onError: 'continueRegularOutput', parameters: pay },
		],
		connections: { Start: { main: [[{ node: 'Rows', type: 'main', index: 0 }]] }, Rows: { main: [[{ node: 'Pay', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
		active: false,
	};
}
const rowsCode = (row: string, from: number, to: number) => `return Array.from({ length: ${to - from} }, (_, n) => { const i = ${from} + n; return { json: ${row} }; });`;
const rows = {
	internal: `{ amount: 1 + (i % 9), account: '${seed.rechargeAccounts.configured}', key: 'scale-int-' + i }`,
	/** Top-ups the Dry Run of report 1 looks at: keys no run pays. */
	dryRunOnly: `{ amount: 1 + (i % 9), account: '${seed.rechargeAccounts.configured}', key: 'scale-new-' + i }`,
	standard: `{ beneId: '${seed.beneficiaries.verified}', amount: 1, transferId: 'scale_std_' + i }`,
};
const reach = { internal: RECORD_REACH.node, standard: RECORD_REACH.service };
/** Report 1 of issue 33, as it was found in real n8n. */
const REPORT_1 = { paid: 9000, dryRun: 3000, oldest: 200 };
/**
 * A paid standard transfer keeps one mark and a paid top-up two, and the store keeps MAX_ENTRIES
 * (the reach and room for rows in flight): past that the oldest go.
 */
const kept = { standard: MAX_ENTRIES, internal: MAX_ENTRIES / 2 };
const workflows = {
	internal: batch('scaleInternal', pays.internal, rows.internal, [0, REPORT_1.paid]),
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
	payNode.parameters = { ...payNode.parameters, options: { ...(pays[kind === 'standard' ? 'standard' : 'internal'].options as Json), ...options } };
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

test('report 1 of issue 33: 9,000 top-ups paid, a Dry Run of 3,000 new keys, the 200 oldest run again: ALREADY_SUBMITTED, nothing paid twice', async () => {
	const first = await run(workflows.internal.id);
	expect(first.counts).toEqual({ SUCCESS: REPORT_1.paid });
	await edit(workflows.internal.id, [0, REPORT_1.dryRun], 'dryRunOnly', { dryRun: true });
	const dry = await run(workflows.internal.id);
	expect(dry.items.map((item) => item.dryRun)).toEqual(Array(REPORT_1.dryRun).fill(true));
	sandbox.clearRequests();
	await edit(workflows.internal.id, [0, REPORT_1.oldest], 'internal');
	const oldest = await run(workflows.internal.id);
	expect(oldest.counts).toEqual({ ALREADY_SUBMITTED: REPORT_1.oldest });
	expect(posts()).toBe(0);
	expect(sandbox.state().transfers.filter((transfer) => transfer.transferId.startsWith('scale-int-'))).toHaveLength(REPORT_1.paid);
	expectNoTransferIdTwice();
});

test(`internal transfers at the reach: ${(kept.internal + BEYOND).toLocaleString('en-US')} top-ups fill the record and the rows that make n8n forget say so; the last ${reach.internal.toLocaleString('en-US')} run again read ALREADY_SUBMITTED; the ${BEYOND} oldest are past the reach`, async () => {
	// After report 1's 9,000: what fills the record, and 500 more.
	await edit(workflows.internal.id, [REPORT_1.paid, kept.internal + BEYOND], 'internal');
	const more = await run(workflows.internal.id);
	expect(more.counts).toEqual({ SUCCESS: kept.internal + BEYOND - REPORT_1.paid });
	// Nearly full: the run says so before n8n forgets anything, and how many it made n8n forget once it does.
	const notes = more.items.map((item) => String(item.recordNote ?? ''));
	expect(notes[0]).toBe('');
	// Which rows' calls pass the limit depends on how the run's calls group the rows (the answered
	// rows' "no clear answer" marks go in between): some do, and say how many they made n8n forget.
	expect(notes.filter((note) => /this run made it forget the oldest [\d,]+\. A repeat of a transfer that old is no longer recognised by this node/.test(note)).length).toBeGreaterThan(0);
	expect(notes.filter((note) => /holds [\d,]+: from 21,000 on/.test(note)).length).toBeGreaterThan(0);
	process.stderr.write(`[scale test] internal, the notes of the run that filled the record: ${notes.filter(Boolean).length} of ${notes.length} rows, the first at row ${notes.findIndex(Boolean)}, ${notes.filter((note) => /made it forget/.test(note)).length} saying it made n8n forget\n`);
	sandbox.clearRequests();
	await edit(workflows.internal.id, [kept.internal + BEYOND - reach.internal, kept.internal + BEYOND], 'internal');
	const again = await run(workflows.internal.id);
	expect(again.counts).toEqual({ ALREADY_SUBMITTED: reach.internal });
	expect(posts()).toBe(0);
	// Past the reach: more than 10,000 top-ups ago, the record may no longer hold them (as stated),
	// and the runs that made n8n forget said so. How many are gone depends on the marks in flight.
	await edit(workflows.internal.id, [0, BEYOND], 'internal');
	const oldest = await run(workflows.internal.id);
	expect(Object.keys(oldest.counts).filter((status) => !['SUCCESS', 'ALREADY_SUBMITTED'].includes(status))).toEqual([]);
	process.stderr.write(`[scale test] internal, the ${BEYOND} oldest after ${reach.internal} newer: ${oldest.counts.SUCCESS ?? 0} forgotten\n`);
	const paidTwice = sandbox.state().transfers.map((transfer) => transfer.transferId).filter((id, index, all) => all.indexOf(id) !== index);
	const oldestIds = new Set(oldest.items.map((item) => String(item.transferId)));
	expect(paidTwice.filter((id) => !oldestIds.has(id))).toEqual([]);
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
	// The first run said, on the rows that made n8n forget the oldest, that it did. Which rows those
	// are depends on how its calls grouped them: the answered rows' tokens, forgotten, make room
	// again, so the last row may find the row just under 21,000 and say how full it is instead.
	const firstNotes = first.items.map((item) => String(item.recordNote ?? ''));
	expect(firstNotes.filter((note) => /this run made it forget the oldest [\d,]+\. A repeat of a transfer that old is no longer recognised by this node/.test(note)).length).toBeGreaterThan(0);
	expect(firstNotes.filter((note) => /^$|made it forget|holds [\d,]+: from 21,000 on/.test(note))).toHaveLength(firstNotes.length);
	process.stderr.write(`[scale test] standard, the notes of the first run: ${firstNotes.filter(Boolean).length} of ${firstNotes.length} rows, ${firstNotes.filter((note) => /made it forget/.test(note)).length} saying it made n8n forget\n`);
	process.stderr.write(`[scale test] standard re-run after a restart: ${JSON.stringify(again.counts)}\n`);
	expect(sandbox.state().transfers.filter((transfer) => transfer.transferId.startsWith('scale_std_'))).toHaveLength(kept.standard + BEYOND);
	expectNoTransferIdTwice();
});

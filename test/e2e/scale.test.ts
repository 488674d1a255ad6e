/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- test code runs in Node under jest, never inside n8n: it reads and writes n8n's SQLite database with the runtime's own sqlite3 and writes its figures to stderr */
/**
 * The record of sent transfers at its reach, in real n8n (the default version, SQLite, `n8n start`,
 * workflows run as the editor runs them), judged by the sandbox's ledger: what docs/safety.md
 * states ("How long the node remembers"), at its size.
 *
 * The record is the workflow's (one row of n8n's processed data, shared by its Payouts Transfer
 * nodes) and never lets n8n drop an entry: past 50,000 entries it takes on no new transfer (a new
 * top-up is refused with nothing sent; a new card or standard transfer is sent without being
 * recorded), and every transfer it holds is still looked up.
 *
 * - 2,500 keyed top-ups and 2,500 standard transfers paid through the workflow's two Payouts
 *   Transfer nodes (7,500 entries).
 * - n8n stopped, and the row filled to 47,000 entries by a test-only write into n8n's processed_data
 *   table (filler entries no transfer uses, standing for about 20,000 earlier top-ups: paying those
 *   would take the suite past 5 minutes), n8n started again.
 * - A Dry Run of 1,000 new keys writes nothing. 2,500 new top-ups: the first are paid, the rows
 *   written from 48,000 entries on say how full it is (`recordNote`), then the record refuses the next
 *   new top-up (ERROR, nothing sent) and the run sends no new one after it; the row never passes
 *   its room, so n8n drops nothing.
 * - The 5,000 oldest transfers run again read ALREADY_SUBMITTED, nothing sent: nothing forgotten.
 * - 500 new standard transfers: each noted; those that find the record at 50,000 entries are sent
 *   without being recorded (SUCCESS, with a note), and run again the service refuses each repeat
 *   (ALREADY_EXISTS): nothing paid twice; the row stays at 50,000 entries, give or take a call's claims.
 * - Then a new top-up in the same workflow is refused, nothing sent.
 * - The refused top-ups, moved to a copy of the workflow (a new record) as the error says, are paid.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

import { expectRun, n8n, runInServer, suiteN8n } from '../helpers/e2e';
import type { Json, Rest, SuiteN8n } from '../helpers/e2e';
import { seed } from '../../harness/sandbox';
import type { Sandbox } from '../../harness/sandbox';

jest.setTimeout(30 * 60 * 1000);

/** docs/safety.md: no new transfer from 50,000 entries; a note on every row written from 48,000. */
const FULL = 50_000;
const NOTE_FROM = 48_000;
/** n8n drops a row's oldest entries past the maxEntries the record passes: it must never get there. */
const N8N_LIMIT = 60_000;
const FILLED_TO = 47_000;
const FIRST = { internal: 2500, standard: 2500 };
const NEW_TOP_UPS = 2500;
const UNRECORDED = 500;

const credentials = { payoutsApi: { id: n8n.CREDENTIAL_ID, name: 'Payouts Sandbox' } };
const pays = {
	internal: {
		operation: 'internalTransfer',
		amount: '={{ $json.amount }}',
		rechargeAccount: '={{ $json.account }}',
		topUpKey: '={{ $json.key }}',
		additionalFields: {},
		options: { concurrency: 20 },
	},
	standard: {
		operation: 'standardTransfer',
		beneId: '={{ $json.beneId }}',
		amount: '={{ $json.amount }}',
		transferId: '={{ $json.transferId }}',
		transferMode: 'banktransfer',
		additionalFields: {},
		options: { concurrency: 20 },
	},
};
type Kind = keyof typeof pays;
const KINDS: Kind[] = ['internal', 'standard'];
const row: Record<Kind, string> = {
	internal: `{ amount: 1 + (i % 9), account: '${seed.rechargeAccounts.configured}', key: 'scale-int-' + i }`,
	standard: `{ beneId: '${seed.beneficiaries.verified}', amount: 1, transferId: 'scale_std_' + i }`,
};
const rowsCode = (kind: Kind, [from, to]: [number, number]) =>
	`return Array.from({ length: ${Math.max(0, to - from)} }, (_, n) => { const i = ${from} + n; return { json: ${row[kind]} }; });`;

/** Manual Trigger → for each kind, Code (the rows) → its Payouts Transfer node, On Error: Continue (every row comes out with its status). */
function workflow(id: string, ranges: Record<Kind, [number, number]>) {
	const nodes: Json[] = [
		{
			id: `${id}-start`,
			name: 'Start',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		},
	];
	const connections: Json = {
		Start: { main: [KINDS.map((kind) => ({ node: `Rows ${kind}`, type: 'main', index: 0 }))] },
	};
	KINDS.forEach((kind, lane) => {
		nodes.push({
			id: `${id}-rows-${kind}`,
			name: `Rows ${kind}`,
			type: 'n8n-nodes-base.code',
			typeVersion: 2,
			position: [220, lane * 200],
			parameters: { jsCode: rowsCode(kind, ranges[kind]) },
		});
		nodes.push({
			id: `${id}-pay-${kind}`,
			name: `Pay ${kind}`,
			type: 'n8n-nodes-payouts.payoutsTransfer',
			typeVersion: 1,
			position: [440, lane * 200],
			credentials,
			onError: 'continueRegularOutput',
			parameters: pays[kind],
		});
		connections[`Rows ${kind}`] = { main: [[{ node: `Pay ${kind}`, type: 'main', index: 0 }]] };
	});
	return {
		id,
		name: `E2E scale: ${id}`,
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
		active: false,
	};
}
const none: [number, number] = [0, 0];
const WORKFLOW = workflow('scaleRecord', {
	internal: [0, FIRST.internal],
	standard: [0, FIRST.standard],
});
const COPY = workflow('scaleRecordCopy', { internal: none, standard: none });

let suite: SuiteN8n;
let sandbox: Sandbox;
let rest: Rest;

beforeAll(async () => {
	suite = await suiteN8n({
		name: 'e2e-scale',
		sandbox: { internalDuplicates: 'book' },
		workflows: [WORKFLOW, COPY],
		server: true,
	});
	sandbox = suite.sandbox;
	rest = suite.rest as Rest;
});

afterAll(async () => suite?.close());

/**
 * n8n's own row of the workflow's record (processed_data, context '' for scope workflow), read, or
 * with `fill` filled up to that many entries with filler, using the runtime's sqlite3 (n8n's own copy).
 */
function recordRow(workflowId: string, fill?: number): number {
	const runtime = n8n.RUNTIME as { dir: string; nodeBin: string };
	const script = `const crypto = require('node:crypto');
const sqlite3 = require(${JSON.stringify(path.join(runtime.dir, 'node_modules', 'sqlite3'))});
const db = new sqlite3.Database(${JSON.stringify(path.join(suite.userFolder, '.n8n', 'database.sqlite'))});
const fill = ${fill === undefined ? 'undefined' : String(fill)};
db.get("SELECT value FROM processed_data WHERE workflowId = ? AND context = ''", [${JSON.stringify(workflowId)}], (error, found) => {
	if (error) { console.error(error.message); process.exit(1); }
	const value = found ? JSON.parse(found.value) : { mode: 'entries', data: [] };
	if (fill === undefined) { process.stdout.write(String(value.data.length)); return; }
	for (let n = 0; value.data.length < fill; n++) value.data.push(crypto.createHash('md5').update('scale-test-filler:' + n).digest('base64'));
	db.run("UPDATE processed_data SET value = ? WHERE workflowId = ? AND context = ''", [JSON.stringify(value), ${JSON.stringify(workflowId)}], (failed) => {
		if (failed) { console.error(failed.message); process.exit(1); }
		process.stdout.write(String(value.data.length));
	});
});`;
	return Number(execFileSync(runtime.nodeBin, ['-e', script], { encoding: 'utf8' }));
}

/**
 * The record's row filled to `entries` from outside n8n, and held: a write of the record still under
 * way (the node writes a state again where another process writes the row, as this fill is) can
 * put back the row it read, so the fill is made again until it holds. Returns the row's size.
 */
async function fillTo(entries: number): Promise<number> {
	for (let attempt = 0; attempt < 20; attempt++) {
		recordRow(WORKFLOW.id, entries);
		await new Promise((resolve) => setTimeout(resolve, 1000));
		const size = recordRow(WORKFLOW.id);
		if (size >= entries) return size;
	}
	throw new Error(`the record's row would not stay filled to ${entries} entries`);
}

/** The Code nodes' rows changed, as a user editing the sheets the batch comes from, and Options too. */
async function edit(
	id: string,
	ranges: Partial<Record<Kind, [number, number]>>,
	options: Json = {},
) {
	const saved = (await rest('GET', `/workflows/${id}`)) as {
		nodes: Array<{ name: string; parameters: Json }>;
		connections: Json;
		versionId: string;
	};
	for (const kind of KINDS) {
		saved.nodes.find((node) => node.name === `Rows ${kind}`)!.parameters.jsCode = rowsCode(
			kind,
			ranges[kind] ?? none,
		);
		const payNode = saved.nodes.find((node) => node.name === `Pay ${kind}`)!;
		payNode.parameters = {
			...payNode.parameters,
			options: { ...(pays[kind].options as Json), ...options },
		};
	}
	await rest('PATCH', `/workflows/${id}`, {
		nodes: saved.nodes,
		connections: saved.connections,
		versionId: saved.versionId,
	});
}

async function run(id: string) {
	const execution = await runInServer(rest, id, { seconds: 15 * 60 });
	expectRun(execution, { status: 'success' }, sandbox);
	const of = (kind: Kind) => {
		const items = execution.output(`Pay ${kind}`);
		const counts: Record<string, number> = {};
		for (const item of items) counts[String(item.status)] = (counts[String(item.status)] ?? 0) + 1;
		return { items, counts };
	};
	return { internal: of('internal'), standard: of('standard') };
}

const posts = () => sandbox.requests().filter((request) => request.method === 'POST').length;
const ledgerIds = () => sandbox.state().transfers.map((transfer) => transfer.transferId);
function expectNoTransferIdTwice() {
	const ids = ledgerIds();
	expect(ids.length - new Set(ids).size).toBe(0);
}
const log = (line: string) => process.stderr.write(`[scale test] ${line}\n`);

/** Set by the first tests for the later ones. */
const found = { newPaid: 0, refused: [] as number[] };

test(`${FIRST.internal.toLocaleString('en-US')} keyed top-ups and ${FIRST.standard.toLocaleString('en-US')} standard transfers through one workflow's two nodes: one record, ${(2 * FIRST.internal + FIRST.standard).toLocaleString('en-US')} entries`, async () => {
	const first = await run(WORKFLOW.id);
	expect({ internal: first.internal.counts, standard: first.standard.counts }).toEqual({
		internal: { SUCCESS: FIRST.internal },
		standard: { SUCCESS: FIRST.standard },
	});
	// A paid top-up keeps two entries, a paid standard transfer one, in the workflow's one row.
	expect(recordRow(WORKFLOW.id)).toBe(2 * FIRST.internal + FIRST.standard);
});

test(`filled to ${FILLED_TO.toLocaleString('en-US')} entries, then ${NEW_TOP_UPS.toLocaleString('en-US')} new top-ups: the first paid, noted from ${NOTE_FROM.toLocaleString('en-US')} entries on, then refused with nothing sent; the row never passes its room`, async () => {
	await (suite.server as { stop: () => Promise<void> }).stop();
	expect(recordRow(WORKFLOW.id, FILLED_TO)).toBe(FILLED_TO);
	rest = await suite.restart();

	// A Dry Run asks nothing of the record, so writes nothing to it.
	await edit(WORKFLOW.id, { internal: [100_000, 101_000] }, { dryRun: true });
	const dry = await run(WORKFLOW.id);
	expect(dry.internal.items.filter((item) => item.dryRun !== true)).toEqual([]);
	expect(recordRow(WORKFLOW.id)).toBe(FILLED_TO);

	sandbox.clearRequests();
	const from = FIRST.internal;
	await edit(WORKFLOW.id, { internal: [from, from + NEW_TOP_UPS] });
	const full = await run(WORKFLOW.id);
	const { items, counts } = full.internal;
	log(
		`${NEW_TOP_UPS} new top-ups past ${FILLED_TO} entries: ${JSON.stringify(counts)}; the row holds ${recordRow(WORKFLOW.id)} entries`,
	);
	const paid = items
		.map((item, index) => (item.status === 'SUCCESS' ? index : -1))
		.filter((index) => index >= 0);
	const refused = items
		.map((item, index) => (item.status !== 'SUCCESS' ? index : -1))
		.filter((index) => index >= 0);
	// Paid up to the room, then none: every row after the first refused one is not sent either.
	expect(paid.length).toBeGreaterThan(0);
	expect(refused.length).toBeGreaterThan(0);
	expect(Object.keys(counts).sort()).toEqual(['ERROR', 'SUCCESS']);
	const full1 = items.find((item) => /record of sent top-ups is full/.test(String(item.error)));
	expect(full1).toMatchObject({
		status: 'ERROR',
		nextStep: 'fixRow',
		hint: expect.stringMatching(/Nothing was sent\. .*copy of this workflow/),
	});
	for (const index of refused)
		expect({ index, nextStep: items[index].nextStep, said: String(items[index].hint) }).toEqual({
			index,
			nextStep: expect.stringMatching(/^(fixRow|runAgain)$/),
			said: expect.stringMatching(/Nothing was sent/),
		});
	// Nothing sent for a refused row: the service saw exactly the paid ones.
	expect(posts()).toBe(paid.length);
	const ids = new Set(ledgerIds());
	expect(refused.filter((index) => ids.has(String(items[index].transferId)))).toEqual([]);
	// The rows written near the end say how full it is.
	const notes = items.map((item) => String(item.recordNote ?? ''));
	expect(
		notes.filter((note) =>
			/holds [\d,]+ entries; from 50,000 on it refuses new top-ups \(nothing sent\)/.test(note),
		).length,
	).toBeGreaterThan(0);
	expect(notes[0]).toBe('');
	// The refusal names the record's size: past 50,000 entries. What the refused claims asked is
	// forgotten again, so the row ends just under it; never past its room: n8n dropped nothing.
	expect(
		Number(/full \(([\d,]+) entries\)/.exec(String(full1?.error))?.[1].replace(/,/g, '')),
	).toBeGreaterThan(FULL);
	const size = recordRow(WORKFLOW.id);
	expect(size).toBeGreaterThan(NOTE_FROM);
	expect(size).toBeLessThan(N8N_LIMIT);
	found.newPaid = paid.length;
	found.refused = refused.map((index) => from + index);
});

test(`the ${(FIRST.internal + FIRST.standard).toLocaleString('en-US')} oldest transfers run again with the record full: every one ALREADY_SUBMITTED, nothing sent (nothing forgotten)`, async () => {
	sandbox.clearRequests();
	await edit(WORKFLOW.id, { internal: [0, FIRST.internal], standard: [0, FIRST.standard] });
	const oldest = await run(WORKFLOW.id);
	expect({ internal: oldest.internal.counts, standard: oldest.standard.counts }).toEqual({
		internal: { ALREADY_SUBMITTED: FIRST.internal },
		standard: { ALREADY_SUBMITTED: FIRST.standard },
	});
	expect(posts()).toBe(0);
	expect(recordRow(WORKFLOW.id)).toBeLessThan(N8N_LIMIT);
	expectNoTransferIdTwice();
});

test(`${UNRECORDED} new standard transfers with the record at its end: each noted, the ones past 50,000 entries sent without being recorded, and run again the service refuses each of those (ALREADY_EXISTS): nothing paid twice, the row never past 50,000 entries by more than a call's claims`, async () => {
	// The row just under its end, whatever the top-ups left (the record keeps its size exactly once
	// it has counted the row): about half of these are recorded, the rest sent unrecorded.
	const before = await fillTo(FULL - UNRECORDED / 2);
	const range: [number, number] = [FIRST.standard, FIRST.standard + UNRECORDED];
	await edit(WORKFLOW.id, { standard: range });
	const sent = await run(WORKFLOW.id);
	const after = recordRow(WORKFLOW.id);
	const notes = sent.standard.items.map((item) => String(item.recordNote ?? ''));
	const unrecorded = notes.filter((note) =>
		/The record of sent transfers is full: this transfer was sent without being recorded/.test(
			note,
		),
	).length;
	const noted = notes.filter((note) =>
		/holds [\d,]+ entries; from 50,000 on it sends new transfers without recording them/.test(note),
	).length;
	log(
		`${UNRECORDED} new standard transfers at ${before} entries: ${JSON.stringify(sent.standard.counts)}; noted ${noted}, sent unrecorded ${unrecorded}, no note ${UNRECORDED - noted - unrecorded}; the row then holds ${after} entries`,
	);
	expect(sent.standard.counts).toEqual({ SUCCESS: UNRECORDED });
	// From 48,000 entries on every row says how full the record is; from 50,000 on new ones go unrecorded.
	expect({ noted, unrecorded, withoutNote: UNRECORDED - noted - unrecorded }).toEqual({
		noted: expect.any(Number),
		unrecorded: expect.any(Number),
		withoutNote: 0,
	});
	expect(unrecorded).toBeGreaterThan(0);
	expect(after).toBeLessThanOrEqual(FULL + 2 * 20);
	const again = await run(WORKFLOW.id);
	log(`the same ${UNRECORDED} again: ${JSON.stringify(again.standard.counts)}`);
	sent.standard.items.forEach((item, index) => {
		const expected = /sent without being recorded/.test(notes[index])
			? ['ALREADY_EXISTS', 'lookUp']
			: ['ALREADY_SUBMITTED', null];
		expect({
			transferId: item.transferId,
			said: [again.standard.items[index].status, again.standard.items[index].nextStep ?? null],
		}).toEqual({ transferId: item.transferId, said: expected });
	});
	expect(
		sandbox.state().transfers.filter((transfer) => transfer.transferId.startsWith('scale_std_')),
	).toHaveLength(FIRST.standard + UNRECORDED);
	expect(recordRow(WORKFLOW.id)).toBeLessThan(N8N_LIMIT);
	expectNoTransferIdTwice();
});

test("then a new top-up in the same workflow is refused, nothing sent: the record, shared by the workflow's nodes, takes on no new transfer past 50,000 entries", async () => {
	sandbox.clearRequests();
	await fillTo(FULL);
	await edit(WORKFLOW.id, { internal: [200_000, 200_010] });
	const more = await run(WORKFLOW.id);
	log(
		`10 new top-ups at ${recordRow(WORKFLOW.id)} entries: ${JSON.stringify(more.internal.counts)}`,
	);
	expect(more.internal.counts).toEqual({ ERROR: 10 });
	expect(posts()).toBe(0);
});

test('the refused top-ups moved to a copy of the workflow (a record of its own), as the error says: each paid once', async () => {
	expect(found.refused.length).toBeGreaterThan(0);
	const [from, to] = [found.refused[0], found.refused[found.refused.length - 1] + 1];
	expect(to - from).toBe(found.refused.length);
	await edit(COPY.id, { internal: [from, to] });
	const moved = await run(COPY.id);
	expect(moved.internal.counts).toEqual({ SUCCESS: to - from });
	// Each moved top-up (its key's row number in the refused range) in the ledger once.
	const movedRows = sandbox
		.state()
		.transfers.map((transfer) => Number(/^scale-int-(\d+)-/.exec(transfer.transferId)?.[1]))
		.filter((index) => index >= from && index < to);
	expect(movedRows.sort((a, b) => a - b)).toEqual(found.refused);
	expectNoTransferIdTwice();
	log(
		`the workflow's record: ${recordRow(WORKFLOW.id)} entries; the copy's: ${recordRow(COPY.id)}`,
	);
});

/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- test code runs in Node under jest, never inside n8n: it reads n8n's SQLite database with the runtime's own sqlite3 */
/**
 * The simulator's model of n8n's processed-data store (harness/processedDataModel.ts) checked against
 * real n8n (the default version, SQLite): one sequence of store calls, made in real n8n by a
 * test-only community node (test/e2e/storeProbe, n8n's own helpers, as the Payouts Transfer
 * node's record calls them) and by the model, must get the same answers and leave the same row
 * (the hashes, oldest first) in n8n's `processed_data` table as in the model. The sequence covers
 * a first insert (a value twice), values new and seen in one call (one twice), eviction of the
 * oldest past maxEntries, forgets of values held, absent and evicted, and counts.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

import { ProcessedDataModel } from '../../harness/processedDataModel';
import { n8n, runWithCli, suiteN8n } from '../helpers/e2e';
import type { Json, SuiteN8n } from '../helpers/e2e';

jest.setTimeout(10 * 60 * 1000);

const MAX = 8;
type Call = { kind: 'check' | 'remove' | 'count'; values: string[]; maxEntries: number };
const check = (...values: string[]): Call => ({ kind: 'check', values, maxEntries: MAX });
const remove = (...values: string[]): Call => ({ kind: 'remove', values, maxEntries: MAX });
const count = (): Call => ({ kind: 'count', values: [], maxEntries: MAX });
const CALLS: Call[] = [
	check('id:a', 'sent:a:p', 'open:a:p', 'id:a'),
	count(),
	check('id:a', 'sent:a:p', 'open:a:p', 'id:b', 'id:b', 'sent:b:q'),
	remove('open:a:p', 'missing', 'open:a:p'),
	check('open:a:p', 'token:1', 'free:a:p:1', 'sent:a:p:2', 'open:a:p:2'),
	count(),
	check('x1', 'x2', 'x3', 'x4'),
	remove('id:a', 'x2'),
	check('id:a', 'id:b', 'x5', 'x6', 'x7', 'x8', 'x9'),
	count(),
	remove('x9', 'never'),
	check('x9'),
	count(),
];

const WORKFLOW = {
	id: 'storeModelProbe',
	name: 'E2E: the store model against real n8n',
	nodes: [
		{
			id: 'sm-1',
			name: 'Start',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		},
		{
			id: 'sm-2',
			name: 'Calls',
			type: 'n8n-nodes-base.code',
			typeVersion: 2,
			position: [200, 0],
			parameters: { jsCode: `return ${JSON.stringify(CALLS.map((call) => ({ json: call })))};` },
		},
		{
			id: 'sm-3',
			name: 'Store Probe',
			type: 'n8n-nodes-store-probe.storeProbe',
			typeVersion: 1,
			position: [400, 0],
			parameters: {},
		},
	],
	connections: {
		Start: { main: [[{ node: 'Calls', type: 'main', index: 0 }]] },
		Calls: { main: [[{ node: 'Store Probe', type: 'main', index: 0 }]] },
	},
	settings: { executionOrder: 'v1' },
	active: false,
};

let suite: SuiteN8n;

beforeAll(async () => {
	suite = await suiteN8n({
		name: 'e2e-store-model',
		workflows: [WORKFLOW],
		packages: [
			{ name: 'n8n-nodes-store-probe', dir: path.join(n8n.ROOT, 'test', 'e2e', 'storeProbe') },
		],
	});
});

afterAll(async () => suite?.close());

/** The node's row in n8n's own database, read with the runtime's sqlite3 (n8n's own copy). */
function rowInN8n(nodeId: string): { mode: string; data: string[] } {
	const runtime = n8n.RUNTIME as { dir: string; nodeBin: string };
	const script = `const sqlite3 = require(${JSON.stringify(path.join(runtime.dir, 'node_modules', 'sqlite3'))});
const db = new sqlite3.Database(${JSON.stringify(path.join(suite.userFolder, '.n8n', 'database.sqlite'))}, sqlite3.OPEN_READONLY);
db.all('SELECT value FROM processed_data WHERE workflowId = ? AND context = ?', [${JSON.stringify(WORKFLOW.id)}, ${JSON.stringify(`n:${nodeId}`)}], (error, rows) => {
	if (error) { console.error(error.message); process.exit(1); }
	process.stdout.write(JSON.stringify(rows.map((row) => row.value)));
});`;
	const [value] = JSON.parse(
		execFileSync(runtime.nodeBin, ['-e', script], { encoding: 'utf8' }),
	) as string[];
	return JSON.parse(value) as { mode: string; data: string[] };
}

test('the same store calls get the same answers and leave the same row in real n8n as in the model', async () => {
	const run = await runWithCli(WORKFLOW.id, suite.env);
	expect(run.code).toBe(0);
	const inN8n = run
		.output('Store Probe')
		.map((item: Json) =>
			item.kind === 'check'
				? { processed: item.processed }
				: item.kind === 'count'
					? { count: item.count }
					: {},
		);

	const model = new ProcessedDataModel();
	const context = { workflow: { id: WORKFLOW.id, active: false }, node: { id: 'sm-3' } } as never;
	const inModel: Json[] = [];
	for (const call of CALLS) {
		const options = { mode: 'entries' as const, maxEntries: call.maxEntries };
		if (call.kind === 'check')
			inModel.push({
				processed: (
					await model.checkProcessedAndRecord(call.values, 'node', context, options)
				).processed.map(String),
			});
		else if (call.kind === 'remove')
			inModel.push((await model.removeProcessed(call.values, 'node', context, options), {}));
		else inModel.push({ count: await model.getProcessedDataCount('node', context, options) });
	}

	expect(inN8n).toEqual(inModel);
	const row = rowInN8n('sm-3');
	expect(row.mode).toBe('entries');
	expect(row.data).toEqual(model.row(WORKFLOW.id, 'sm-3'));
	// The sequence reached what it means to: eviction (the row full) and a forget that found nothing.
	expect(row.data).toHaveLength(MAX);
});

/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions, no-console -- the benchmark is a command-line program run by Node (npm run bench), never loaded by n8n: it reads its settings from the environment, times runs and prints its table; these rules guard the code n8n loads (nodes/, credentials/) */
/**
 * `npm run bench`: throughput and cost of the payouts nodes in n8n's engine (in-process) against
 * the sandbox on loopback with an injected latency L standing for the service, as ratios against
 * baselines measured in the same run: n8n's own HTTP Request node set up as a user would, and a
 * bare HTTP loop at the same concurrency. Prints one table and writes the same figures as JSON.
 *
 *   BENCH_N (2000)  BENCH_LATENCY_MS (30)  BENCH_VALIDATION_ITEMS (100000)  BENCH_MEMORY_ITEMS (50000)
 *   BENCH_GUARD_N (300): items per run of the Incident Guard's cost
 *   BENCH_REAL (1): the part in real n8n (bench/realN8n.ts); BENCH_REAL_BIG (50000): its large batch;
 *   BENCH_QUEUE (1): its queue-mode set-up
 *   BENCH_EVENTS (400): events per stream of the events part (bench/events.ts; 0 skips it);
 *   BENCH_EVENTS_IN_FLIGHT (20); BENCH_EVENTS_HISTORY (20000): earlier transfers before the last stream (the record holds about 25,000 top-ups)
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { DateTime } from 'luxon';
import type { IDataObject, INodeType } from 'n8n-workflow';
import { z } from 'zod';

import { standardTransfer } from '../nodes/PayoutsTransfer/operations/standardTransfer';
import { eventsBench } from './events';
import type { EventRow } from './events';
import { realN8nBench } from './realN8n';
import type { RealRow } from './realN8n';
import { payoutsNode, registerNodeType, runWorkflow, stopEngineTimers } from '../harness/engine';
import type { NodeUnderTest } from '../harness/engine';
import { seed, startSandbox } from '../harness/sandbox';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const n8n = require('../harness');

const N = Number(process.env.BENCH_N ?? 2000);
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 30);
const VALIDATION_ITEMS = Number(process.env.BENCH_VALIDATION_ITEMS ?? 100000);
const MEMORY_ITEMS = Number(process.env.BENCH_MEMORY_ITEMS ?? 50000);
const GUARD_N = Number(process.env.BENCH_GUARD_N ?? 300);
const ROOT = path.join(__dirname, '..');

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

interface Row {
	scenario: string;
	runner: string;
	concurrency: number | 'all';
	items: number;
	seconds: number;
	itemsPerSecond: number;
	vsHttpRequestNode?: number;
	vsBareLoop?: number;
	ofLatencyLimit?: number;
}

/**
 * The bench runs n8n's engine in-process from the devDependency n8n-core of the default n8n; the
 * HTTP Request baseline comes from that n8n's own nodes (harness/n8n-runtime/<default>).
 */
const BASELINE_N8N = n8n.VERSIONS.default;

/** n8n's HTTP Request node, from the installed n8n `dir` (n8n-nodes-base ships with it). */
function loadHttpRequestNode(dir: string): boolean {
	const file = path.join(
		dir,
		'node_modules',
		'n8n-nodes-base',
		'dist',
		'nodes',
		'HttpRequest',
		'HttpRequest.node.js',
	);
	if (!fs.existsSync(file)) return false;
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { HttpRequest } = require(file) as { HttpRequest: new () => INodeType };
	registerNodeType('httpRequest', new HttpRequest(), 'n8n-nodes-base');
	return true;
}

const transferRows = (count: number, prefix: string) =>
	Array.from({ length: count }, (_, index) => ({
		beneId: seed.beneficiaries.verified,
		amount: 1 + (index % 50),
		transferId: `${prefix}_${index}`,
	}));
const beneficiaryRows = (count: number) =>
	Array.from({ length: count }, () => ({ beneId: seed.beneficiaries.verified }));

async function timed(action: () => Promise<number>) {
	const started = process.hrtime.bigint();
	const items = await action();
	return { items, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
}

async function runOurs(sandbox: Sandbox, node: NodeUnderTest, input: IDataObject[]) {
	const credentials = {
		payoutsApi: {
			baseUrl: sandbox.baseUrl,
			verificationUrl: sandbox.verificationUrl,
			...seed.credentials,
		},
	};
	const { output, error } = await runWorkflow({ nodes: [payoutsNode(node)], input, credentials });
	if (error) throw new Error(`the node failed: ${error.message}`);
	return output(node.name ?? 'Payouts').length;
}

async function runHttpRequestNode(
	sandbox: Sandbox,
	kind: 'transfer' | 'beneficiary',
	input: IDataObject[],
) {
	// Set up as a user would: the URL, the bearer header, the JSON body from the item's fields.
	const parameters: IDataObject =
		kind === 'transfer'
			? {
					method: 'POST',
					url: `${sandbox.baseUrl}/payout/v1.2/requestTransfer`,
					sendHeaders: true,
					headerParameters: {
						parameters: [
							{ name: 'Authorization', value: `Bearer ${seed.credentials.accessToken}` },
						],
					},
					sendBody: true,
					specifyBody: 'json',
					jsonBody:
						"={{ JSON.stringify({ beneId: $json.beneId, amount: $json.amount, transferId: $json.transferId, transferMode: 'banktransfer' }) }}",
					options: {},
				}
			: {
					method: 'GET',
					url: `=${sandbox.baseUrl}/payout/v1/getBeneficiary/{{ $json.beneId }}`,
					sendHeaders: true,
					headerParameters: {
						parameters: [
							{ name: 'Authorization', value: `Bearer ${seed.credentials.accessToken}` },
						],
					},
					options: {},
				};
	const node = {
		id: 'http-1',
		name: 'HTTP Request',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position: [0, 0] as [number, number],
		parameters,
	};
	const { output, error } = await runWorkflow({ nodes: [node as never], input });
	if (error) throw new Error(`the HTTP Request node failed: ${error.message}`);
	return output('HTTP Request').length;
}

/** The floor: node's own fetch, the same requests, the same concurrency, nothing else. */
async function runBareLoop(
	sandbox: Sandbox,
	kind: 'transfer' | 'beneficiary',
	input: IDataObject[],
	concurrency: number,
) {
	let next = 0;
	const headers = {
		authorization: `Bearer ${seed.credentials.accessToken}`,
		'content-type': 'application/json',
	};
	const lane = async () => {
		while (next < input.length) {
			const row = input[next++];
			const response =
				kind === 'transfer'
					? await fetch(`${sandbox.baseUrl}/payout/v1.2/requestTransfer`, {
							method: 'POST',
							headers,
							body: JSON.stringify({ ...row, transferMode: 'banktransfer' }),
						})
					: await fetch(`${sandbox.baseUrl}/payout/v1/getBeneficiary/${row.beneId}`, { headers });
			await response.json();
		}
	};
	await Promise.all(Array.from({ length: concurrency }, lane));
	return input.length;
}

function transferNode(concurrency?: number): NodeUnderTest {
	return {
		type: 'payoutsTransfer',
		parameters: {
			operation: 'standardTransfer',
			beneId: '={{ $json.beneId }}',
			amount: '={{ $json.amount }}',
			transferId: '={{ $json.transferId }}',
			transferMode: 'banktransfer',
			additionalFields: {},
			options: concurrency ? { concurrency } : {},
		},
	};
}
function beneficiaryNode(concurrency?: number): NodeUnderTest {
	return {
		type: 'payoutsBeneficiary',
		parameters: {
			operation: 'get',
			beneId: '={{ $json.beneId }}',
			options: concurrency ? { concurrency } : {},
		},
	};
}

async function throughput(sandbox: Sandbox, hasHttpNode: boolean): Promise<Row[]> {
	const rows: Row[] = [];
	const scenarios = [
		{
			scenario: `${N} standard transfers`,
			kind: 'transfer' as const,
			input: (tag: string) => transferRows(N, tag),
			node: transferNode,
			defaultConcurrency: 1,
		},
		{
			scenario: `${N} beneficiary lookups`,
			kind: 'beneficiary' as const,
			input: () => beneficiaryRows(N),
			node: beneficiaryNode,
			defaultConcurrency: 4,
		},
	];
	for (const { scenario, kind, input, node, defaultConcurrency } of scenarios) {
		const add = (
			runner: string,
			concurrency: number | 'all',
			result: { items: number; seconds: number },
		) => {
			const row: Row = {
				scenario,
				runner,
				concurrency,
				items: result.items,
				seconds: result.seconds,
				itemsPerSecond: result.items / result.seconds,
			};
			if (typeof concurrency === 'number')
				row.ofLatencyLimit = row.itemsPerSecond / (concurrency / (LATENCY_MS / 1000));
			rows.push(row);
			console.error(`  ${scenario}, ${runner}: ${row.itemsPerSecond.toFixed(1)} items/s`);
			return row;
		};
		const fresh = () => sandbox.reset() ?? sandbox.configure({ latencyMs: LATENCY_MS });
		fresh();
		const http = hasHttpNode
			? add(
					"n8n's HTTP Request node",
					'all',
					await timed(() => runHttpRequestNode(sandbox, kind, input('http'))),
				)
			: undefined;
		for (const concurrency of [...new Set([1, defaultConcurrency, 20])]) {
			fresh();
			const bare = add(
				'bare HTTP loop',
				concurrency,
				await timed(() => runBareLoop(sandbox, kind, input(`bare${concurrency}`), concurrency)),
			);
			fresh();
			const label = concurrency === defaultConcurrency ? 'payouts node (default)' : 'payouts node';
			const ours = add(
				label,
				concurrency,
				await timed(() =>
					runOurs(
						sandbox,
						node(concurrency === defaultConcurrency ? undefined : concurrency),
						input(`ours${concurrency}`),
					),
				),
			);
			ours.vsBareLoop = ours.itemsPerSecond / bare.itemsPerSecond;
			if (http) ours.vsHttpRequestNode = ours.itemsPerSecond / http.itemsPerSecond;
		}
	}
	return rows;
}

interface GuardRow {
	runner: string;
	items: number;
	seconds: number;
	listings: number;
	lookups: number;
	held: number;
	vsUnguarded?: number;
	extraMillisecondsPerItem?: number;
}

/**
 * (b2) The Incident Guard's cost: the same standard transfers (default concurrency 1) unguarded and
 * guarded, in one run at latency L. The guard lists once per run (13 windows for 90 days) and looks
 * up each distinct beneficiary whose transfer mode has an open incident.
 */
async function guardCost(sandbox: Sandbox): Promise<GuardRow[]> {
	const rows: GuardRow[] = [];
	const guarded = (mode: string, settings?: IDataObject): NodeUnderTest => ({
		type: 'payoutsTransfer',
		parameters: {
			...transferNode().parameters,
			transferMode: mode,
			options: settings ? { incidentGuard: { settings } } : {},
		},
	});
	// verified and verified2 bank at YESB; the seeded open IMPS incident is at HDFC, so nothing is held.
	const input = (tag: string) =>
		transferRows(GUARD_N, tag).map((row, index) => ({
			...row,
			beneId: index % 2 ? seed.beneficiaries.verified2 : seed.beneficiaries.verified,
		}));
	const variants: Array<[string, NodeUnderTest]> = [
		['unguarded (imps)', guarded('imps')],
		[
			'Incident Guard, 90 days, mode and bank (imps: 2 beneficiaries looked up)',
			guarded('imps', {}),
		],
		[
			'Incident Guard, 90 days (banktransfer: no incident on the mode, no lookup)',
			guarded('banktransfer', {}),
		],
		[
			'Incident Guard, 6 days, mode only, HIGH only (imps: one listing request, no lookup)',
			guarded('imps', { lookBackDays: 6, matchBank: false, impacts: 'HIGH' }),
		],
	];
	for (const [runner, node] of variants) {
		sandbox.reset();
		sandbox.configure({ latencyMs: LATENCY_MS });
		const result = await timed(() => runOurs(sandbox, node, input(`guard${rows.length}`)));
		const requests = sandbox.requests();
		const row: GuardRow = {
			runner,
			items: result.items,
			seconds: result.seconds,
			listings: requests.filter((request) => request.path === '/payout/v1/incidents').length,
			lookups: requests.filter((request) => request.path.startsWith('/payout/v1/getBeneficiary/'))
				.length,
			held: GUARD_N - sandbox.state().transfers.length,
		};
		if (rows[0]) {
			row.vsUnguarded = rows[0].seconds / row.seconds;
			row.extraMillisecondsPerItem = ((row.seconds - rows[0].seconds) * 1000) / row.items;
		}
		rows.push(row);
		console.error(`  guard cost, ${runner}: ${(row.items / row.seconds).toFixed(1)} items/s`);
	}
	return rows;
}

/** (c) The node's validation of one standard-transfer item, over many items. */
function validationCost() {
	const clock = { timezone: 'UTC', now: DateTime.utc() };
	const schema = standardTransfer.schema(clock);
	const items = Array.from({ length: VALIDATION_ITEMS }, (_, index) => ({
		beneId: seed.beneficiaries.verified,
		amount: (1 + (index % 5000) / 100).toFixed(2),
		transferId: `v_${index}`,
		transferMode: 'imps',
		remarks: 'November payout',
	}));
	for (let index = 0; index < 2000; index++) schema.safeParse(items[index]);
	const started = process.hrtime.bigint();
	let valid = 0;
	for (const item of items) if (schema.safeParse(item).success) valid++;
	const microseconds = Number(process.hrtime.bigint() - started) / 1000 / items.length;
	if (valid !== items.length) throw new Error('validation benchmark items should all be valid');
	// zod's own floor on this machine: five plain string fields, no rules at all.
	const plain = z.object({
		beneId: z.string(),
		amount: z.string(),
		transferId: z.string(),
		transferMode: z.string(),
		remarks: z.string(),
	});
	const plainStarted = process.hrtime.bigint();
	for (const item of items) plain.safeParse(item);
	const zodFloor = Number(process.hrtime.bigint() - plainStarted) / 1000 / items.length;
	return { items: items.length, microsecondsPerItem: microseconds, zodFloorMicroseconds: zodFloor };
}

/** (d) Loading every node and credential class of the built package, in a fresh process, after what n8n already has loaded. */
function loadTime() {
	execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'ignore' });
	const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
	const files = [...manifest.n8n.nodes, ...manifest.n8n.credentials].map((file: string) =>
		path.join(ROOT, file),
	);
	const script = `require('n8n-workflow'); require('zod'); require('luxon');
const t = process.hrtime.bigint();
for (const file of ${JSON.stringify(files)}) { const m = require(file); for (const C of Object.values(m)) new C(); }
console.log(Number(process.hrtime.bigint() - t) / 1e6);`;
	const runs = Array.from({ length: 5 }, () =>
		Number(execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' }).trim()),
	);
	return { classes: files.length, milliseconds: runs.sort((a, b) => a - b)[2], runs };
}

/** (e) Peak memory, and every input accounted for, for many items through the engine. */
async function memoryAtScale() {
	const sandbox = await startSandbox({ port: 0 });
	try {
		const input = transferRows(MEMORY_ITEMS, 'mem');
		global.gc?.();
		const baseline = process.memoryUsage().rss;
		let peak = baseline;
		const sampler = setInterval(() => {
			peak = Math.max(peak, process.memoryUsage().rss);
		}, 25);
		const result = await timed(() =>
			runOurs(sandbox, { ...transferNode(20), continueOnFail: true }, input),
		);
		clearInterval(sampler);
		const transfers = sandbox.state().transfers.map((transfer) => transfer.transferId);
		return {
			items: MEMORY_ITEMS,
			seconds: result.seconds,
			outputs: result.items,
			transfersAtSandbox: transfers.length,
			distinctTransferIds: new Set(transfers).size,
			peakRssMegabytes: peak / 1024 / 1024,
			rssGrowthMegabytes: (peak - baseline) / 1024 / 1024,
		};
	} finally {
		await sandbox.close();
	}
}

const f = (value: number | undefined, digits = 2) =>
	value === undefined ? '–' : value.toFixed(digits);

async function main() {
	// n8n's HTTP Request node comes with n8n 2.8.4, installed once and cached like `npm start`'s n8n.
	const runtime = await n8n.ensureRuntime(BASELINE_N8N);
	const hasHttpNode = loadHttpRequestNode(runtime.dir);
	if (!hasHttpNode)
		console.error(
			"n8n's HTTP Request node could not be loaded from the pinned n8n; its column stays empty.",
		);
	console.error(
		`Benchmark: N=${N}, latency ${LATENCY_MS} ms, on ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`,
	);
	const sandbox = await startSandbox({ port: 0 });
	let rows: Row[];
	let guard: GuardRow[];
	try {
		rows = await throughput(sandbox, hasHttpNode);
		guard = await guardCost(sandbox);
	} finally {
		await sandbox.close();
	}
	const validation = validationCost();
	const load = loadTime();
	const memory = await memoryAtScale();
	stopEngineTimers();
	const real: RealRow[] =
		process.env.BENCH_REAL === '0'
			? []
			: await realN8nBench({
					n: N,
					big: Number(process.env.BENCH_REAL_BIG ?? 50000),
					latencyMs: LATENCY_MS,
					queueMode: process.env.BENCH_QUEUE !== '0',
				});
	const eventCount = Number(process.env.BENCH_EVENTS ?? 400);
	const events: EventRow[] =
		eventCount > 0 && process.env.BENCH_REAL !== '0'
			? await eventsBench({
					events: eventCount,
					inFlight: Number(process.env.BENCH_EVENTS_IN_FLIGHT ?? 20),
					latencyMs: LATENCY_MS,
					history: Number(process.env.BENCH_EVENTS_HISTORY ?? 20000),
					queueMode: process.env.BENCH_QUEUE !== '0',
					regularMode: true,
				})
			: [];

	const lines = [
		`Machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}; latency L = ${LATENCY_MS} ms; ${new Date().toISOString().slice(0, 10)}`,
		'',
		'| Scenario | Runner | Concurrency | Items/s | vs HTTP Request node | vs bare loop | of latency limit |',
		'|---|---|---|---|---|---|---|',
		...rows.map(
			(row) =>
				`| ${row.scenario} | ${row.runner} | ${row.concurrency} | ${f(row.itemsPerSecond, 1)} | ${f(row.vsHttpRequestNode)} | ${f(row.vsBareLoop)} | ${f(row.ofLatencyLimit)} |`,
		),
		'',
		`Incident Guard: ${GUARD_N} standard transfers per run, concurrency 1, latency L (ratios within this run)`,
		'',
		'| Runner | Items/s | Listing requests | Lookups | Held | vs unguarded | Extra ms per item |',
		'|---|---|---|---|---|---|---|',
		...guard.map(
			(row) =>
				`| ${row.runner} | ${f(row.items / row.seconds, 1)} | ${row.listings} | ${row.lookups} | ${row.held} | ${f(row.vsUnguarded)} | ${f(row.extraMillisecondsPerItem)} |`,
		),
		'',
		`| Cost | Figure |`,
		`|---|---|`,
		`| Validation, standard transfer item (${validation.items} items) | ${f(validation.microsecondsPerItem)} µs per item (zod's floor here, a plain 5-string object: ${f(validation.zodFloorMicroseconds)} µs) |`,
		`| Loading all ${load.classes} node and credential classes (median of 5, fresh process) | ${f(load.milliseconds, 1)} ms |`,
		`| ${memory.items} transfers through the engine (concurrency 20, no latency) | ${f(memory.seconds, 1)} s; peak RSS ${f(memory.peakRssMegabytes, 0)} MB (+${f(memory.rssGrowthMegabytes, 0)} MB); outputs ${memory.outputs}, transfers ${memory.transfersAtSandbox}, distinct IDs ${memory.distinctTransferIds} |`,
		...(real.length === 0
			? []
			: [
					'',
					`In real n8n (the sandbox in a process of its own, latency L; "of latency limit": items/s over 20 / L):`,
					'',
					"| Set-up | Scenario | Runner | Items/s | of latency limit | vs HTTP Request node (batches of 20 / unbounded) | later rows' time vs first | whole batch's rows/s vs its first 2,000's | REST API worst answer | n8n peak RSS |",
					'|---|---|---|---|---|---|---|---|---|---|',
					...real.map(
						(row) =>
							`| ${row.setup} | ${row.scenario} | ${row.runner} | ${f(row.itemsPerSecond, 1)} | ${f(row.ofLatencyLimit)} | ${row.vsHttpBatched === undefined ? '–' : `${f(row.vsHttpBatched)} / ${f(row.vsHttpUnbounded)}`} | ${f(row.laterOverFirst)} | ${f(row.wholeOverFirst)} | ${row.restWorstMs} ms (${row.restWorstWhen}) | ${f(row.peakRssMegabytes, 0)} MB |`,
					),
				]),
		...(events.length === 0
			? []
			: [
					'',
					`Events in real n8n: Webhook → one transfer → answer, ${eventCount} events, ${process.env.BENCH_EVENTS_IN_FLIGHT ?? 20} in flight, latency L (ratios to n8n's HTTP Request node of the same kind, same n8n, unless a row names another):`,
					'',
					'| Set-up | Kind | Workflow | Events/s | p50 | p95 | Events/s vs HTTP Request node | p95 vs HTTP Request node | Answers |',
					'|---|---|---|---|---|---|---|---|---|',
					...events.map(
						(row) =>
							`| ${row.setup} | ${row.kind} | ${row.workflow}${row.baseline ? ` (ratios to ${row.baseline})` : ''} | ${f(row.eventsPerSecond, 1)} | ${row.p50Ms} ms | ${row.p95Ms} ms | ${f(row.vsHttp)} | ${f(row.p95VsHttp)} | ${Object.entries(
								row.statuses,
							)
								.map(([status, count]) => `${status} ${count}`)
								.join(', ')} |`,
					),
				]),
	];
	console.log(lines.join('\n'));
	const results = path.join(ROOT, 'bench', 'results');
	fs.mkdirSync(results, { recursive: true });
	fs.writeFileSync(
		path.join(results, 'latest.json'),
		JSON.stringify(
			{
				date: new Date().toISOString(),
				machine: {
					cpus: os.cpus().length,
					model: os.cpus()[0]?.model,
					memoryGiB: os.totalmem() / 2 ** 30,
					node: process.version,
				},
				settings: { N, LATENCY_MS, VALIDATION_ITEMS, MEMORY_ITEMS, GUARD_N },
				throughput: rows,
				guard,
				validation,
				load,
				memory,
				real,
				events,
			},
			null,
			2,
		),
	);
	console.error(`Figures written to ${path.join(results, 'latest.json')}`);
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});

/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions, no-console -- the benchmark is a command-line program run by Node (npm run bench), never loaded by n8n: it starts processes, reads /proc and times runs; these rules guard the code n8n loads (nodes/, credentials/) */
/**
 * The benchmark's part in real n8n, where the record's cost lives (n8n's database, its event
 * loop): the default n8n (`npm start`'s) with SQLite, and the same in queue mode with Postgres and
 * a worker. The sandbox runs in a process of its own with latency L. In each n8n, in one run:
 * - n8n's HTTP Request node sending the same 2,000 standard transfers (URL, bearer header, JSON
 *   body from the row), kept near 20 in flight (Batching: 20 items, a pause of L) and unbounded;
 * - the payouts node at Concurrency 20, the first 2,000 and the next 2,000 through the same node;
 * - SQLite only: a batch of 50,000 through each (the HTTP Request node first, as the baseline of
 *   how n8n itself slows over it), its first and last rows timed at the sandbox;
 * - n8n's REST API polled every 250 ms throughout (its worst answer, and when), and n8n's peak RSS.
 * Times are the node's own execution time as n8n saved it (the row generator excluded).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { seed } from '../harness/sandbox';
import { profiled, profilingEnv } from './profile';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const n8n = require('../harness');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const queue = require('../scripts/queue.js');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
type Json = Record<string, unknown>;

export interface RealRow {
	setup: string;
	scenario: string;
	runner: string;
	items: number;
	seconds: number;
	itemsPerSecond: number;
	ofLatencyLimit?: number;
	vsHttpBatched?: number;
	vsHttpUnbounded?: number;
	/** The whole batch's rows/s over its first 2,000's (the 50,000-row batch). */
	wholeOverFirst?: number;
	/** Last 1,000 rows' time over the first 1,000's (the 50,000-row batch), or the next 2,000's over the first 2,000's. */
	laterOverFirst?: number;
	restWorstMs: number;
	restWorstWhen: string;
	peakRssMegabytes?: number;
}

interface Target {
	url: string;
	cookie: string;
	/** The n8n processes that run the workflows, for their peak memory. */
	pids: () => number[];
	/** With BENCH_PROFILE_DIR: the process whose CPU profile is taken over each run (bench/profile.ts). */
	profilePid?: number;
}

async function rest(target: Target, method: string, route: string, body?: unknown) {
	for (;;) {
		const response = await fetch(`${target.url}/rest${route}`, {
			method,
			headers: { cookie: target.cookie, 'content-type': 'application/json' },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await response.text();
		if (response.ok) return (JSON.parse(text) as { data: Json }).data;
		if (/starting up/.test(text)) await sleep(1000);
		else throw new Error(`${method} ${route}: HTTP ${response.status} ${text.slice(0, 300)}`);
	}
}

const rowsCode = (count: number, prefix: string) =>
	`return Array.from({ length: ${count} }, (_, i) => ({ json: { beneId: '${seed.beneficiaries.verified}', amount: 1, transferId: '${prefix}' + i } }));`;

async function createWorkflow(target: Target, name: string, last: Json): Promise<string> {
	const created = await rest(target, 'POST', '/workflows', {
		name,
		nodes: [
			{
				id: `${name}-t`,
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: `${name}-r`,
				name: 'Rows',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [200, 0],
				parameters: { jsCode: rowsCode(1, 'x') },
			},
			{ id: `${name}-p`, name: 'Send', position: [400, 0], ...last },
		],
		connections: {
			Start: { main: [[{ node: 'Rows', type: 'main', index: 0 }]] },
			Rows: { main: [[{ node: 'Send', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	});
	return String(created.id);
}

function workflows(sandboxUrl: string, latencyMs: number) {
	const http = (batching: boolean) => ({
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		parameters: {
			method: 'POST',
			url: `${sandboxUrl}/payout/v1.2/requestTransfer`,
			sendHeaders: true,
			headerParameters: {
				parameters: [{ name: 'Authorization', value: `Bearer ${seed.credentials.accessToken}` }],
			},
			sendBody: true,
			specifyBody: 'json',
			jsonBody:
				"={{ JSON.stringify({ beneId: $json.beneId, amount: $json.amount, transferId: $json.transferId, transferMode: 'banktransfer' }) }}",
			options: batching ? { batching: { batch: { batchSize: 20, batchInterval: latencyMs } } } : {},
		},
	});
	return {
		httpBatched: http(true),
		httpUnbounded: http(false),
		payouts: {
			type: 'n8n-nodes-payouts.payoutsTransfer',
			typeVersion: 1,
			credentials: { payoutsApi: { id: n8n.CREDENTIAL_ID, name: 'Payouts Sandbox' } },
			parameters: {
				operation: 'standardTransfer',
				beneId: '={{ $json.beneId }}',
				amount: '={{ $json.amount }}',
				transferId: '={{ $json.transferId }}',
				transferMode: 'banktransfer',
				additionalFields: {},
				options: { concurrency: 20 },
			},
		},
	};
}

/** Runs a workflow with `count` fresh rows; the REST API is polled meanwhile. */
async function timedRun(target: Target, workflowId: string, count: number, prefix: string) {
	const saved = (await rest(target, 'GET', `/workflows/${workflowId}`)) as {
		nodes: Array<{ name: string; parameters: Json }>;
		connections: Json;
		versionId: string;
	};
	saved.nodes.find((node) => node.name === 'Rows')!.parameters.jsCode = rowsCode(count, prefix);
	const workflowData = await rest(target, 'PATCH', `/workflows/${workflowId}`, {
		nodes: saved.nodes,
		connections: saved.connections,
		versionId: saved.versionId,
	});
	let polling = true;
	let worst = { ms: 0, at: 0 };
	const started = Date.now();
	const poller = (async () => {
		while (polling) {
			const sent = Date.now();
			await fetch(`${target.url}/rest/settings`, { headers: { cookie: target.cookie } }).catch(
				() => undefined,
			);
			if (Date.now() - sent > worst.ms) worst = { ms: Date.now() - sent, at: sent - started };
			await sleep(250);
		}
	})();
	const { executionId } = (await rest(target, 'POST', `/workflows/${workflowId}/run`, {
		workflowData,
		triggerToStartFrom: { name: 'Start' },
	})) as { executionId: string };
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const flatted = require(require.resolve('flatted', { paths: [n8n.RUNTIME_DIR] })) as {
		parse: (text: string) => unknown;
	};
	for (;;) {
		await sleep(500);
		const execution = (await rest(target, 'GET', `/executions/${executionId}`).catch(
			() => undefined,
		)) as { status: string; data: string } | undefined;
		if (!execution || ['new', 'running', 'waiting'].includes(execution.status)) continue;
		polling = false;
		await poller;
		const data = flatted.parse(execution.data) as {
			resultData: {
				error?: { message?: string };
				runData: Record<
					string,
					Array<{
						executionTime: number;
						startTime: number;
						data?: { main?: Array<Array<{ json: Json }>> };
					}>
				>;
			};
		};
		const task = data.resultData.runData.Send?.[0];
		const items = task?.data?.main?.[0] ?? [];
		if (execution.status !== 'success' || items.length !== count)
			throw new Error(
				`the ${prefix} run did not send ${count} items: ${execution.status} ${data.resultData.error?.message ?? ''}`,
			);
		// When the worst REST answer came: before, during or after the node ran.
		const nodeStart = (task?.startTime ?? started) - started;
		const nodeEnd = nodeStart + (task?.executionTime ?? 0);
		const when =
			worst.at < nodeStart
				? 'before the node'
				: worst.at <= nodeEnd
					? 'while the node ran'
					: 'after the node (n8n saving the execution)';
		return {
			seconds: (task?.executionTime ?? 0) / 1000,
			restWorstMs: worst.ms,
			restWorstWhen: when,
		};
	}
}

const peakRss = (pids: number[]) =>
	Math.max(
		0,
		...pids.map(
			(pid) =>
				Number(
					/VmHWM:\s+(\d+)/.exec(
						fs.existsSync(`/proc/${pid}/status`)
							? fs.readFileSync(`/proc/${pid}/status`, 'utf8')
							: '',
					)?.[1] ?? 0,
				) / 1024,
		),
	);

/** The times of the sandbox's requests for one prefix, first to last, as the service saw them. */
async function requestTimes(sandboxUrl: string, prefix: string): Promise<number[]> {
	const log = (await (await fetch(`${sandboxUrl}/__sandbox/requests`)).json()) as Array<{
		time: number;
		body?: { transferId?: string };
	}>;
	await fetch(`${sandboxUrl}/__sandbox/requests`, { method: 'DELETE' });
	return log
		.filter((entry) => entry.body?.transferId?.startsWith(prefix))
		.map((entry) => entry.time)
		.sort((a, b) => a - b);
}

async function measure(
	setup: string,
	target: Target,
	sandboxUrl: string,
	options: { n: number; big: number; latencyMs: number; tag: string },
): Promise<RealRow[]> {
	const { n, big, latencyMs, tag } = options;
	const flows = workflows(sandboxUrl, latencyMs);
	const ids = {
		httpBatched: await createWorkflow(target, 'bench-http-batched', flows.httpBatched),
		httpUnbounded: await createWorkflow(target, 'bench-http-unbounded', flows.httpUnbounded),
		payouts: await createWorkflow(target, 'bench-payouts', flows.payouts),
	};
	const rows: RealRow[] = [];
	const timed = async (workflowId: string, count: number, prefix: string) =>
		await profiled(
			target.profilePid,
			`${prefix}${count}`,
			async () => await timedRun(target, workflowId, count, prefix),
		);
	const add = (
		scenario: string,
		runner: string,
		items: number,
		result: { seconds: number; restWorstMs: number; restWorstWhen: string },
		inFlight?: number,
	) => {
		const row: RealRow = {
			setup,
			scenario,
			runner,
			items,
			seconds: result.seconds,
			itemsPerSecond: items / result.seconds,
			restWorstMs: result.restWorstMs,
			restWorstWhen: result.restWorstWhen,
			peakRssMegabytes: peakRss(target.pids()),
		};
		if (inFlight) row.ofLatencyLimit = row.itemsPerSecond / (inFlight / (latencyMs / 1000));
		rows.push(row);
		console.error(
			`  [${setup}] ${scenario}, ${runner}: ${row.itemsPerSecond.toFixed(1)} items/s, REST worst ${row.restWorstMs} ms (${row.restWorstWhen})`,
		);
		return row;
	};
	const batched = add(
		`${n} standard transfers`,
		"n8n's HTTP Request node, batches of 20, pause L",
		n,
		await timed(ids.httpBatched, n, `hb${tag}_`),
		20,
	);
	const unbounded = add(
		`${n} standard transfers`,
		"n8n's HTTP Request node, unbounded",
		n,
		await timed(ids.httpUnbounded, n, `hu${tag}_`),
	);
	const first = add(
		`${n} standard transfers`,
		'payouts node, Concurrency 20',
		n,
		await timed(ids.payouts, n, `pa${tag}_`),
		20,
	);
	const next = add(
		`the next ${n} through the same node`,
		'payouts node, Concurrency 20',
		n,
		await timed(ids.payouts, n, `pb${tag}_`),
		20,
	);
	for (const row of [first, next])
		Object.assign(row, {
			vsHttpBatched: row.itemsPerSecond / batched.itemsPerSecond,
			vsHttpUnbounded: row.itemsPerSecond / unbounded.itemsPerSecond,
		});
	next.laterOverFirst = next.seconds / first.seconds;
	if (big > 0) {
		// The same batch through n8n's HTTP Request node first: how much n8n itself slows over it.
		for (const [workflowId, runner, prefix] of [
			[ids.httpBatched, "n8n's HTTP Request node, batches of 20, pause L", `hbig${tag}_`],
			[ids.payouts, 'payouts node, Concurrency 20', `pbig${tag}_`],
		]) {
			await fetch(`${sandboxUrl}/__sandbox/requests`, { method: 'DELETE' });
			const large = add(`a batch of ${big}`, runner, big, await timed(workflowId, big, prefix), 20);
			Object.assign(large, overTheBatch(await requestTimes(sandboxUrl, prefix)));
			console.error(
				`    the whole batch's rows/s over its first 2,000's (at the sandbox): ${large.wholeOverFirst?.toFixed(2)}; its last 1,000 rows' time over its first 1,000's: ${large.laterOverFirst?.toFixed(2)}`,
			);
		}
	}
	return rows;
}

/** How a batch's pace held, from the times its requests reached the sandbox: the whole batch's rows/s over its first 2,000's, and its last 1,000 rows' time over its first 1,000's. */
function overTheBatch(times: number[]): Pick<RealRow, 'wholeOverFirst' | 'laterOverFirst'> {
	const span = (from: number, to: number) => times[to - 1] - times[from];
	const head = Math.min(2000, times.length);
	return {
		wholeOverFirst: times.length / span(0, times.length) / (head / span(0, head)),
		laterOverFirst: span(times.length - 1000, times.length) / span(0, 1000),
	};
}

/** The sandbox in a process of its own (so its work does not share the benchmark's event loop). */
export function startSandboxProcess(port: number, latencyMs: number) {
	const child = spawn(
		process.execPath,
		[
			path.join(n8n.ROOT, 'scripts', 'sandbox.js'),
			'--port',
			String(port),
			'--latency',
			String(latencyMs),
		],
		{ stdio: 'ignore' },
	);
	return { url: `http://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') };
}

export async function waitFor(url: string) {
	for (let tries = 0; tries < 100; tries++) {
		if (
			await fetch(url)
				.then((response) => response.ok)
				.catch(() => false)
		)
			return;
		await sleep(100);
	}
	throw new Error(`${url} did not answer`);
}

/** Both set-ups, one after the other: n8n with SQLite (with the large batch), then queue mode. */
export async function realN8nBench(options: {
	n: number;
	big: number;
	latencyMs: number;
	queueMode: boolean;
}): Promise<RealRow[]> {
	await n8n.ensureRuntime();
	const rows: RealRow[] = [];
	const port = await n8n.freePort();
	const sandbox = startSandboxProcess(port, options.latencyMs);
	await waitFor(`${sandbox.url}/__sandbox/state`);
	const sandboxRef = { baseUrl: sandbox.url, verificationUrl: sandbox.url };
	try {
		const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'payouts-bench-n8n-'));
		await n8n.installPackage(userFolder);
		// With BENCH_PROFILE_DIR, a CPU profile of n8n's process over each run: where an item's time goes.
		const env = {
			...n8n.n8nEnv(userFolder, { port: await n8n.freePort(), brokerPort: await n8n.freePort() }),
			...profilingEnv(),
		};
		await n8n.importCredential(userFolder, env, sandboxRef, seed);
		const server = await n8n.startServer(env, path.join(userFolder, 'n8n.log'));
		try {
			const cookie = await n8n.ensureOwner(server.url);
			rows.push(
				...(await measure(
					`n8n ${n8n.N8N_VERSION}, SQLite`,
					{ url: server.url, cookie, pids: () => [server.child.pid], profilePid: server.child.pid },
					sandbox.url,
					{ ...options, tag: 's' },
				)),
			);
		} finally {
			await server.stop();
			fs.rmSync(userFolder, { recursive: true, force: true });
		}
		if (options.queueMode) {
			const baseDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payouts-bench-queue-'));
			fs.chmodSync(baseDir, 0o755);
			const stack = await queue.startQueueStack({
				baseDir,
				sandbox: sandboxRef,
				seed,
				workers: 1,
				fast: true,
				workflows: [],
			});
			try {
				const worker = () => [stack.workers[0].child.pid];
				rows.push(
					...(await measure(
						`n8n ${n8n.N8N_VERSION}, queue mode (Postgres, one worker)`,
						{ url: stack.main.url, cookie: stack.cookie, pids: worker },
						sandbox.url,
						{ ...options, big: 0, tag: 'q' },
					)),
				);
			} finally {
				await stack.stop();
				fs.rmSync(baseDir, { recursive: true, force: true });
			}
		}
	} finally {
		sandbox.stop();
	}
	return rows;
}

/** `npx tsx bench/realN8n.ts`: the batch part in real n8n alone. */
if (require.main === module) {
	const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
	realN8nBench({
		n: env('BENCH_N', 2000),
		big: env('BENCH_REAL_BIG', 50000),
		latencyMs: env('BENCH_LATENCY_MS', 30),
		queueMode: process.env.BENCH_QUEUE !== '0',
	})
		.then((rows) => console.log(JSON.stringify(rows, null, 2)))
		.catch((error) => {
			console.error(error);
			process.exit(1);
		});
}

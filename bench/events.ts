/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error, no-console -- the benchmark is a command-line program run by Node (npm run bench), never loaded by n8n: it starts processes and times requests; these rules guard the code n8n loads (nodes/, credentials/) */
/**
 * The benchmark's events part, in real n8n: payouts driven by events, one execution per event,
 * many at once, as a marketplace or billing system sends them. Each workflow is
 * Webhook (respond with the last node) → Split Out (the event's rows, one for an event) → a sender,
 * published and called at its production URL with `inFlight` events at once; the sandbox (its own
 * process) answers after `latencyMs`. In one run, in n8n with SQLite and in queue mode (Postgres,
 * Redis, a main and two workers):
 * - n8n's HTTP Request node posting the same transfer (standard, then internal): the baseline,
 *   n8n's own cost of an execution;
 * - the Payouts Transfer node, standard (Transfer ID from the event) and internal (Top-Up Key =
 *   the event's id), on a new node; the same events delivered again; then after 20,000 earlier
 *   transfers through the same node (events of 10,000 rows) and new events again; in queue mode
 *   internal top-ups only behind the claim (the node's own record holds in one n8n process);
 * - in queue mode, internal top-ups behind a Postgres claim (docs/queue-claims.md: the claims table
 *   of examples/queue-claims.sql, an insert that skips conflicts, only the winner sends, the outcome
 *   written after): n8n's HTTP Request node behind the same claim, then the Payouts Transfer node
 *   (Options > Claim Held by an Earlier Step) on a new node, delivered again, and after the
 *   same number of earlier claims; compared with the HTTP Request node without a claim too.
 * Each figure is events/s (events over the wall time of the whole stream), p50 and p95 of the
 * sender's wait for the answer, and the ratios to the HTTP Request node of the same kind. The
 * sandbox's ledger is checked after each stream: every event paid once.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { seed } from '../harness/sandbox';
import { profiled, profilingEnv } from './profile';
import { startSandboxProcess, waitFor } from './realN8n';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const n8n = require('../harness');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const queue = require('../scripts/queue.js');

type Json = Record<string, unknown>;

export interface EventRow {
	setup: string;
	kind: 'standard' | 'internal';
	workflow: string;
	events: number;
	eventsPerSecond: number;
	p50Ms: number;
	p95Ms: number;
	/** Events/s over the HTTP Request node's of the same kind, in the same n8n. */
	vsHttp?: number;
	/** p95 over the HTTP Request node's p95. */
	p95VsHttp?: number;
	/** What the senders were answered, by status. */
	statuses: Record<string, number>;
	/** The HTTP Request node's workflow the ratios are to, where it is not the plain one of the same kind. */
	baseline?: string;
}

/** Rows per event of the earlier transfers that fill a node's history. */
const FILL_ROWS = 10_000;

const credentials = { payoutsApi: { id: n8n.CREDENTIAL_ID, name: 'Payouts Sandbox' } };

/** The transfer each event asks for, by kind, as the row a Split Out gives. */
const ENDPOINT = {
	standard: '/payout/v1.2/requestTransfer',
	internal: '/payout/v1/internalTransfer',
};
const httpBody = {
	standard:
		"={{ JSON.stringify({ beneId: $json.beneId, amount: $json.amount, transferId: $json.id, transferMode: 'banktransfer' }) }}",
	internal:
		'={{ JSON.stringify({ amount: $json.amount, rechargeAccount: $json.account, transferId: $json.id }) }}',
};
const payoutsParameters = {
	standard: {
		operation: 'standardTransfer',
		beneId: '={{ $json.beneId }}',
		amount: '={{ $json.amount }}',
		transferId: '={{ $json.id }}',
		transferMode: 'banktransfer',
		additionalFields: {},
		options: { concurrency: 20 },
	},
	internal: {
		operation: 'internalTransfer',
		amount: '={{ $json.amount }}',
		rechargeAccount: '={{ $json.account }}',
		topUpKey: '={{ $json.id }}',
		additionalFields: {},
		options: { concurrency: 20 },
	},
};

/** A bench workflow: Webhook (POST, path = its id) → Split Out of `body.rows` → `nodes`, answered by the last node. */
function benchWorkflow(id: string, nodes: Json[], connections: Json): Json {
	return {
		id,
		name: `Bench events: ${id}`,
		active: false,
		settings: { executionOrder: 'v1', saveDataSuccessExecution: 'all' },
		nodes: [
			{
				id: `${id}-w`,
				name: 'Event',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: randomUUID(),
				parameters: { httpMethod: 'POST', path: id, responseMode: 'lastNode', options: {} },
			},
			{
				id: `${id}-s`,
				name: 'Rows',
				type: 'n8n-nodes-base.splitOut',
				typeVersion: 1,
				position: [200, 0],
				parameters: { fieldToSplitOut: 'body.rows', options: {} },
			},
			...nodes,
		],
		connections: { Event: { main: [[{ node: 'Rows', type: 'main', index: 0 }]] }, ...connections },
	};
}

/** Webhook → Split Out → the sender, with a fixed id and path. */
function eventWorkflow(id: string, sender: Json): Json {
	return benchWorkflow(id, [{ id: `${id}-p`, name: 'Send', position: [400, 0], ...sender }], {
		Rows: { main: [[{ node: 'Send', type: 'main', index: 0 }]] },
	});
}

/**
 * Webhook → Split Out → Claim (insert each row's Transfer ID, skipping conflicts) → Won? → the
 * sender → Write the Outcome; a row whose claim is held answers from it (Read the Claim), as the
 * template examples/queue-claim-payout.json does (without its checks and its sender's key).
 */
function claimWorkflow(id: string, sender: Json): Json {
	const postgres = (name: string, query: string, replacement: string, x: number): Json => ({
		id: `${id}-${name.replace(/\W/g, '')}`,
		name,
		type: 'n8n-nodes-base.postgres',
		typeVersion: 2.6,
		position: [x, 0],
		alwaysOutputData: true,
		credentials: {
			postgres: { id: queue.CLAIMS_CREDENTIAL.id, name: queue.CLAIMS_CREDENTIAL.name },
		},
		parameters: { operation: 'executeQuery', query, options: { queryReplacement: replacement } },
	});
	const won: Json = {
		id: `${id}-won`,
		name: 'Won?',
		type: 'n8n-nodes-base.if',
		typeVersion: 2.2,
		position: [600, 0],
		parameters: {
			conditions: {
				options: { caseSensitive: true, leftValue: '', typeValidation: 'loose', version: 2 },
				conditions: [
					{
						id: `${id}-c`,
						leftValue: '={{ $json.won === true }}',
						rightValue: true,
						operator: { type: 'boolean', operation: 'true', singleValue: true },
					},
				],
				combinator: 'and',
			},
			options: {},
		},
	};
	return benchWorkflow(
		id,
		[
			postgres(
				'Claim',
				'INSERT INTO payouts.claims (transfer_id, event_id, amount) VALUES ($1, $1, $2) ON CONFLICT (transfer_id) DO NOTHING RETURNING transfer_id AS id, amount::text AS amount, true AS won;',
				'={{ $json.id }},{{ $json.amount }}',
				400,
			),
			won,
			{ id: `${id}-p`, name: 'Send', position: [800, 0], ...sender },
			postgres(
				'Write the Outcome',
				'UPDATE payouts.claims SET status = $2, answered_at = now() WHERE transfer_id = $1 RETURNING status;',
				"={{ $('Claim').item.json.id }},{{ $json.status }}",
				1000,
			),
			postgres(
				'Read the Claim',
				"SELECT CASE WHEN status IN ('SUCCESS', 'PENDING') THEN 'ALREADY_SUBMITTED' ELSE 'UNKNOWN' END AS status FROM payouts.claims WHERE transfer_id = $1;",
				"={{ $('Rows').item.json.id }}",
				800,
			),
		],
		{
			Rows: { main: [[{ node: 'Claim', type: 'main', index: 0 }]] },
			Claim: { main: [[{ node: 'Won?', type: 'main', index: 0 }]] },
			'Won?': {
				main: [
					[{ node: 'Send', type: 'main', index: 0 }],
					[{ node: 'Read the Claim', type: 'main', index: 0 }],
				],
			},
			Send: { main: [[{ node: 'Write the Outcome', type: 'main', index: 0 }]] },
		},
	);
}

function workflows(sandboxUrl: string) {
	const http = (kind: 'standard' | 'internal'): Json => ({
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		parameters: {
			method: 'POST',
			url: `${sandboxUrl}${ENDPOINT[kind]}`,
			sendHeaders: true,
			headerParameters: {
				parameters: [{ name: 'Authorization', value: `Bearer ${seed.credentials.accessToken}` }],
			},
			sendBody: true,
			specifyBody: 'json',
			jsonBody: httpBody[kind],
			options: {},
		},
	});
	const payouts = (kind: 'standard' | 'internal'): Json => ({
		type: 'n8n-nodes-payouts.payoutsTransfer',
		typeVersion: 1,
		credentials,
		parameters: payoutsParameters[kind],
	});
	// Behind the claim the row is the claim's answer: its Transfer ID (`id`) and amount.
	const claimed = (sender: Json, parameters: Json): Json => ({
		...sender,
		parameters: { ...(sender.parameters as Json), ...parameters },
	});
	return {
		plain: [
			eventWorkflow('benchEvHttpStd', http('standard')),
			eventWorkflow('benchEvHttpInt', http('internal')),
			eventWorkflow('benchEvPayStd', payouts('standard')),
			eventWorkflow('benchEvPayInt', payouts('internal')),
		],
		claim: [
			claimWorkflow(
				'benchEvHttpIntClaim',
				claimed(http('internal'), {
					jsonBody: `={{ JSON.stringify({ amount: Number($json.amount), rechargeAccount: '${seed.rechargeAccounts.configured}', transferId: $json.id }) }}`,
				}),
			),
			claimWorkflow(
				'benchEvPayIntClaim',
				claimed(payouts('internal'), {
					amount: '={{ $json.amount }}',
					rechargeAccount: seed.rechargeAccounts.configured,
					topUpKey: undefined,
					additionalFields: { transferId: '={{ $json.id }}' },
					options: { concurrency: 20, claimHeldEarlier: true },
				}),
			),
		],
	};
}

const row = (kind: 'standard' | 'internal', id: string, index: number) =>
	kind === 'standard'
		? { id, beneId: seed.beneficiaries.verified, amount: 1 + (index % 50) }
		: { id, account: seed.rechargeAccounts.configured, amount: 1 + (index % 50) };

const NO_ANSWER_MS = 120_000;

/** POSTs `ids.length` events, `inFlight` at once; resolves with the wall time and each event's wait. */
async function stream(url: string, kind: 'standard' | 'internal', ids: string[], inFlight: number) {
	const waits: number[] = [];
	/** Each event's wait by the order it was sent, for BENCH_EVENTS_TRACE. */
	const byOrder: number[] = [];
	const failures: string[] = [];
	const statuses: Record<string, number> = {};
	let next = 0;
	const started = Date.now();
	const lane = async () => {
		while (next < ids.length) {
			const index = next++;
			const sent = Date.now();
			// n8n in queue mode now and then never answers a webhook whose execution finished: counted as
			// no answer (the ledger still judges what was paid), not waited for past NO_ANSWER_MS.
			const response = await fetch(url, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ rows: [row(kind, ids[index], index)] }),
				signal: AbortSignal.timeout(NO_ANSWER_MS),
			}).catch(() => undefined);
			if (!response) {
				statuses['no answer'] = (statuses['no answer'] ?? 0) + 1;
				waits.push(NO_ANSWER_MS);
				continue;
			}
			const text = await response.text();
			waits.push(Date.now() - sent);
			byOrder[index] = Date.now() - sent;
			if (!response.ok) {
				statuses[`HTTP ${response.status}`] = (statuses[`HTTP ${response.status}`] ?? 0) + 1;
				failures.push(`HTTP ${response.status} ${text.slice(0, 200)}`);
			} else {
				const status = String((JSON.parse(text) as Json).status ?? 'answered');
				statuses[status] = (statuses[status] ?? 0) + 1;
			}
		}
	};
	await Promise.all(Array.from({ length: inFlight }, lane));
	// A failed execution is a figure of the row (the sender's answer), not the end of the bench: the
	// ledger check after each stream still stops it on an event paid twice or not at all.
	if (failures.length)
		console.error(
			`    ${failures.length} of ${ids.length} events failed at ${url}, e.g. ${failures[0]}`,
		);
	const seconds = (Date.now() - started) / 1000;
	waits.sort((a, b) => a - b);
	// Where the slowest twentieth of the events were in the stream (is the tail its start, or spread?).
	if (process.env.BENCH_EVENTS_TRACE)
		console.error(
			`    slowest 5% (order: ms): ${byOrder
				.map((wait, order) => [order, wait])
				.sort((a, b) => b[1] - a[1])
				.slice(0, Math.ceil(ids.length / 20))
				.map(([order, wait]) => `${order}:${wait}`)
				.join(' ')}`,
		);
	const at = (share: number) => waits[Math.min(waits.length - 1, Math.floor(share * waits.length))];
	return { eventsPerSecond: ids.length / seconds, p50Ms: at(0.5), p95Ms: at(0.95), statuses };
}

async function ledgerCount(sandboxUrl: string, prefix: string) {
	const state = (await (await fetch(`${sandboxUrl}/__sandbox/state`)).json()) as {
		transfers: Array<{ transferId: string }>;
	};
	const matching = state.transfers.filter((transfer) => transfer.transferId.startsWith(prefix));
	return {
		total: matching.length,
		distinct: new Set(matching.map((transfer) => transfer.transferId)).size,
	};
}

async function measureSetup(
	setup: string,
	webhookBase: string,
	sandboxUrl: string,
	options: {
		events: number;
		inFlight: number;
		history: number;
		tag: string;
		queueMode: boolean;
		claims: boolean;
		profilePid?: number;
	},
): Promise<EventRow[]> {
	const { events, inFlight, history, tag } = options;
	const published = [
		'benchEvHttpStd',
		'benchEvHttpInt',
		'benchEvPayStd',
		'benchEvPayInt',
		...(options.claims ? ['benchEvHttpIntClaim', 'benchEvPayIntClaim'] : []),
	];
	for (const id of published) await n8n.waitForWebhook(webhookBase.replace(/\/webhook$/, ''), id);
	const rows: EventRow[] = [];
	const ids = (label: string, count = events) =>
		Array.from({ length: count }, (_, index) => `${tag}${label}${index}`);
	const run = async (
		kind: 'standard' | 'internal',
		workflowId: string,
		workflow: string,
		label: string,
		eventIds = ids(label),
	) => {
		const figures = await profiled(
			options.profilePid,
			`${tag}-${label}-${workflowId}-${rows.length}`,
			async () => await stream(`${webhookBase}/${workflowId}`, kind, eventIds, inFlight),
		);
		const result: EventRow = { setup, kind, workflow, events: eventIds.length, ...figures };
		rows.push(result);
		console.error(
			`  [${setup}] ${kind}, ${workflow}: ${figures.eventsPerSecond.toFixed(1)} events/s, p50 ${figures.p50Ms} ms, p95 ${figures.p95Ms} ms; answers ${JSON.stringify(figures.statuses)}`,
		);
		return result;
	};
	// n8n's own first executions are slower (its code warming up): a stream through the HTTP Request
	// node before the first measured one, so that no workflow measured is the process's first.
	await stream(`${webhookBase}/benchEvHttpStd`, 'standard', ids('warm', 2 * inFlight), inFlight);
	const paidOnce = async (prefix: string, expected: number) => {
		const { total, distinct } = await ledgerCount(sandboxUrl, prefix);
		if (total !== expected || distinct !== expected)
			throw new Error(
				`${prefix}: the ledger holds ${total} transfers (${distinct} distinct), not ${expected}: some event was paid twice or not at all`,
			);
	};
	for (const kind of (process.env.BENCH_KINDS ?? 'standard,internal').split(',') as Array<
		'standard' | 'internal'
	>) {
		const short = kind === 'standard' ? 'Std' : 'Int';
		// The internal Transfer IDs the node makes from a Top-Up Key begin with the key.
		const http = await run(kind, `benchEvHttp${short}`, "n8n's HTTP Request node", `h${short}`);
		const compare = (result: EventRow) =>
			Object.assign(result, {
				vsHttp: result.eventsPerSecond / http.eventsPerSecond,
				p95VsHttp: result.p95Ms / http.p95Ms,
			});
		// BENCH_CLAIMS_ONLY=1: the rows behind a Postgres claim and their baselines only (a shorter run).
		// In queue mode internal top-ups go behind the Postgres claim: the node's own record holds in one process only.
		const claimsOnly =
			kind === 'internal' &&
			options.claims &&
			(process.env.BENCH_CLAIMS_ONLY === '1' || options.queueMode);
		if (!claimsOnly) {
			compare(await run(kind, `benchEvPay${short}`, 'Payouts Transfer, a new node', `p${short}`));
			await paidOnce(`${tag}p${short}`, events);
			compare(
				await run(
					kind,
					`benchEvPay${short}`,
					'Payouts Transfer, the same events delivered again',
					`p${short}`,
				),
			);
			await paidOnce(`${tag}p${short}`, events);
			if (history > 0) {
				// Earlier transfers through the same node, in events of up to FILL_ROWS rows each (one of
				// 50,000 internal rows outlasts the sender's 300-second wait for an answer in queue mode).
				const filled = Date.now();
				const earlier = ids(`f${short}`, history).map((id, index) => row(kind, id, index));
				for (let from = 0; from < earlier.length; from += FILL_ROWS) {
					const response = await fetch(`${webhookBase}/benchEvPay${short}`, {
						method: 'POST',
						headers: { 'content-type': 'application/json' },
						body: JSON.stringify({ rows: earlier.slice(from, from + FILL_ROWS) }),
					});
					if (!response.ok)
						throw new Error(
							`the ${history} earlier transfers failed at row ${from}: HTTP ${response.status} ${(await response.text()).slice(0, 300)}`,
						);
				}
				console.error(
					`  [${setup}] ${kind}: ${history} earlier transfers through the node in ${((Date.now() - filled) / 1000).toFixed(0)} s`,
				);
				compare(
					await run(
						kind,
						`benchEvPay${short}`,
						`Payouts Transfer, after ${history.toLocaleString('en-US')} earlier transfers`,
						`a${short}`,
					),
				);
				await paidOnce(`${tag}a${short}`, events);
			}
		}
		if (kind === 'internal' && options.claims) {
			// Behind a Postgres claim: ratios to the HTTP Request node behind the same claim (the node's
			// own cost), and, printed, to the plain HTTP Request node (what the claim itself costs).
			const claimedHttp = await run(
				kind,
				'benchEvHttpIntClaim',
				"n8n's HTTP Request node behind a Postgres claim",
				'hc',
			);
			Object.assign(claimedHttp, {
				vsHttp: claimedHttp.eventsPerSecond / http.eventsPerSecond,
				p95VsHttp: claimedHttp.p95Ms / http.p95Ms,
			});
			const behindClaim = (result: EventRow) =>
				Object.assign(result, {
					baseline: "n8n's HTTP Request node behind a Postgres claim",
					vsHttp: result.eventsPerSecond / claimedHttp.eventsPerSecond,
					p95VsHttp: result.p95Ms / claimedHttp.p95Ms,
				});
			behindClaim(
				await run(
					kind,
					'benchEvPayIntClaim',
					'Payouts Transfer behind a Postgres claim, a new node',
					'pc',
				),
			);
			await paidOnce(`${tag}pc`, events);
			behindClaim(
				await run(
					kind,
					'benchEvPayIntClaim',
					'Payouts Transfer behind a Postgres claim, the same events delivered again',
					'pc',
				),
			);
			await paidOnce(`${tag}pc`, events);
			if (history > 0) {
				const filled = Date.now();
				const earlier = ids('fc', history).map((id, index) => row(kind, id, index));
				for (let from = 0; from < earlier.length; from += FILL_ROWS) {
					const response = await fetch(`${webhookBase}/benchEvPayIntClaim`, {
						method: 'POST',
						headers: { 'content-type': 'application/json' },
						body: JSON.stringify({ rows: earlier.slice(from, from + FILL_ROWS) }),
					});
					if (!response.ok)
						throw new Error(
							`the ${history} earlier claimed transfers failed at row ${from}: HTTP ${response.status} ${(await response.text()).slice(0, 300)}`,
						);
				}
				await paidOnce(`${tag}fc`, history);
				console.error(
					`  [${setup}] internal behind a claim: ${history} earlier claimed transfers in ${((Date.now() - filled) / 1000).toFixed(0)} s`,
				);
				behindClaim(
					await run(
						kind,
						'benchEvPayIntClaim',
						`Payouts Transfer behind a Postgres claim, after ${history.toLocaleString('en-US')} earlier claims`,
						'ac',
					),
				);
				await paidOnce(`${tag}ac`, events);
			}
		}
	}
	return rows;
}

/** Both set-ups, one after the other: n8n with SQLite, then queue mode with two workers. */
export async function eventsBench(options: {
	events: number;
	inFlight: number;
	latencyMs: number;
	history: number;
	queueMode: boolean;
	regularMode: boolean;
}): Promise<EventRow[]> {
	await n8n.ensureRuntime();
	const rows: EventRow[] = [];
	const sandbox = startSandboxProcess(await n8n.freePort(), options.latencyMs);
	await waitFor(`${sandbox.url}/__sandbox/state`);
	const sandboxRef = { baseUrl: sandbox.url, verificationUrl: sandbox.url };
	const flows = workflows(sandbox.url);
	try {
		const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'payouts-bench-events-'));
		if (options.regularMode)
			try {
				await n8n.installPackage(userFolder);
				const env = n8n.n8nEnv(userFolder, {
					port: await n8n.freePort(),
					brokerPort: await n8n.freePort(),
				});
				// n8n's own database settings, as a user's n8n has them (the test harness pins one SQLite connection).
				delete env.DB_SQLITE_POOL_SIZE;
				// With BENCH_PROFILE_DIR, a CPU profile of n8n's process over each measured stream: where an event's time goes.
				Object.assign(env, profilingEnv());
				await n8n.importCredential(userFolder, env, sandboxRef, seed);
				await n8n.importWorkflows(userFolder, env, flows.plain);
				for (const flow of flows.plain) await n8n.publishWorkflow(env, flow.id);
				const server = await n8n.startServer(env, path.join(userFolder, 'n8n.log'));
				try {
					await n8n.ensureOwner(server.url);
					rows.push(
						...(await measureSetup(
							`n8n ${n8n.N8N_VERSION}, SQLite`,
							`${server.url}/webhook`,
							sandbox.url,
							{
								...options,
								tag: 'es',
								queueMode: false,
								claims: false,
								profilePid: server.child.pid,
							},
						)),
					);
				} finally {
					await server.stop();
				}
			} finally {
				fs.rmSync(userFolder, { recursive: true, force: true });
			}
		if (options.queueMode) {
			const baseDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payouts-bench-events-queue-'));
			fs.chmodSync(baseDir, 0o755);
			const stack = await queue.startQueueStack({
				baseDir,
				sandbox: sandboxRef,
				seed,
				workers: 2,
				workerConcurrency: 10,
				fast: true,
				workflows: [...flows.plain, ...flows.claim],
				publish: [...flows.plain, ...flows.claim].map((flow) => flow.id),
			});
			let failed = false;
			try {
				rows.push(
					...(await measureSetup(
						`n8n ${n8n.N8N_VERSION}, queue mode (Postgres, two workers)`,
						`${stack.main.url}/webhook`,
						sandbox.url,
						{ ...options, tag: 'eq', queueMode: true, claims: true },
					)),
				);
			} catch (error) {
				failed = true;
				console.error(`  queue mode failed; its logs are kept in ${baseDir}`);
				throw error;
			} finally {
				await stack.stop();
				if (!failed) fs.rmSync(baseDir, { recursive: true, force: true });
			}
		}
	} finally {
		sandbox.stop();
	}
	return rows;
}

/** `npx tsx bench/events.ts`: the events part alone. */
if (require.main === module) {
	const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
	eventsBench({
		events: env('BENCH_EVENTS', 400),
		inFlight: env('BENCH_EVENTS_IN_FLIGHT', 20),
		latencyMs: env('BENCH_LATENCY_MS', 30),
		history: env('BENCH_EVENTS_HISTORY', 20000),
		queueMode: process.env.BENCH_QUEUE !== '0',
		regularMode: process.env.BENCH_REGULAR !== '0',
	})
		.then((rows) => console.log(JSON.stringify(rows, null, 2)))
		.catch((error) => {
			console.error(error);
			process.exit(1);
		});
}

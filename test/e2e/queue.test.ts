/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code runs in Node under jest, never inside n8n (it uses Node's own modules, timers, files and the environment); these rules guard the code n8n loads (nodes/, credentials/) */
/**
 * End to end in queue mode: Postgres, Redis, one n8n main and two `n8n worker` processes
 * (scripts/queue.js, the set-up of `npm run start:queue`), the package installed in each process's
 * user folder, against the sandbox. Proves that the examples run on the workers (the worker's own
 * log names the execution), that the incident trigger, which polls on the main, starts one run per
 * new incident across a restart of the main, and that a worker killed mid-batch followed by a
 * re-run of the same batch pays every row exactly once, judged by the sandbox's ledger. Internal
 * top-ups run with Options > Service Refuses Repeated Transfer IDs and a sandbox that refuses a
 * repeat: in queue mode the node's own record guards them in one process only (docs/safety.md,
 * "Regular mode and queue mode"; the Postgres claim is queueClaims.test.ts). Events delivered twice
 * across the workers are judged by what docs/safety.md says the sender hears.
 *
 * Needs Debian's postgresql and redis-server: installed here with apt-get when missing (as root);
 * when they cannot be installed the suite is skipped with a loud message, except under CI.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { seed, startSandbox } from '../../harness/sandbox';
import type { Sandbox } from '../../harness/sandbox';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const n8n = require('../../harness');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const queue = require('../../scripts/queue.js');

// The sender's script of the docs (docs/examples.md, "Signed events").
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { signEvent } = require('../../examples/sign-event.js') as {
	signEvent: (
		url: string,
		body: unknown,
		secret: string,
	) => { body: string; headers: Record<string, string> };
};

// Long: besides its own work, it may wait for another queue-mode suite (one at a time, scripts/queue.js).
jest.setTimeout(45 * 60 * 1000);

type Json = Record<string, unknown>;
type Workflow = {
	id: string;
	name: string;
	nodes: Json[];
	connections: Json;
	[key: string]: unknown;
};

const examplesDir = path.join(__dirname, '..', '..', 'examples');
/** An example as shipped and as `npm start` imports it: the id and the webhooks' paths the harness gives it (the files carry neither). */
const example = (name: string): Workflow => ({
	id: n8n.EXAMPLE_IDS[`${name}.json`],
	...n8n.withWebhookPaths(
		`${name}.json`,
		JSON.parse(fs.readFileSync(path.join(examplesDir, `${name}.json`), 'utf8')),
	),
});

function toolsAvailable() {
	try {
		queue.ensureQueueTools();
		return true;
	} catch (error) {
		const rule = '!'.repeat(78);
		process.stderr.write(
			`\n${rule}\n!! QUEUE-MODE TEST SKIPPED: ${(error as Error).message}\n!! Under CI this is a failure.\n${rule}\n\n`,
		);
		return false;
	}
}
const describeQueue = toolsAvailable() || process.env.CI ? describe : describe.skip;

/** The CSV example with a longer file of good rows only: a batch to kill a worker in. */
const BATCH_ROWS = Array.from({ length: 6 }, (_, index) => ({
	beneId: index % 2 ? seed.beneficiaries.verified2 : seed.beneficiaries.verified,
	amount: 100 + index,
	transferId: `queue_batch_${String(index + 1).padStart(4, '0')}`,
}));
function batchWorkflow(): Workflow {
	const workflow = example('csv-batch-payouts');
	const csv = [
		'beneId,amount,transferId,transferMode',
		...BATCH_ROWS.map(
			(row) => `${row.beneId},${row.amount.toFixed(2)},${row.transferId},banktransfer`,
		),
	].join('\n');
	const nodes = workflow.nodes.map((node) =>
		node.name === 'Payout CSV'
			? {
					...node,
					parameters: {
						assignments: {
							assignments: [{ id: 'cb-2-0', name: 'csv', value: csv, type: 'string' }],
						},
						options: {},
					},
				}
			: node,
	);
	return { ...workflow, id: 'payoutsQueueBatch', name: 'Queue: batch to kill a worker in', nodes };
}

/** The incident trigger, polling every 10 s (seconds listed, not `*`: n8n refuses intervals under a minute written with `*`). */
const triggerWorkflow: Workflow = {
	id: 'payoutsQueueTrigger',
	name: 'Queue: new incidents',
	nodes: [
		{
			id: 'qt-1',
			name: 'New Incidents',
			type: 'n8n-nodes-payouts.payoutsIncidentTrigger',
			typeVersion: 1,
			position: [0, 0],
			// Every minute: n8n 2.41 refuses to activate a polling trigger that polls more often.
			parameters: {
				pollTimes: { item: [{ mode: 'everyMinute' }] },
				events: ['new'],
				filters: {},
				options: {},
			},
			credentials: { payoutsApi: { id: n8n.CREDENTIAL_ID, name: 'Payouts Sandbox' } },
		},
		{
			id: 'qt-2',
			name: 'Received',
			type: 'n8n-nodes-base.noOp',
			typeVersion: 1,
			position: [260, 0],
			parameters: {},
		},
	],
	connections: { 'New Incidents': { main: [[{ node: 'Received', type: 'main', index: 0 }]] } },
	settings: { executionOrder: 'v1' },
	active: false,
};

/**
 * One batch per request: the rows come in the webhook's body, so two requests at once are two
 * executions of the same workflow with overlapping rows (internal transfers keyed by a column, with
 * Service Refuses Repeated Transfer IDs), run by the two workers.
 */
const overlapWorkflow: Workflow = {
	id: 'payoutsQueueOverlap',
	name: 'Queue: overlapping batches',
	nodes: [
		{
			id: 'qo-1',
			name: 'Batch',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, 0],
			webhookId: 'payouts-queue-overlap',
			parameters: {
				httpMethod: 'POST',
				path: 'payouts-queue-overlap',
				responseMode: 'lastNode',
				responseData: 'allEntries',
				options: {},
			},
		},
		{
			id: 'qo-2',
			name: 'Rows',
			type: 'n8n-nodes-base.splitOut',
			typeVersion: 1,
			position: [200, 0],
			parameters: { fieldToSplitOut: 'body.rows', options: {} },
		},
		{
			id: 'qo-3',
			name: 'Pay',
			type: 'n8n-nodes-payouts.payoutsTransfer',
			typeVersion: 1,
			position: [400, 0],
			onError: 'continueRegularOutput',
			credentials: { payoutsApi: { id: n8n.CREDENTIAL_ID, name: 'Payouts Sandbox' } },
			// Queue mode: the service is the guard (the node's record holds in one process only).
			parameters: {
				operation: 'internalTransfer',
				amount: '={{ $json.amount }}',
				rechargeAccount: '={{ $json.account }}',
				topUpKey: '={{ $json.key }}',
				additionalFields: {},
				options: { concurrency: 5, serviceRefusesRepeats: true },
			},
		},
	],
	connections: {
		Batch: { main: [[{ node: 'Rows', type: 'main', index: 0 }]] },
		Rows: { main: [[{ node: 'Pay', type: 'main', index: 0 }]] },
	},
	settings: { executionOrder: 'v1' },
	active: false,
};

/** Webhook (one event, answered with the payout's item) → Pay: one execution per event, keyed by the event's id. */
function eventWorkflow(id: string, parameters: Json): Workflow {
	return {
		id,
		name: `Queue: events, ${id}`,
		nodes: [
			{
				id: `${id}-1`,
				name: 'Event',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: `${id}-hook`,
				parameters: { httpMethod: 'POST', path: id, responseMode: 'lastNode', options: {} },
			},
			{
				id: `${id}-2`,
				name: 'Pay',
				type: 'n8n-nodes-payouts.payoutsTransfer',
				typeVersion: 1,
				position: [220, 0],
				onError: 'continueRegularOutput',
				credentials: { payoutsApi: { id: n8n.CREDENTIAL_ID, name: 'Payouts Sandbox' } },
				parameters,
			},
		],
		connections: { Event: { main: [[{ node: 'Pay', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
		active: false,
	};
}
const eventWorkflows = {
	standard: eventWorkflow('payoutsQueueEventsStd', {
		operation: 'standardTransfer',
		beneId: seed.beneficiaries.verified,
		amount: '={{ $json.body.amount }}',
		transferId: '={{ $json.body.eventId }}',
		transferMode: 'banktransfer',
		additionalFields: {},
		options: {},
	}),
	internal: eventWorkflow('payoutsQueueEventsInt', {
		operation: 'internalTransfer',
		amount: '={{ $json.body.amount }}',
		rechargeAccount: seed.rechargeAccounts.configured,
		topUpKey: '={{ $json.body.eventId }}',
		additionalFields: {},
		options: { serviceRefusesRepeats: true },
	}),
};

let sandbox: Sandbox;
let baseDir: string;
/** Set by a check that fails for a reason n8n's logs may hold: the logs are kept, and the failure says where. */
let keepLogs = false;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
let stack: any;
const setupStarted = Date.now();
/** When the incident trigger had polled once (in the set-up). */
let triggerPolledAt = 0;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until<T>(
	what: string,
	check: () => Promise<T | undefined> | T | undefined,
	timeoutSeconds = 60,
): Promise<T> {
	const deadline = Date.now() + timeoutSeconds * 1000;
	for (;;) {
		const value = await check();
		if (value) return value;
		if (Date.now() > deadline)
			throw new Error(`timed out after ${timeoutSeconds} s waiting for ${what}`);
		await sleep(200);
	}
}

async function api(method: string, route: string, body?: unknown) {
	const response = await fetch(`${stack.main.url}${route}`, {
		method,
		headers: { cookie: stack.cookie, ...(body ? { 'content-type': 'application/json' } : {}) },
		body: body ? JSON.stringify(body) : undefined,
	});
	const text = await response.text();
	if (!response.ok)
		throw new Error(`${method} ${route}: HTTP ${response.status} ${text.slice(0, 500)}`);
	return JSON.parse(text).data;
}

/** n8n stores run data "flatted"; parsed with n8n's own copy of the library. */
function unflatten(data: unknown) {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const flatted = require(path.join(n8n.RUNTIME_DIR, 'node_modules', 'flatted'));
	return typeof data === 'string' ? flatted.parse(data) : data;
}

/** The editor's "Execute workflow": the saved workflow, run from its Manual Trigger (offloaded to a worker). */
async function runManually(workflowId: string): Promise<string> {
	const workflowData = await api('GET', `/rest/workflows/${workflowId}`);
	const trigger = workflowData.nodes.find(
		(node: Json) => node.type === 'n8n-nodes-base.manualTrigger',
	);
	const result = await api('POST', `/rest/workflows/${workflowId}/run`, {
		workflowData,
		triggerToStartFrom: { name: trigger.name },
	});
	expect(result.executionId).toBeDefined();
	return String(result.executionId);
}

const DONE = ['success', 'error', 'crashed', 'canceled'];
async function finishedExecution(executionId: string, timeoutSeconds = 120) {
	const execution = await until(
		`execution ${executionId} to finish`,
		async () => {
			const found = await api('GET', `/rest/executions/${executionId}`).catch(() => undefined);
			return found && DONE.includes(found.status) ? found : undefined;
		},
		timeoutSeconds,
	);
	const run = unflatten(execution.data);
	const output = (node: string, branch = 0): Json[] =>
		(run?.resultData?.runData?.[node]?.[0]?.data?.main?.[branch] ?? []).map(
			(item: { json: Json }) => item.json,
		);
	return { status: execution.status as string, mode: execution.mode as string, run, output };
}

async function executionsOf(workflowId: string): Promise<string[]> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	const { results } = await api('GET', `/rest/executions?filter=${filter}&limit=100`);
	// Each id once: n8n's list joins the running executions and the finished ones, so one that
	// finishes between the two can be listed twice (seen on a loaded machine).
	const ids = new Set<string>(results.map((execution: { id: string }) => String(execution.id)));
	return [...ids].sort((a, b) => Number(a) - Number(b));
}

/** The executions of a workflow that n8n ended as failed (error, crashed): the latest 100 (n8n's most per page), which is plenty to tell none from some. */
async function failedExecutionsOf(
	workflowId: string,
): Promise<Array<{ id: string; status: string }>> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId, status: ['error', 'crashed'] }));
	const { results } = await api('GET', `/rest/executions?filter=${filter}&limit=100`);
	return results.map((execution: { id: string; status: string }) => ({
		id: String(execution.id),
		status: execution.status,
	}));
}

const workerOf = (executionId: string): string[] => queue.workerOfExecution(stack, executionId);
const ledger = () => sandbox.state().transfers.map((transfer) => transfer.transferId);
const incidentPolls = () =>
	sandbox.requests().filter((request) => request.path === '/payout/v1/incidents').length;

describeQueue('queue mode: one main, two workers, Postgres and Redis', () => {
	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
		baseDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payouts-queue-'));
		const steps: string[] = [];
		stack = await queue.startQueueStack({
			baseDir,
			sandbox,
			seed,
			fast: true,
			// A killed worker's jobs given up within about 25 s, not 60 to 90 (scripts/queue.js QUICK_STALL_RECOVERY).
			quickStallRecovery: true,
			workflows: [
				example('csv-batch-payouts'),
				{ ...example('oauth-callback'), settings: { executionOrder: 'v1' } },
				batchWorkflow(),
				triggerWorkflow,
				overlapWorkflow,
				eventWorkflows.standard,
				eventWorkflows.internal,
			],
			publish: [
				'payoutsOAuthCallback',
				'payoutsQueueTrigger',
				'payoutsQueueOverlap',
				eventWorkflows.standard.id,
				eventWorkflows.internal.id,
			],
			// Five executions per worker at a time: events come many at once.
			workerConcurrency: 5,
			onStep: (step: string) =>
				steps.push(`${step} at +${((Date.now() - setupStarted) / 1000).toFixed(1)} s`),
		});
		// The trigger's first poll (recording the incidents that exist), before any test clears the
		// sandbox's requests: the trigger test adds its incidents after it.
		await until('the incident trigger to poll once', () => incidentPolls() >= 1, 80);
		triggerPolledAt = Date.now();
		process.stderr.write(
			`[queue test] set-up ${((Date.now() - setupStarted) / 1000).toFixed(1)} s: ${steps.join('; ')}; the trigger's first poll at +${((triggerPolledAt - setupStarted) / 1000).toFixed(1)} s\n`,
		);
	});

	afterAll(async () => {
		await stack?.stop();
		await sandbox?.close();
		if (baseDir && !process.env.KEEP_QUEUE_LOGS && !keepLogs)
			fs.rmSync(baseDir, { recursive: true, force: true });
	});

	test('the CSV batch example runs on a worker: rows 1 and 3 paid, row 2 not sent, as in single-process n8n', async () => {
		sandbox.clearRequests();
		const executionId = await runManually('payoutsCsvBatch');
		const { status, mode, output } = await finishedExecution(executionId);
		expect({ status, mode }).toEqual({ status: 'success', mode: 'manual' });
		expect(workerOf(executionId)).toHaveLength(1);
		expect(output('Paid').map((item) => item.transferId)).toEqual([
			'nov_payout_0001',
			'nov_payout_0003',
		]);
		expect(output('Not Sent')).toEqual([
			expect.objectContaining({ transferId: 'nov_payout_0002', status: 'ERROR' }),
		]);
		expect(ledger()).toEqual(expect.arrayContaining(['nov_payout_0001', 'nov_payout_0003']));
		expect(ledger()).not.toContain('nov_payout_0002');
	});

	test('the OAuth webhook example, published: a sign-in started here runs on a worker and answers the redirect, never with the token', async () => {
		const started = await fetch(`${stack.main.url}/webhook/payouts-oauth-start`, {
			method: 'POST',
			...signEvent(
				`${stack.main.url}/webhook/payouts-oauth-start`,
				{ user: 'queue-user' },
				n8n.APP_SIGNING.secret,
			),
		});
		expect(started.status).toBe(200);
		const { verificationId } = (await started.json()) as { verificationId: string };
		const { authCode } = sandbox.consent({ verificationId });
		const response = await fetch(
			`${stack.main.url}/webhook/payouts-oauth-callback?auth_code=${authCode}`,
		);
		expect(response.status).toBe(200);
		const body = await response.json();
		const answer = Array.isArray(body) ? body[0] : body;
		expect(answer.message).toMatch(
			new RegExp(
				`^Connected: verification ${verificationId}, token valid until \\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$`,
			),
		);
		expect(JSON.stringify(answer)).not.toMatch(/user-access-|access_token/);
		expect(sandbox.state().usedAuthCodes).toContain(authCode);
		// This copy saves its successful executions (the example saves none), to tell which process ran it.
		const [executionId] = (await executionsOf('payoutsOAuthCallback')).slice(-1);
		const { status, mode } = await finishedExecution(executionId);
		expect({ status, mode }).toEqual({ status: 'success', mode: 'webhook' });
		expect(workerOf(executionId)).toHaveLength(1);
	});

	test('a worker killed mid-batch, then the same batch re-run: every row paid exactly once (the sandbox ledger)', async () => {
		sandbox.reset();
		// Each transfer takes 1.2 s at the service, so the kill lands with a request in flight.
		sandbox.configure({
			faults: [
				{ match: { path: '/payout/v1.2/requestTransfer' }, fault: 'latency', latencyMs: 1200 },
			],
		});
		const firstRun = await runManually('payoutsQueueBatch');
		const [victim] = await until(
			'the batch to be half paid on a worker',
			() =>
				ledger().length >= 2 && workerOf(firstRun).length === 1 ? workerOf(firstRun) : undefined,
			60,
		);
		const killedAt = ledger().length;
		stack.workers.find((worker: { name: string }) => worker.name === victim).kill();
		// The request in flight when the worker died still reaches the service and moves money.
		await sleep(2000);
		const paidBeforeRerun = ledger();
		expect(paidBeforeRerun.length).toBeGreaterThanOrEqual(2);
		expect(paidBeforeRerun.length).toBeLessThan(BATCH_ROWS.length);

		sandbox.configure({ faults: [] });
		const rerun = await runManually('payoutsQueueBatch');
		const { status, output } = await finishedExecution(rerun);
		expect(workerOf(rerun)).toHaveLength(1);
		expect(workerOf(rerun)).not.toContain(victim);

		// The ledger: every row once, none twice, and the money that moved is exactly the batch's.
		const transfers = sandbox.state().transfers;
		expect(transfers.map((transfer) => transfer.transferId).sort()).toEqual(
			BATCH_ROWS.map((row) => row.transferId).sort(),
		);
		expect(transfers.map((transfer) => [transfer.transferId, transfer.amount])).toEqual(
			expect.arrayContaining(BATCH_ROWS.map((row) => [row.transferId, row.amount])),
		);

		// What the re-run says: rows paid before it are already submitted, or, where the killed worker's
		// request was in flight (its answer never came), the service holds them: in doubt, for a person
		// to look up ("Needs a Check"); the others paid now.
		expect(status).toBe('success');
		expect({ pending: output('Pending'), notSent: output('Not Sent') }).toEqual({
			pending: [],
			notSent: [],
		});
		const reported = Object.fromEntries(
			[...output('Paid'), ...output('Needs a Check')].map((item) => [item.transferId, item.status]),
		);
		process.stderr.write(
			`[queue test] killed ${victim} with ${killedAt} of ${BATCH_ROWS.length} rows in the ledger, ${paidBeforeRerun.length} after the request in flight landed; the re-run on ${workerOf(rerun)} reported ${JSON.stringify(reported)}\n`,
		);
		for (const row of BATCH_ROWS) {
			if (paidBeforeRerun.includes(row.transferId))
				expect({
					[row.transferId]: ['ALREADY_SUBMITTED', 'UNKNOWN'].includes(reported[row.transferId]),
				}).toEqual({ [row.transferId]: true });
			else
				expect({ [row.transferId]: reported[row.transferId] }).toEqual({
					[row.transferId]: 'SUCCESS',
				});
		}
		// The node's own words on each row in doubt (Needs a Check keeps a summary of them).
		const said = Object.fromEntries(
			[...output('Pay Beneficiary'), ...output('Pay Beneficiary', 1)].map((item) => [
				item.transferId,
				item.error ?? item.message,
			]),
		);
		for (const item of output('Needs a Check'))
			expect({ transferId: item.transferId, said: said[String(item.transferId)] }).toEqual({
				transferId: item.transferId,
				said: expect.stringMatching(
					/the service holds Transfer ID|already exists|this node sent it before/i,
				),
			});
		// The killed worker back, while n8n gives up its job (the trigger test's minute-apart polls
		// cover that wait, which the next settle would otherwise spend).
		await bothWorkersUp();
	});

	test('the incident trigger polls on the main and starts one run per new incident, across a restart of the main', async () => {
		// The trigger polled once in the set-up (recording what exists), and found nothing new since.
		expect(triggerPolledAt).toBeGreaterThan(0);
		expect(await executionsOf('payoutsQueueTrigger')).toEqual([]);

		const first = sandbox.addIncident({ entityName: 'Queue Bank A', entityCode: 'QBANKA' });
		const [firstRun] = await until(
			'a run for the first incident',
			async () => {
				const ids = await executionsOf('payoutsQueueTrigger');
				return ids.length ? ids : undefined;
			},
			80,
		);
		const firstResult = await finishedExecution(firstRun);
		expect(firstResult.status).toBe('success');
		expect(firstResult.mode).toBe('trigger');
		expect(firstResult.output('New Incidents').map((item) => [item.id, item.event])).toEqual([
			[first.id, 'new'],
		]);
		expect(workerOf(firstRun)).toHaveLength(1);

		// The main goes away; an incident appears while it is down; the main comes back.
		await stack.main.stop();
		const second = sandbox.addIncident({ entityName: 'Queue Bank B', entityCode: 'QBANKB' });
		await stack.startMain();
		const runs = await until(
			'a run for the second incident',
			async () => {
				const ids = await executionsOf('payoutsQueueTrigger');
				return ids.length >= 2 ? ids : undefined;
			},
			150,
		);
		// One more poll: nothing else may start.
		const polls = incidentPolls();
		await until('one more poll', () => incidentPolls() >= polls + 1, 80);
		expect(await executionsOf('payoutsQueueTrigger')).toEqual(runs);
		expect(runs).toHaveLength(2);
		const secondResult = await finishedExecution(runs[1]);
		expect(secondResult.status).toBe('success');
		expect(secondResult.output('New Incidents').map((item) => [item.id, item.event])).toEqual([
			[second.id, 'new'],
		]);
		expect(workerOf(runs[1])).toHaveLength(1);
	});

	test('two workers run overlapping batches of keyed internal transfers at once, Service Refuses Repeated Transfer IDs: no row paid twice, none reported paid by guess', async () => {
		await bothWorkersUp();
		await queue.settle(stack, { idle: () => sandbox.state().inFlight === 0 });
		sandbox.reset();
		sandbox.configure({ internalDuplicates: 'refuse', latencyMs: 150 });
		const row = (amount: number) => ({
			amount,
			account: seed.rechargeAccounts.configured,
			key: `q6-overlap-${amount}`,
		});
		const batches = [
			Array.from({ length: 60 }, (_, index) => row(index + 1)),
			Array.from({ length: 60 }, (_, index) => row(index + 31)),
		];
		const before = await executionsOf('payoutsQueueOverlap');
		const answers = await Promise.all(
			batches.map(async (rows) => {
				const response = await fetch(`${stack.main.url}/webhook/payouts-queue-overlap`, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify({ rows }),
				});
				expect(response.status).toBe(200);
				return (await response.json()) as Json[];
			}),
		);
		const runs = (await executionsOf('payoutsQueueOverlap')).filter((id) => !before.includes(id));
		expect(runs).toHaveLength(2);
		const ran = runs.map((id) => workerOf(id)).flat();
		const tally = (items: Json[]) =>
			items.reduce<Record<string, number>>(
				(counts, item) => ({
					...counts,
					[String(item.status)]: (counts[String(item.status)] ?? 0) + 1,
				}),
				{},
			);
		process.stderr.write(
			`[queue test] overlapping batches ran on ${ran.join(' and ')}: ${JSON.stringify(tally(answers.flat()))}\n`,
		);

		// The ledger: amounts 1 to 90, each paid once, every Transfer ID once.
		const transfers = sandbox.state().transfers;
		expect(transfers.map((transfer) => transfer.amount).sort((a, b) => a - b)).toEqual(
			Array.from({ length: 90 }, (_, index) => index + 1),
		);
		expect(new Set(transfers.map((transfer) => transfer.transferId)).size).toBe(90);
		// Each execution reports every row it had: paid by it, by the other one (ALREADY_SUBMITTED), or,
		// where the two sent it at the same moment, the other's refused repeat (ALREADY_EXISTS: look it
		// up) or in doubt (UNKNOWN): never paid by guess.
		for (const items of answers) {
			expect(items).toHaveLength(60);
			for (const item of items) {
				expect(['SUCCESS', 'ALREADY_SUBMITTED', 'UNKNOWN', 'ALREADY_EXISTS']).toContain(
					item.status,
				);
				if (['SUCCESS', 'ALREADY_SUBMITTED'].includes(String(item.status)))
					expect(transfers.some((transfer) => transfer.transferId === item.transferId)).toBe(true);
			}
		}
		expect(answers.flat().filter((item) => item.status === 'SUCCESS')).toHaveLength(90);
		// Once both have finished: the same two batches again pay nothing and read ALREADY_SUBMITTED,
		// or, where a row was never this workflow's own paid answer (the other worker's refused repeat)
		// or another worker's write of the record undid this one's (docs/safety.md, acrossProcesses),
		// ALREADY_EXISTS or UNKNOWN: never paid twice, never called paid by guess.
		const again = await Promise.all(
			batches.map(
				async (rows) =>
					(await (
						await fetch(`${stack.main.url}/webhook/payouts-queue-overlap`, {
							method: 'POST',
							headers: { 'content-type': 'application/json' },
							body: JSON.stringify({ rows }),
						})
					).json()) as Json[],
			),
		);
		process.stderr.write(
			`[queue test] overlapping batches run again: ${JSON.stringify(tally(again.flat()))} of 120\n`,
		);
		expect(
			again
				.flat()
				.map((item) => String(item.status))
				.filter((status) => !['ALREADY_SUBMITTED', 'UNKNOWN', 'ALREADY_EXISTS'].includes(status)),
		).toEqual([]);
		expect(sandbox.state().transfers).toHaveLength(90);
	});

	describe('events, one execution each, on two workers', () => {
		const post = async (
			kind: keyof typeof eventWorkflows,
			eventId: string,
			amount: number,
			timeoutMs = 60_000,
		) => {
			const response = await fetch(`${stack.main.url}/webhook/${eventWorkflows[kind].id}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ eventId, amount }),
				signal: AbortSignal.timeout(timeoutMs),
			});
			return {
				status: response.status,
				item: (response.ok ? await response.json() : await response.text()) as Json,
			};
		};
		/**
		 * `count` events, each delivered twice: every even one twice at the same moment, the odd ones
		 * again after the first answer; 20 events in flight. A delivery n8n gives no answer to (seen on a
		 * loaded machine: n8n's main gave up the execution as a stalled Bull job, its logs are kept) is
		 * delivered again once the stack has settled, as a sender does; the ledger still says each event
		 * is paid once.
		 */
		async function deliverTwice(kind: keyof typeof eventWorkflows, prefix: string, count: number) {
			const answers = new Map<string, Array<{ status: number; item: Json }>>();
			let next = 0;
			const lane = async () => {
				while (next < count) {
					const index = next++;
					const eventId = `${prefix}${index}`;
					const deliver = async () =>
						await post(kind, eventId, amountOf(index)).catch((error: Error) => ({
							status: 0,
							item: { noAnswer: error.message } as Json,
						}));
					answers.set(
						eventId,
						index % 2 === 0
							? await Promise.all([deliver(), deliver()])
							: [await deliver(), await deliver()],
					);
				}
			};
			await Promise.all(Array.from({ length: 10 }, lane));
			const unanswered = [...answers]
				.filter(([, pair]) => pair.some((answer) => answer.status === 0))
				.map(([eventId]) => eventId);
			if (unanswered.length) {
				keepLogs = true;
				process.stderr.write(
					`[queue test] ${kind}: n8n gave no answer to ${unanswered.join(', ')} (${JSON.stringify(answers.get(unanswered[0]))}); delivered again after the stack settled; n8n's logs (main, workers) are kept in ${baseDir}\n`,
				);
				await queue.settle(stack, { idle: () => sandbox.state().inFlight === 0 });
				for (const eventId of unanswered) {
					const pair = answers.get(eventId) as Array<{ status: number; item: Json }>;
					const again = await post(kind, eventId, amountOf(Number(eventId.slice(prefix.length))));
					answers.set(
						eventId,
						pair.map((answer) =>
							answer.status === 0
								? { ...again, item: { ...again.item, deliveredAgain: true } }
								: answer,
						),
					);
				}
			}
			for (const pair of answers.values())
				for (const answer of pair) expect(answer.status).toBe(200);
			return new Map(
				[...answers].map(([eventId, pair]) => [eventId, pair.map((answer) => answer.item)]),
			);
		}
		const amountOf = (index: number) => 1 + (index % 50);

		/**
		 * A redelivery after the first answer on another worker: docs/safety.md says ALREADY_SUBMITTED;
		 * its named exception across workers (acrossProcesses: another worker's write of the record at
		 * the same moment undid this one's) reads UNKNOWN or ALREADY_EXISTS instead, never paid twice.
		 * At most this many of the redeliveries may read so (measured and printed every run).
		 */
		const ACROSS_PROCESSES_AT_MOST = 5;
		/** Events of each kind: enough for twenty in flight on two workers for half a minute. */
		const EVENTS = 100;

		test.each([
			['standard', 'q24std_'],
			['internal', 'q24-int-'],
		] as const)(
			`%s: ${EVENTS} events each delivered twice, half of the pairs at the same moment: each paid once, no failed execution; a redelivery after the first answer reads ALREADY_SUBMITTED`,
			async (kind, prefix) => {
				await bothWorkersUp();
				await queue.settle(stack, { idle: () => sandbox.state().inFlight === 0 });
				sandbox.reset();
				sandbox.configure({ internalDuplicates: 'refuse', latencyMs: 30 });
				await n8n.waitForWebhook(stack.main.url, eventWorkflows[kind].id);
				const failedBefore = await failedExecutionsOf(eventWorkflows[kind].id);
				const answers = await deliverTwice(kind, prefix, EVENTS);
				const transfers = sandbox
					.state()
					.transfers.filter((transfer) => transfer.transferId.startsWith(prefix));
				const paid = new Set(transfers.map((transfer) => transfer.transferId));
				expect(paid.size).toBe(transfers.length);
				// Unpaid: only an event whose execution n8n dropped and whose every answer says so (UNKNOWN, in doubt); none here as a rule.
				const unpaid = [...answers].filter(
					([, pair]) => !pair.some((item) => paid.has(String(item.transferId))),
				);
				for (const [eventId, pair] of unpaid) {
					const seen = {
						eventId,
						deliveredAgain: pair.some((item) => item.deliveredAgain),
						statuses: pair.map((item) => item.status),
					};
					expect(seen).toEqual({
						eventId,
						deliveredAgain: true,
						statuses: pair.map(() => 'UNKNOWN'),
					});
				}
				expect(transfers).toHaveLength(EVENTS - unpaid.length);
				const tally: Record<string, number> = {};
				for (const [eventId, pair] of answers) {
					const order = pair.some((item) => item.deliveredAgain)
						? 'no answer, delivered again'
						: Number(eventId.slice(prefix.length)) % 2 === 1
							? 'one after the other'
							: 'at once';
					const key = `${order}: ${pair
						.map((item) => String(item.status))
						.sort()
						.join('+')}`;
					tally[key] = (tally[key] ?? 0) + 1;
				}
				// The redeliveries after the first answer, and what they read otherwise than ALREADY_SUBMITTED.
				const afterTheAnswer = [...answers]
					.filter(
						([eventId, pair]) =>
							Number(eventId.slice(prefix.length)) % 2 === 1 &&
							!pair.some((item) => item.deliveredAgain),
					)
					.map(([eventId, pair]) => ({
						eventId,
						first: String(pair[0].status),
						again: String(pair[1].status),
					}));
				const otherwise = afterTheAnswer.filter((pair) => pair.again !== 'ALREADY_SUBMITTED');
				// No failed execution: every execution of these events n8n ran ended as success (On Error: Continue).
				await queue.settle(stack, { idle: () => sandbox.state().inFlight === 0 });
				const failed = (await failedExecutionsOf(eventWorkflows[kind].id)).filter(
					(execution) => !failedBefore.some((earlier) => earlier.id === execution.id),
				);
				// Printed first, so that a failure below comes with the whole picture.
				process.stderr.write(
					`[queue test] ${kind} events delivered twice: ${JSON.stringify(tally)}; redeliveries after the first answer reading otherwise than ALREADY_SUBMITTED: ${otherwise.length} of ${afterTheAnswer.length} ${JSON.stringify(otherwise.slice(0, 5))}; failed executions ${JSON.stringify(failed)}\n`,
				);
				expect(failed).toEqual([]);
				for (const [eventId, pair] of answers) {
					const statuses = pair.map((item) => String(item.status)).sort();
					// An execution that gave no answer may have paid: the event's other answers say what they saw, the ledger above that it was paid once.
					if (pair.some((item) => item.deliveredAgain)) {
						for (const item of pair)
							expect(['SUCCESS', 'ALREADY_SUBMITTED', 'UNKNOWN', 'ALREADY_EXISTS']).toContain(
								item.status,
							);
						continue;
					}
					// One paid; the other: this node's own earlier request, or (at the same moment) the one another worker is sending right now.
					expect({ eventId, statuses }).toEqual({
						eventId,
						statuses: expect.arrayContaining(['SUCCESS']),
					});
					const other = statuses[statuses.indexOf('SUCCESS') === 0 ? 1 : 0];
					expect(['ALREADY_SUBMITTED', 'UNKNOWN', 'ALREADY_EXISTS']).toContain(other);
				}
				// After the first answer: ALREADY_SUBMITTED, save the named exception, counted.
				expect(afterTheAnswer.map((pair) => pair.first)).toEqual(
					afterTheAnswer.map(() => 'SUCCESS'),
				);
				expect(
					otherwise.filter((pair) => !['UNKNOWN', 'ALREADY_EXISTS'].includes(pair.again)),
				).toEqual([]);
				expect(otherwise.length).toBeLessThanOrEqual(ACROSS_PROCESSES_AT_MOST);
			},
		);

		test('a worker killed mid-stream, then the sender delivers again what had no answer: every event paid once', async () => {
			await bothWorkersUp();
			await queue.settle(stack, { idle: () => sandbox.state().inFlight === 0 });
			sandbox.reset();
			sandbox.configure({ latencyMs: 300 });
			const prefix = 'q24kill_';
			const events = Array.from({ length: 60 }, (_, index) => `${prefix}${index}`);
			const delivered = events.map((eventId, index) =>
				post('standard', eventId, 1 + index, 20_000).catch((error: Error) => ({
					status: 0,
					item: { error: error.message },
				})),
			);
			await until(
				'a third of the events paid',
				() => sandbox.state().transfers.length >= 20 || undefined,
				60,
			);
			stack.workers[0].kill();
			const first = await Promise.all(delivered);
			await stack.startWorker(0);
			await queue.settle(stack, { idle: () => sandbox.state().inFlight === 0 });
			// The sender delivers again every event it has no answer for.
			const unanswered = events.filter((_, index) => first[index].status !== 200);
			const again = await Promise.all(
				unanswered.map((eventId) => post('standard', eventId, 1 + events.indexOf(eventId))),
			);
			// A request the killed worker sent before its claim was written (a standard claim is written
			// while its request goes out) reads ALREADY_EXISTS: the service refused the repeat; one whose
			// claim was written but whose answer never came reads UNKNOWN: the service holds it
			// (docs/safety.md). The ledger below says it was paid, and once.
			for (const answer of again)
				expect(['SUCCESS', 'ALREADY_SUBMITTED', 'ALREADY_EXISTS', 'UNKNOWN']).toContain(
					answer.item.status,
				);
			const transfers = sandbox.state().transfers;
			expect(transfers.map((transfer) => transfer.transferId).sort()).toEqual([...events].sort());
			process.stderr.write(
				`[queue test] worker killed mid-stream: ${unanswered.length} of ${events.length} events had no answer; delivered again: ${JSON.stringify(again.map((answer) => answer.item.status))}\n`,
			);
		});
	});
});

/** Both workers running (a test before may have killed one). */
async function bothWorkersUp() {
	for (const [index, worker] of stack.workers.entries())
		if (worker.child.exitCode !== null || worker.child.signalCode !== null)
			await stack.startWorker(index);
}

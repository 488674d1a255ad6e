/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- test code runs in Node under jest, never inside n8n (it uses Node's own modules, child processes, timers and signals); these rules guard the code n8n loads (nodes/, credentials/) */
/**
 * One guard that no option turns off, in the n8n `npm start` runs (SQLite, its CLI and its
 * server), judged by the sandbox's ledger:
 * - a batch of 300 standard rows paid long before, run again and killed with SIGKILL in the
 *   middle, then run again after the restart: every row paid before reads ALREADY_SUBMITTED but
 *   at most three times Concurrency (those whose lookup was in flight at the kill);
 * - Claim Held by an Earlier Step: an execution that ended with an error, retried from the
 *   Executions list (n8n's Retry runs from the failed node: the claim step is not run again), pays
 *   nothing twice;
 * - Pay Again on Every Run: n8n's Retry sends the failed execution's Transfer IDs (kept in its
 *   custom data) and pays nothing twice, while a new execution pays again, as the words say.
 */
import { spawn } from 'node:child_process';

import { expectRun, n8n, runWithCli, suiteN8n, until } from '../helpers/e2e';
import type { Json, Rest, SuiteN8n } from '../helpers/e2e';
import { seed } from '../../harness/sandbox';
import type { Sandbox } from '../../harness/sandbox';

jest.setTimeout(15 * 60 * 1000);

const credentials = { payoutsApi: { id: n8n.CREDENTIAL_ID, name: 'Payouts Sandbox' } };
const node = (id: string, name: string, type: string, position: number, parameters: Json) => ({
	id,
	name,
	type,
	typeVersion: 1,
	position: [position * 220, 0],
	parameters,
});

/** Manual Trigger → Rows → One Item per Row → (Claim the Event →) Pay. */
function batch(id: string, rows: Json[], pay: Json, { claimStep = false } = {}) {
	const nodes = [
		node(`${id}-start`, 'Start', 'n8n-nodes-base.manualTrigger', 0, {}),
		{
			...node(`${id}-rows`, 'Rows', 'n8n-nodes-base.set', 1, {
				mode: 'raw',
				jsonOutput: JSON.stringify({ rows }),
				options: {},
			}),
			typeVersion: 3.4,
		},
		node(`${id}-split`, 'One Item per Row', 'n8n-nodes-base.splitOut', 2, {
			fieldToSplitOut: 'rows',
			options: {},
		}),
		// The template's claim (a Postgres insert one execution wins) stands here as a step that passes the rows on.
		...(claimStep ? [node(`${id}-claim`, 'Claim the Event', 'n8n-nodes-base.noOp', 3, {})] : []),
		{
			...node(`${id}-pay`, 'Pay', 'n8n-nodes-payouts.payoutsTransfer', 4, pay),
			credentials,
		},
	];
	const names = nodes.map((entry) => entry.name);
	return {
		id,
		name: `E2E one guard: ${id}`,
		nodes,
		connections: Object.fromEntries(
			names
				.slice(0, -1)
				.map((name, index) => [
					name,
					{ main: [[{ node: names[index + 1], type: 'main', index: 0 }]] },
				]),
		),
		settings: { executionOrder: 'v1' },
		active: false,
	};
}

const CONCURRENCY = 2;
const standard = {
	operation: 'standardTransfer',
	beneId: '={{ $json.beneId }}',
	amount: '={{ $json.amount }}',
	transferId: '={{ $json.transferId }}',
	transferMode: 'banktransfer',
	additionalFields: {},
	options: { concurrency: CONCURRENCY },
};
const internal = (options: Json) => ({
	operation: 'internalTransfer',
	amount: '={{ $json.amount }}',
	rechargeAccount: '={{ $json.account }}',
	additionalFields: { transferId: '={{ $json.transferId }}' },
	options,
});
const paidRows = Array.from({ length: 300 }, (_, i) => ({
	beneId: seed.beneficiaries.verified,
	amount: 1 + (i % 90),
	transferId: `og_rerun_${i}`,
}));
/** A new row first: its request, answered slowly, tells the test the re-run is under way. */
const marker = { beneId: seed.beneficiaries.verified, amount: 99, transferId: 'og_rerun_marker' };

const workflows = {
	rerun: batch('ogRerunKill', paidRows, standard),
	claimed: batch(
		'ogClaimRetry',
		[
			{ amount: 15, account: seed.rechargeAccounts.configured, transferId: 'og_claim_refused' },
			{ amount: 25, account: seed.rechargeAccounts.configured, transferId: 'og_claim_paid' },
		],
		internal({ claimHeldEarlier: true, concurrency: 2 }),
		{ claimStep: true },
	),
	everyRun: batch(
		'ogEveryRunRetry',
		[
			{ amount: 35, account: seed.rechargeAccounts.configured, id: 'refused' },
			{ amount: 45, account: seed.rechargeAccounts.configured, id: 'paid' },
		],
		{
			operation: 'internalTransfer',
			amount: '={{ $json.amount }}',
			rechargeAccount: '={{ $json.account }}',
			additionalFields: {},
			options: { payEveryRun: true, concurrency: 2 },
		},
	),
};

let suite: SuiteN8n;
let sandbox: Sandbox;
let rest: Rest;

beforeAll(async () => {
	// The interface does not say the service refuses a repeated internal Transfer ID: the sandbox books it again.
	suite = await suiteN8n({
		name: 'e2e-one-guard',
		sandbox: { internalDuplicates: 'book' },
		workflows: Object.values(workflows),
		server: true,
	});
	sandbox = suite.sandbox;
	rest = suite.rest as Rest;
});

afterAll(async () => suite?.close());

beforeEach(() => {
	sandbox.reset();
	sandbox.configure({ internalDuplicates: 'book' });
});

const INTERNAL_PATH = '/payout/v1/internalTransfer';
type Ledger = Array<{ transferId: string; amount: number }>;
const ledger = () => sandbox.state().transfers as Ledger;
const refusedOnce = (transferId: string) => ({
	match: { transferId },
	fault: 'replay',
	status: 404,
	body: JSON.stringify({ status: 'ERROR', subCode: '404', message: 'Recharge Account not found' }),
	times: 1,
});

async function execute(id: string, code = 0) {
	const run = await runWithCli(id, suite.env);
	expectRun(run, { code }, sandbox);
	return run;
}

async function setRows(id: string, rows: Json[]) {
	const saved = (await rest('GET', `/workflows/${id}`)) as {
		nodes: Array<{ name: string; parameters: Json }>;
		connections: Json;
		versionId: string;
	};
	const target = saved.nodes.find((entry) => entry.name === 'Rows');
	if (target) target.parameters = { ...target.parameters, jsonOutput: JSON.stringify({ rows }) };
	await rest('PATCH', `/workflows/${id}`, {
		nodes: saved.nodes,
		connections: saved.connections,
		versionId: saved.versionId,
	});
}

/** The workflow's last execution that ended with an error, as the Executions list shows it. */
async function lastFailed(workflowId: string): Promise<string> {
	const found = (await rest(
		'GET',
		`/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId, status: ['error'] }))}`,
	)) as { results: Array<{ id: string }> };
	return String(found.results[0].id);
}

/** The Executions list's Retry (with the workflow as it ran), and the retried execution's rows as the Pay node output them. */
async function retry(executionId: string): Promise<Json[]> {
	const retried = (await rest('POST', `/executions/${executionId}/retry`, {
		loadWorkflow: false,
	})) as { id: string };
	const saved = await until(
		`retry of ${executionId} to finish`,
		async () => {
			const execution = (await rest('GET', `/executions/${retried.id}`)) as
				| { status: string }
				| undefined;
			return execution && ['success', 'error'].includes(execution.status) ? execution : undefined;
		},
		120,
	);
	const { resultData } = n8n.runDataOf(saved) as {
		resultData: {
			runData: Record<string, Array<{ data?: { main?: Array<Array<{ json: Json }>> } }>>;
			error?: { context?: { rows?: Json[] } };
		};
	};
	const items = (resultData.runData.Pay ?? []).flatMap((task) => task.data?.main?.[0] ?? []);
	return items.length > 0
		? items.map((item) => item.json)
		: (resultData.error?.context?.rows ?? []);
}

test('a batch of 300 standard rows paid long before, run again and killed with SIGKILL in the middle, then run again: ALREADY_SUBMITTED but for at most three times Concurrency', async () => {
	const id = workflows.rerun.id;
	const first = await execute(id);
	expect(first.output('Pay').every((item) => item.status === 'SUCCESS')).toBe(true);
	expect(ledger()).toHaveLength(300);
	// The same batch again (every CLI run is a new n8n process: nothing of the first run in memory),
	// a new row first, answered slowly; once its request is at the service, the re-run is asking the
	// record about the paid rows: n8n is killed a moment later.
	await setRows(id, [marker, ...paidRows]);
	sandbox.configure({
		faults: [{ match: { transferId: marker.transferId }, fault: 'latency', latencyMs: 3000 }],
	});
	const child = spawn(
		n8n.RUNTIME.nodeBin,
		[n8n.RUNTIME.n8nScript, 'execute', `--id=${id}`, '--rawOutput'],
		{ env: suite.env, stdio: 'ignore', detached: true },
	);
	const exited = new Promise((resolve) => child.once('exit', resolve));
	await until(
		'the re-run to send its new row',
		() => sandbox.state().inFlight > 0 || undefined,
		120,
		5,
	);
	await new Promise((resolve) => setTimeout(resolve, 150));
	process.kill(-(child.pid as number), 'SIGKILL');
	await exited;
	await until('the service to finish', () => sandbox.state().inFlight === 0 || undefined, 30, 50);
	sandbox.configure({ faults: [] });
	// After the restart, the same rows again (the run ends with an error where a row reads UNKNOWN).
	const run = await runWithCli(id, suite.env);
	const items = [
		...run.output('Pay'),
		...(((run.error?.context as Json | undefined)?.rows ?? []) as Json[]),
	];
	const paidBefore = items.filter(
		(item) =>
			String(item.transferId).startsWith('og_rerun_') && item.transferId !== marker.transferId,
	);
	const notSubmitted = paidBefore.filter((item) => item.status !== 'ALREADY_SUBMITTED');
	process.stderr.write(
		`[oneGuard test] 300 paid rows, re-run killed at Concurrency ${CONCURRENCY}: ${notSubmitted.length} read otherwise than ALREADY_SUBMITTED after the restart (${notSubmitted.map((item) => item.status).join(', ')})\n`,
	);
	expect(paidBefore).toHaveLength(300);
	expect(notSubmitted.length).toBeLessThanOrEqual(3 * CONCURRENCY);
	expect(notSubmitted.every((item) => item.status === 'UNKNOWN')).toBe(true);
	// Paid once each, the new row at most once.
	const ids = ledger().map((transfer) => transfer.transferId);
	expect(new Set(ids).size).toBe(ids.length);
});

test('Claim Held by an Earlier Step: an execution that ended with an error, retried from the Executions list, pays nothing twice', async () => {
	const id = workflows.claimed.id;
	sandbox.configure({ internalDuplicates: 'book', faults: [refusedOnce('og_claim_refused')] });
	const failed = await execute(id, 1);
	expect(String(failed.error?.message)).toMatch(/Recharge Account not found/);
	expect(ledger().map((transfer) => transfer.transferId)).toEqual(['og_claim_paid']);
	const executionId = await lastFailed(id);
	const retried = await retry(executionId);
	expect(retried.map((item) => item.status)).toEqual(['SUCCESS', 'ALREADY_SUBMITTED']);
	// Pressed again: nothing more.
	const again = await retry(executionId);
	expect(again.map((item) => item.status)).toEqual(['ALREADY_SUBMITTED', 'ALREADY_SUBMITTED']);
	expect(
		ledger()
			.map((transfer) => `${transfer.transferId} ${transfer.amount}`)
			.sort(),
	).toEqual(['og_claim_paid 25', 'og_claim_refused 15']);
});

test("Pay Again on Every Run: n8n's Retry of a failed execution pays nothing twice; a new execution pays again, as the error said", async () => {
	const id = workflows.everyRun.id;
	// The run's first request refused once (its Transfer ID is made for the execution).
	sandbox.configure({
		internalDuplicates: 'book',
		faults: [{ ...refusedOnce('x'), match: { path: INTERNAL_PATH }, times: 1 }],
	});
	const failed = await execute(id, 1);
	expect(String(failed.error?.description)).toContain(
		"Options > 'Pay Again on Every Run' is on: once the causes are fixed, retry this execution (n8n's Retry, from the Executions list)",
	);
	expect(ledger()).toHaveLength(1);
	const retried = await retry(await lastFailed(id));
	expect(retried.map((item) => item.status).sort()).toEqual(['ALREADY_SUBMITTED', 'SUCCESS']);
	expect(
		ledger()
			.map((transfer) => transfer.amount)
			.sort(),
	).toEqual([35, 45]);
	// A new execution is a new payment, as the option and the error said.
	await execute(id);
	expect(
		ledger()
			.map((transfer) => transfer.amount)
			.sort(),
	).toEqual([35, 35, 45, 45]);
});

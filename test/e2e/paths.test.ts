/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- test code runs in Node under jest, never inside n8n (it uses Node's own modules, child processes, files and the environment); these rules guard the code n8n loads (nodes/, credentials/) */
/**
 * The paths by which a row could be paid twice, in real n8n (`n8n start`, regular mode, SQLite, n8n 2.41.1, which runs a node
 * again when its first output item carries an error, also under On Error: Continue), judged by the
 * sandbox's ledger:
 *
 * 1. The queue-claim template (examples/queue-claim-payout.json) as shipped, its claims table in a
 *    throw-away Postgres (the template's Postgres may be any Postgres; n8n itself stays on SQLite),
 *    with Retry On Fail turned on in its Top Up node (3 tries): events paid, lost (before and after
 *    the service booked them) and first refused then paid, and their redeliveries: each event paid
 *    at most once, and the sender told what happened. The template pays one event per execution, so
 *    "a paid row in a batch" is its Top Up node reproduced (same parameters, Claim Held by an
 *    Earlier Step on, Retry On Fail on) after a step that gives each row its Transfer ID: a batch
 *    [refused row, paid row, paid row], whose refused first row makes n8n run the node again.
 * 2. A retry branch: a second Payouts Transfer node, same parameters, on the first one's error
 *    output, internal transfers with an explicit Transfer ID and with a Top-Up Key, the first
 *    request's answer lost after or before the service booked it: paid once, never under another
 *    Transfer ID; then settled from the dashboard as the docs say.
 * 3. A batch of 3,000 standard transfers (no Continue On Fail) whose n8n is SIGKILLed in the middle
 *    with requests in flight, run again after the restart: every row that needs no person is paid,
 *    and the run ends with one error whose context lists every row, the ones in doubt UNKNOWN with
 *    their nextStep; settled from the dashboard, the batch completes.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { example, expectRun, n8n, runInServer, suiteN8n, until } from '../helpers/e2e';
import type { Json, Rest, SuiteN8n, Workflow } from '../helpers/e2e';
import { seed } from '../../harness/sandbox';
import type { Sandbox } from '../../harness/sandbox';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { signEvent } = require('../../examples/sign-event.js') as {
	signEvent: (
		url: string,
		body: unknown,
		secret: string,
	) => { body: string; headers: Record<string, string> };
};

// eslint-disable-next-line @typescript-eslint/no-require-imports
const queue = require('../../scripts/queue.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { killTree } = require('../../scripts/chaos.js');

jest.setTimeout(30 * 60 * 1000);

const credentials = { payoutsApi: { id: n8n.CREDENTIAL_ID, name: 'Payouts Sandbox' } };
const at = (x: number, y = 0) => [x * 220, y * 200];
const chain = (...names: string[]) =>
	Object.fromEntries(
		names
			.slice(0, -1)
			.map((name, index) => [
				name,
				{ main: [[{ node: names[index + 1], type: 'main', index: 0 }]] },
			]),
	);
const rowsNode = (id: string, rows: Json[]) => ({
	id: `${id}-rows`,
	name: 'Rows',
	type: 'n8n-nodes-base.set',
	typeVersion: 3.4,
	position: at(1),
	parameters: { mode: 'raw', jsonOutput: JSON.stringify({ rows }), options: {} },
});
const splitNode = (id: string) => ({
	id: `${id}-split`,
	name: 'One Item per Row',
	type: 'n8n-nodes-base.splitOut',
	typeVersion: 1,
	position: at(2),
	parameters: { fieldToSplitOut: 'rows', options: {} },
});
const start = (id: string) => ({
	id: `${id}-start`,
	name: 'Start',
	type: 'n8n-nodes-base.manualTrigger',
	typeVersion: 1,
	position: at(0),
	parameters: {},
});
const RETRY_ON_FAIL = { retryOnFail: true, maxTries: 3, waitBetweenTries: 100 };

/** The template as shipped, with Retry On Fail turned on in Top Up (3 tries), as a user may. */
function templateWithRetries(): Workflow {
	const template = example('queue-claim-payout');
	return {
		...template,
		nodes: template.nodes.map((node) =>
			node.name === 'Top Up' ? { ...node, ...RETRY_ON_FAIL } : node,
		),
	};
}

/** The template's Top Up node (its parameters and settings) after a step that gives each row its Transfer ID: a batch of top-ups. */
function claimedBatch(): Workflow {
	const topUp = example('queue-claim-payout').nodes.find((node) => node.name === 'Top Up') as Json;
	const parameters = {
		...(topUp.parameters as Json),
		amount: '={{ $json.amount }}',
		rechargeAccount: '={{ $json.account }}',
		additionalFields: { transferId: '={{ $json.transferId }}' },
	};
	const rows = [
		{ transferId: 'p1b_refused', amount: '11.00', account: seed.rechargeAccounts.unknown },
		{ transferId: 'p1b_paid_1', amount: '12.00', account: seed.rechargeAccounts.configured },
		{ transferId: 'p1b_paid_2', amount: '13.00', account: seed.rechargeAccounts.configured },
	];
	const nodes = [
		start('p1b'),
		rowsNode('p1b', rows),
		splitNode('p1b'),
		{ ...topUp, id: 'p1b-topup', position: at(3), parameters, ...RETRY_ON_FAIL },
	];
	return {
		id: 'pathsClaimedBatch',
		name: "E2E paths: the template's Top Up, a batch",
		nodes,
		connections: chain('Start', 'Rows', 'One Item per Row', 'Top Up'),
		settings: { executionOrder: 'v1' },
		active: false,
	};
}

/** Rows → Pay (On Error: error output) → Pay Again (the same parameters) on that output. */
function retryBranch(id: string, keyed: boolean, rows: Json[]): Workflow {
	const parameters = {
		operation: 'internalTransfer',
		amount: '={{ $json.amount }}',
		rechargeAccount: '={{ $json.account }}',
		...(keyed
			? { topUpKey: '={{ $json.key }}', additionalFields: {} }
			: { additionalFields: { transferId: '={{ $json.transferId }}' } }),
		options: { dashboardStatus: '={{ $json.dashboardStatus }}' },
	};
	const nodes = [
		start(id),
		rowsNode(id, rows),
		splitNode(id),
		{
			id: `${id}-pay`,
			name: 'Pay',
			type: 'n8n-nodes-payouts.payoutsTransfer',
			typeVersion: 1,
			position: at(3),
			credentials,
			onError: 'continueErrorOutput',
			parameters,
		},
		{
			id: `${id}-again`,
			name: 'Pay Again',
			type: 'n8n-nodes-payouts.payoutsTransfer',
			typeVersion: 1,
			position: at(4, 1),
			credentials,
			onError: 'continueRegularOutput',
			parameters,
		},
	];
	const connections = {
		...chain('Start', 'Rows', 'One Item per Row', 'Pay'),
		Pay: { main: [[], [{ node: 'Pay Again', type: 'main', index: 0 }]] },
	};
	return {
		id,
		name: `E2E paths: retry branch ${id}`,
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
		active: false,
	};
}

const BRANCH_ROWS = (prefix: string) => [
	{
		transferId: `${prefix}_lost_after`,
		key: `${prefix}-lost-after`,
		amount: 21,
		account: seed.rechargeAccounts.configured,
		dashboardStatus: '',
	},
	{
		transferId: `${prefix}_lost_before`,
		key: `${prefix}-lost-before`,
		amount: 22,
		account: seed.rechargeAccounts.configured,
		dashboardStatus: '',
	},
	{
		transferId: `${prefix}_answered`,
		key: `${prefix}-answered`,
		amount: 23,
		account: seed.rechargeAccounts.configured,
		dashboardStatus: '',
	},
];

/** 3,000 standard transfers, Concurrency 10, as a user leaves On Error (the run stops with one error). */
const KILL_ROWS = 3000;
const killedBatch: Workflow = {
	id: 'pathsKilledBatch',
	name: 'E2E paths: 3,000 standard transfers, n8n killed',
	nodes: [
		start('p3'),
		{
			id: 'p3-rows',
			name: 'Rows',
			type: 'n8n-nodes-base.code',
			typeVersion: 2,
			position: at(1),
			parameters: { jsCode: killRowsCode({}) },
		},
		{
			id: 'p3-pay',
			name: 'Pay',
			type: 'n8n-nodes-payouts.payoutsTransfer',
			typeVersion: 1,
			position: at(2),
			credentials,
			parameters: {
				operation: 'standardTransfer',
				beneId: '={{ $json.beneId }}',
				amount: '={{ $json.amount }}',
				transferId: '={{ $json.transferId }}',
				transferMode: 'banktransfer',
				additionalFields: {},
				options: { concurrency: 10, dashboardStatus: '={{ $json.dashboardStatus }}' },
			},
		},
	],
	connections: chain('Start', 'Rows', 'Pay'),
	settings: { executionOrder: 'v1' },
	active: false,
};
function killRowsCode(statuses: Record<string, string>) {
	return `const statuses = ${JSON.stringify(statuses)};\nreturn Array.from({ length: ${KILL_ROWS} }, (_, i) => ({ json: { beneId: '${seed.beneficiaries.verified}', amount: 1 + (i % 50), transferId: 'p3_kill_' + i, dashboardStatus: statuses['p3_kill_' + i] ?? '' } }));`;
}

const WORKFLOWS = {
	template: templateWithRetries(),
	claimedBatch: claimedBatch(),
	branchById: retryBranch('pathsBranchById', false, BRANCH_ROWS('p2id')),
	branchByKey: retryBranch('pathsBranchByKey', true, BRANCH_ROWS('p2key')),
	killed: killedBatch,
};

let suite: SuiteN8n;
let sandbox: Sandbox;
let rest: Rest;
let postgres: { port: number; stop: () => Promise<void> } | undefined;
let postgresDir: string | undefined;

const describePostgres =
	queue.missingQueueTools().length === 0 || process.env.CI ? describe : describe.skip;
if (queue.missingQueueTools().length && !process.env.CI)
	process.stderr.write(
		`[paths test] the template's tests SKIPPED: install ${queue.missingQueueTools().join(' and ')} (Debian packages) to run them\n`,
	);

beforeAll(async () => {
	suite = await suiteN8n({
		name: 'e2e-paths',
		sandbox: { internalDuplicates: 'book', latencyMs: 20, latencyJitterMs: 20 },
		workflows: Object.values(WORKFLOWS),
		server: true,
	});
	sandbox = suite.sandbox;
	rest = suite.rest as Rest;
	if (queue.missingQueueTools().length === 0) {
		// The template's claims table in a Postgres of its own (n8n stays on SQLite), made as its user makes it.
		postgresDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payouts-paths-pg-'));
		fs.chmodSync(postgresDir, 0o755);
		postgres = await queue.startPostgres({
			dir: path.join(postgresDir, 'postgres'),
			port: await n8n.freePort(),
			fast: true,
		});
		execFileSync(
			'psql',
			[
				'-h',
				'127.0.0.1',
				'-p',
				String(postgres!.port),
				'-U',
				queue.DATABASE.user,
				'-d',
				queue.DATABASE.name,
				'-v',
				'ON_ERROR_STOP=1',
				'-q',
				'-f',
				queue.CLAIMS_SQL,
			],
			{ stdio: ['ignore', 'pipe', 'pipe'] },
		);
		// Its credential, and the template published, as a user does before its first event: n8n registers the webhook at start.
		await (suite.server as { stop: () => Promise<void> }).stop();
		await n8n.importCredentials(suite.userFolder, suite.env, [
			queue.claimsCredential(postgres!.port),
		]);
		// n8n binds a template's credentials by name when it imports it: again, now that the claims database's exists.
		await n8n.importWorkflows(suite.userFolder, suite.env, [WORKFLOWS.template]);
		await n8n.publishWorkflow(suite.env, WORKFLOWS.template.id);
		rest = await suite.restart();
	}
});

afterAll(async () => {
	await suite?.close();
	await postgres?.stop();
	if (postgresDir) fs.rmSync(postgresDir, { recursive: true, force: true });
});

beforeEach(async () => {
	await n8n.stopRunningExecutions(rest, { idle: () => sandbox.state().inFlight === 0 });
	sandbox.reset();
	sandbox.configure({ internalDuplicates: 'book', latencyMs: 20, latencyJitterMs: 20 });
});

const ledger = () => sandbox.state().transfers;
const requestsFor = (transferId: string) =>
	sandbox
		.requests()
		.filter(
			(request) => request.method === 'POST' && (request.body as Json)?.transferId === transferId,
		).length;
const dashboardExport = () =>
	new Map(
		sandbox
			.dashboardCsv()
			.split('\r\n')
			.slice(1)
			.filter(Boolean)
			.map((line) => line.split(',') as [string, string]),
	);
const log = (line: string) => process.stderr.write(`[paths test] ${line}\n`);

/** Changes a saved workflow's node as a user does in the editor. */
async function edit(id: string, nodeName: string, change: (parameters: Json) => Json) {
	const saved = (await rest('GET', `/workflows/${id}`)) as {
		nodes: Array<{ name: string; parameters: Json }>;
		connections: Json;
		versionId: string;
	};
	const target = saved.nodes.find((entry) => entry.name === nodeName);
	if (!target) throw new Error(`no node ${nodeName} in ${id}`);
	target.parameters = change(target.parameters);
	await rest('PATCH', `/workflows/${id}`, {
		nodes: saved.nodes,
		connections: saved.connections,
		versionId: saved.versionId,
	});
}

describePostgres(
	'1. the queue-claim template with Retry On Fail on its Top Up node (3 tries)',
	() => {
		const post = async (eventId: string, amount: string) => {
			// Signed as a sender does (examples/sign-event.js), with the secret npm start gives "Payouts Event Signing".
			const response = await fetch(`${rest.url}/webhook/payouts-claimed-topup`, {
				method: 'POST',
				...signEvent(
					`${rest.url}/webhook/payouts-claimed-topup`,
					{ eventId, amount },
					n8n.EVENT_SIGNING.secret,
				),
			});
			return { code: response.status, body: (await response.json()) as Json };
		};

		test('each event paid at most once: paid, its answer lost after or before booking, first refused then paid; every redelivery answered from the claim, nothing sent again', async () => {
			await n8n.waitForWebhook(rest.url, 'payouts-claimed-topup');
			sandbox.configure({
				faults: [
					{ fault: 'drop-after', match: { transferId: 'p1_lost_after' }, times: 1 },
					{ fault: 'drop-before', match: { transferId: 'p1_lost_before' }, times: 1 },
					{
						fault: 'replay',
						match: { transferId: 'p1_refused_once' },
						times: 1,
						status: 422,
						body: JSON.stringify({
							status: 'ERROR',
							subCode: '422',
							message: 'Account not configured; contact the account manager',
						}),
					},
				],
			});
			const first = {
				paid: await post('p1_paid', '31.00'),
				lostAfter: await post('p1_lost_after', '32.00'),
				lostBefore: await post('p1_lost_before', '33.00'),
				refusedOnce: await post('p1_refused_once', '34.00'),
			};
			log(
				`template, first deliveries: ${JSON.stringify(Object.fromEntries(Object.entries(first).map(([key, answer]) => [key, `${answer.code} ${answer.body.status}`])))}`,
			);
			expect(first.paid).toEqual({
				code: 200,
				body: expect.objectContaining({ status: 'SUCCESS' }),
			});
			// Lost: n8n ran Top Up again (its first item carried an error); the node knew this execution sent it: never sent again.
			expect(first.lostAfter).toEqual({
				code: 503,
				body: expect.objectContaining({ status: 'UNKNOWN' }),
			});
			expect(first.lostBefore).toEqual({
				code: 503,
				body: expect.objectContaining({ status: 'UNKNOWN' }),
			});
			expect(requestsFor('p1_lost_after')).toBe(1);
			expect(requestsFor('p1_lost_before')).toBe(1);
			// A clear refusal moved no money: n8n's retry sent it again, and it paid (so the retries did run).
			expect(first.refusedOnce).toEqual({
				code: 200,
				body: expect.objectContaining({ status: 'SUCCESS' }),
			});
			expect(requestsFor('p1_refused_once')).toBe(2);

			// The sender delivers every event again: each answered from its claim, nothing sent.
			sandbox.clearRequests();
			const again = await Promise.all(
				Object.entries({
					p1_paid: '31.00',
					p1_lost_after: '32.00',
					p1_lost_before: '33.00',
					p1_refused_once: '34.00',
				}).map(([eventId, amount]) => post(eventId, amount)),
			);
			expect(again.map((answer) => [answer.code, answer.body.status])).toEqual([
				[200, 'ALREADY_SUBMITTED'],
				[503, 'UNKNOWN'],
				[503, 'UNKNOWN'],
				[200, 'ALREADY_SUBMITTED'],
			]);
			expect(sandbox.requests().filter((request) => request.method === 'POST')).toEqual([]);
			const paid = ledger()
				.map((transfer) => `${transfer.transferId} ${transfer.amount}`)
				.sort();
			expect(paid).toEqual(['p1_lost_after 32', 'p1_paid 31', 'p1_refused_once 34']);
		});

		test('its Top Up node in a batch [refused row, paid row, paid row]: n8n runs it again for the refused first row, and each paid row is paid once', async () => {
			const run = await runInServer(rest, WORKFLOWS.claimedBatch.id);
			expectRun(run, { status: 'success' }, sandbox);
			const items = run.output('Top Up');
			log(
				`template's Top Up, a batch: ${items.map((item) => `${item.transferId} ${item.status}`).join(', ')}; requests ${JSON.stringify(['p1b_refused', 'p1b_paid_1', 'p1b_paid_2'].map(requestsFor))}`,
			);
			// Three tries (the refused row leads every try's output), the refused row sent each time, nothing paid for it.
			expect(requestsFor('p1b_refused')).toBe(3);
			expect(items[0]).toMatchObject({
				status: 'ERROR',
				transferId: 'p1b_refused',
				nextStep: expect.any(String),
			});
			// The paid rows went out once, in the first try; later tries read what this execution sent.
			expect([requestsFor('p1b_paid_1'), requestsFor('p1b_paid_2')]).toEqual([1, 1]);
			expect(items.slice(1).map((item) => item.status)).toEqual([
				'ALREADY_SUBMITTED',
				'ALREADY_SUBMITTED',
			]);
			expect(
				ledger()
					.map((transfer) => `${transfer.transferId} ${transfer.amount}`)
					.sort(),
			).toEqual(['p1b_paid_1 12', 'p1b_paid_2 13']);
		});
	},
);

describe("2. a retry branch: a second Payouts Transfer node on the first one's error output, the same parameters", () => {
	test.each([
		['an explicit Transfer ID', 'branchById', 'p2id'],
		['a Top-Up Key', 'branchByKey', 'p2key'],
	] as const)(
		'internal transfers with %s, the first answer lost after and before booking: paid once, never sent again, settled from the dashboard',
		async (_what, key, prefix) => {
			const workflow = WORKFLOWS[key];
			const rows = BRANCH_ROWS(prefix);
			const idOf = (index: number) => (key === 'branchById' ? rows[index].transferId : undefined);
			// With a Top-Up Key the Transfer ID is made by the node: the faults go by order (Concurrency 1: row 0, then row 1).
			if (!idOf(0))
				sandbox.configure({
					faults: [
						{ fault: 'drop-after', match: { path: '/payout/v1/internalTransfer' }, times: 1 },
						{ fault: 'drop-before', match: { path: '/payout/v1/internalTransfer' }, times: 1 },
					],
				});
			else
				sandbox.configure({
					faults: [
						{ fault: 'drop-after', match: { transferId: idOf(0) }, times: 1 },
						{ fault: 'drop-before', match: { transferId: idOf(1) }, times: 1 },
					],
				});
			const first = await runInServer(rest, workflow.id);
			expectRun(first, { status: 'success' }, sandbox);
			const failed = first.output('Pay', 1);
			const again = first.output('Pay Again');
			log(
				`retry branch (${_what}): Pay ${first
					.output('Pay')
					.map((item) => item.status)
					.join(
						', ',
					)} | error output ${failed.map((item) => (item.error as Json).status).join(', ')} | Pay Again ${again.map((item) => `${item.status}/${item.nextStep}`).join(', ')}`,
			);
			expect(first.output('Pay').map((item) => item.status)).toEqual(['SUCCESS']);
			expect(failed.map((item) => (item.error as Json).status)).toEqual(['UNKNOWN', 'UNKNOWN']);
			// The second node reads the workflow's record: the same Transfer IDs, in doubt, not sent.
			expect(again.map((item) => [item.status, item.nextStep])).toEqual([
				['UNKNOWN', 'settleFromDashboard'],
				['UNKNOWN', 'settleFromDashboard'],
			]);
			expect(again.map((item) => item.transferId)).toEqual(
				failed.map((item) => (item.error as Json).transferId),
			);
			const transferIds = [
				String((failed[0].error as Json).transferId),
				String((failed[1].error as Json).transferId),
				String(first.output('Pay')[0].transferId),
			];
			expect(sandbox.requests().filter((request) => request.method === 'POST')).toHaveLength(3);
			expect(
				ledger()
					.map((transfer) => transfer.amount)
					.sort(),
			).toEqual([21, 23]);

			// The whole workflow again: nothing sent, nothing paid twice.
			sandbox.configure({ faults: [] });
			sandbox.clearRequests();
			const rerun = await runInServer(rest, workflow.id);
			expectRun(rerun, { status: 'success' }, sandbox);
			expect(sandbox.requests().filter((request) => request.method === 'POST')).toEqual([]);

			// Settled once the runs have ended, as docs/safety.md says: the export's word mapped to each row.
			const exported = dashboardExport();
			const withStatus = rows.map((row, index) => ({
				...row,
				dashboardStatus: index < 2 ? (exported.get(transferIds[index]) ?? 'NOT_FOUND') : '',
			}));
			await edit(workflow.id, 'Rows', (parameters) => ({
				...parameters,
				jsonOutput: JSON.stringify({ rows: withStatus }),
			}));
			const settled = await runInServer(rest, workflow.id);
			expectRun(settled, { status: 'success' }, sandbox);
			expect(settled.output('Pay').map((item) => [item.transferId, item.status])).toEqual([
				[transferIds[0], 'ALREADY_SUBMITTED'],
				[transferIds[2], 'ALREADY_SUBMITTED'],
			]);
			// Not paid (NOT_FOUND): never sent again under that Transfer ID, by either node.
			const notPaid = [
				...settled.output('Pay', 1).map((item) => item.error as Json),
				...settled.output('Pay Again'),
			];
			expect(notPaid.map((item) => [item.transferId, item.status, item.nextStep])).toEqual([
				[transferIds[1], 'ERROR', 'newTransferId'],
				[transferIds[1], 'ERROR', 'newTransferId'],
			]);
			expect(sandbox.requests().filter((request) => request.method === 'POST')).toEqual([]);
			// Paid under a new Transfer ID or key, as the hint says: once.
			const renamed = withStatus.map((row, index) =>
				index === 1
					? { ...row, transferId: `${row.transferId}_2`, key: `${row.key}-2`, dashboardStatus: '' }
					: row,
			);
			await edit(workflow.id, 'Rows', (parameters) => ({
				...parameters,
				jsonOutput: JSON.stringify({ rows: renamed }),
			}));
			const paid = await runInServer(rest, workflow.id);
			expectRun(paid, { status: 'success' }, sandbox);
			expect(paid.output('Pay').map((item) => item.status)).toEqual([
				'ALREADY_SUBMITTED',
				'SUCCESS',
				'ALREADY_SUBMITTED',
			]);
			expect(paid.output('Pay Again')).toEqual([]);
			expect(
				ledger()
					.map((transfer) => transfer.amount)
					.sort(),
			).toEqual([21, 22, 23]);
			expect(new Set(ledger().map((transfer) => transfer.transferId)).size).toBe(3);
		},
	);
});

describe('3. 3,000 standard transfers, n8n killed (SIGKILL) in the middle, run again after the restart', () => {
	test('the re-run pays every row that needs no person and ends with one error listing those that do (UNKNOWN with nextStep); settled from the dashboard, the batch completes; each row paid once', async () => {
		const id = WORKFLOWS.killed.id;
		const workflowData = (await rest('GET', `/workflows/${id}`)) as Json;
		await rest('POST', `/workflows/${id}/run`, {
			workflowData,
			triggerToStartFrom: { name: 'Start' },
		});
		await until(
			'half of the batch paid',
			() => ledger().length >= KILL_ROWS / 2 || undefined,
			600,
			100,
		);
		// Requests in flight at the kill: the next ten answers are slow.
		sandbox.configure({
			faults: [{ fault: 'latency', match: { method: 'POST' }, latencyMs: 1500, times: 10 }],
		});
		await until(
			'transfers in flight at the service',
			() => sandbox.state().inFlight >= 5 || undefined,
			30,
			20,
		);
		const paidAtKill = ledger().length;
		killTree((suite.server as { child: { pid: number } }).child.pid);
		await until(
			'the service to finish the requests in flight',
			() => sandbox.state().inFlight === 0 || undefined,
			30,
			50,
		);
		log(
			`killed n8n with ${paidAtKill} of ${KILL_ROWS} paid; ${ledger().length} once the requests in flight landed`,
		);
		rest = await suite.restart();
		sandbox.configure({ faults: [] });
		sandbox.clearRequests();

		const rerun = await runInServer(rest, id, { seconds: 15 * 60 });
		const rows = ((rerun.error?.context as Json | undefined)?.rows ?? []) as Json[];
		const tally = rows.reduce<Record<string, number>>(
			(counts, row) => ({
				...counts,
				[`${row.status}${row.nextStep ? `/${row.nextStep}` : ''}`]:
					(counts[`${row.status}${row.nextStep ? `/${row.nextStep}` : ''}`] ?? 0) + 1,
			}),
			{},
		);
		log(
			`the re-run: ${rerun.status}; its error's rows: ${JSON.stringify(tally)}; ${rerun.describe(sandbox)}`,
		);
		expect(rerun.status).toBe('error');
		expect(rows).toHaveLength(KILL_ROWS);
		// Every row paid once: the ones that need no person now, and the ones in doubt before the kill.
		const booked = ledger();
		expect(booked).toHaveLength(KILL_ROWS);
		expect(new Set(booked.map((transfer) => transfer.transferId)).size).toBe(KILL_ROWS);
		const bookedIds = new Set(booked.map((transfer) => transfer.transferId));
		// Rows that need a person: in doubt (the service holds them: its requests went out as n8n died), each with what to do.
		const needs = rows.filter(
			(row) => !['SUCCESS', 'ALREADY_SUBMITTED'].includes(String(row.status)),
		);
		expect(needs.length).toBeGreaterThan(0);
		expect(needs.length).toBeLessThanOrEqual(50);
		for (const row of needs)
			expect({
				transferId: row.transferId,
				status: row.status,
				nextStep: row.nextStep,
				booked: bookedIds.has(String(row.transferId)),
			}).toEqual({
				transferId: row.transferId,
				status: 'UNKNOWN',
				nextStep: 'settleFromDashboard',
				booked: true,
			});
		expect(String(rerun.error?.message)).toMatch(
			new RegExp(
				`^${needs.length > 1 ? `${needs.length} rows are in doubt \\(they may have been paid\\) and need you; the first: ` : ''}The outcome of the transfer is unknown`,
			),
		);
		// The re-run sent only rows not paid before, and each at most once.
		const sent = sandbox
			.requests()
			.filter((request) => request.method === 'POST')
			.map((request) => String((request.body as Json).transferId));
		expect(sent.length - new Set(sent).size).toBe(0);
		expect(
			rows
				.filter((row) => row.status === 'SUCCESS')
				.map((row) => row.transferId)
				.sort(),
		).toEqual(
			sent.filter((transferId) => !needs.some((row) => row.transferId === transferId)).sort(),
		);

		// Settled as docs/safety.md says, from an export taken now that no run is sending: the batch completes.
		const exported = dashboardExport();
		const statuses = Object.fromEntries(
			needs.map((row) => [
				String(row.transferId),
				exported.get(String(row.transferId)) ?? 'NOT_FOUND',
			]),
		);
		await edit(id, 'Rows', (parameters) => ({ ...parameters, jsCode: killRowsCode(statuses) }));
		sandbox.clearRequests();
		const settled = await runInServer(rest, id, { seconds: 15 * 60 });
		expectRun(settled, { status: 'success' }, sandbox);
		const items = settled.output('Pay');
		expect(items.filter((item) => item.status !== 'ALREADY_SUBMITTED')).toEqual([]);
		expect(items.filter((item) => item.dashboardStatus === 'SUCCESS')).toHaveLength(needs.length);
		expect(sandbox.requests().filter((request) => request.method === 'POST')).toEqual([]);
		expect(ledger()).toHaveLength(KILL_ROWS);
	});
});

/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- test code runs in Node under jest, never inside n8n (it uses Node's own modules, child processes, files and timers, and reads n8n's SQLite with the runtime's sqlite3); these rules guard the code n8n loads (nodes/, credentials/) */
/**
 * Issue 48's templates as an operator runs them for a year, in real n8n (`n8n start` as `npm start`
 * runs it, regular mode, SQLite; the queue-mode template's claims table in a throw-away Postgres of
 * its own), each imported as shipped and published, judged by the sandbox's ledger and by the
 * requests it received:
 * - a token made for one template is refused by the other (401, nothing claimed, nothing sent);
 * - a replay pays nothing more, in both;
 * - a paid event delivered again after the workflow's record is full is answered paid (from the
 *   record of events), and so is a new event paid then;
 * - an UNKNOWN event settled as each template says (the dashboard's word in the event's row, or in
 *   its claim) is answered as settled: paid (200) or never payable under its Transfer ID (409);
 * - the daily cap refuses once reached, also with deliveries at once, and the day's payouts never
 *   pass it;
 * - the signing secret rotated as docs/examples.md says: two webhooks, two secrets, both open during
 *   the change, each token only its own;
 * - a second import of each webhook template (as the editor saves an import) publishes beside the first;
 * - the OAuth flow whose last step fails leaves no token in any saved execution, wired to its alert
 *   or not.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { example, n8n, savedExecution, suiteN8n, until } from '../helpers/e2e';
import type { Json, Rest, SuiteN8n, Workflow } from '../helpers/e2e';
import { seed } from '../../harness/sandbox';
import type { Sandbox } from '../../harness/sandbox';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { signEvent } = require('../../examples/sign-event.js') as {
	signEvent: (
		url: string,
		body: unknown,
		secret: string,
		options?: { now?: number; audience?: string },
	) => { body: string; headers: Record<string, string> };
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const queue = require('../../scripts/queue.js');

jest.setTimeout(30 * 60 * 1000);

const withPostgres = queue.missingQueueTools().length === 0 || Boolean(process.env.CI);
const describePostgres = withPostgres ? describe : describe.skip;
if (!withPostgres)
	process.stderr.write(
		`[templates test] the queue-mode template's tests SKIPPED: install ${queue.missingQueueTools().join(' and ')} (Debian packages) to run them\n`,
	);

/** The next secret of "Payouts Event Signing", for a rotation (docs/examples.md, "Rotating the signing secret"). */
const NEXT_SIGNING = {
	id: 'payoutsEventSigningNext',
	name: 'Payouts Event Signing (next)',
	secret: 'the-next-signing-secret-of-this-test',
};

/** A copy of an example under its own id and webhook paths, its nodes changed by `change`. */
function copyOf(
	name: string,
	id: string,
	paths: Record<string, string>,
	change: (workflow: Workflow) => Workflow = (workflow) => workflow,
): Workflow {
	const shipped = example(name);
	return change({
		...shipped,
		id,
		name: `E2E templates: ${id}`,
		nodes: shipped.nodes.map((node) =>
			node.type === 'n8n-nodes-base.webhook'
				? {
						...node,
						webhookId: `${paths[node.name as string]}-0001`,
						parameters: { ...(node.parameters as Json), path: paths[node.name as string] },
					}
				: node,
		),
	});
}

/** The event template with a second way in during a rotation: a webhook of its own with the next secret, into the same Body Digest. */
const rotation = copyOf(
	'event-payout',
	'payoutsEventRotation',
	{ 'Payout Event': 'rot-event' },
	(workflow) => ({
		...workflow,
		nodes: [
			...workflow.nodes,
			{
				...(workflow.nodes.find((node) => node.name === 'Payout Event') as Json),
				id: 'rot-next',
				name: 'Payout Event (Next Secret)',
				webhookId: 'rot-event-next-0001',
				position: [0, 500],
				parameters: {
					...((workflow.nodes.find((node) => node.name === 'Payout Event') as Json)
						.parameters as Json),
					path: 'rot-event-next',
				},
				credentials: { jwtAuth: { id: null, name: NEXT_SIGNING.name } },
			},
		],
		connections: {
			...workflow.connections,
			'Payout Event (Next Secret)': { main: [[{ node: 'Body Digest', type: 'main', index: 0 }]] },
		},
	}),
);

/** The OAuth example whose last step (where your app keeps the token) fails, naming the token in its error. */
const storeFails = (id: string, prefix: string, wired: boolean, settings: Json = {}) =>
	copyOf(
		'oauth-callback',
		id,
		{ 'Start a Sign-In': `${prefix}-start`, 'OAuth Redirect URL': `${prefix}-callback` },
		(workflow) => ({
			...workflow,
			settings: { ...(workflow.settings as Json), ...settings },
			nodes: workflow.nodes.map((node) =>
				node.name === 'Store the Token Here'
					? {
							id: node.id,
							name: node.name,
							position: node.position,
							// A step that fails as a token store may, naming what it was given (a Code node: it has an output, as yours has).
							type: 'n8n-nodes-base.code',
							typeVersion: 2,
							...(wired ? { onError: 'continueErrorOutput' } : {}),
							parameters: {
								jsCode:
									"throw new Error('The token store refused ' + $input.first().json.access_token);",
							},
						}
					: node,
			),
		}),
	);
const WORKFLOWS = {
	event: example('event-payout'),
	claim: example('queue-claim-payout'),
	rotation,
	storeFailsWired: storeFails('payoutsOAuthStoreFails', 'oauth-fails', true),
	storeFailsStops: storeFails('payoutsOAuthStoreStops', 'oauth-stops', false),
	// Test-only: its successful executions are saved, to read what the alert says (the shipped settings save none).
	storeFailsSaved: storeFails('payoutsOAuthStoreSaved', 'oauth-saved', true, {
		saveDataSuccessExecution: 'all',
	}),
};

let suite: SuiteN8n;
let sandbox: Sandbox;
let rest: Rest;
let postgres: { port: number; stop: () => Promise<void> } | undefined;
let postgresDir: string | undefined;

beforeAll(async () => {
	if (withPostgres) {
		// The claims table in a Postgres of its own, made as its user makes it (n8n stays on SQLite).
		postgresDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payouts-templates-pg-'));
		fs.chmodSync(postgresDir, 0o755);
		postgres = await queue.startPostgres({
			dir: path.join(postgresDir, 'postgres'),
			port: await n8n.freePort(),
			fast: true,
		});
		psql(['-v', 'ON_ERROR_STOP=1', '-q', '-f', queue.CLAIMS_SQL]);
	}
	suite = await suiteN8n({
		name: 'e2e-templates',
		credentials: [
			n8n.signingCredential(NEXT_SIGNING),
			...(postgres ? [queue.claimsCredential(postgres.port)] : []),
		],
		workflows: Object.values(WORKFLOWS).filter(
			(workflow) => postgres || workflow !== WORKFLOWS.claim,
		),
		publish: Object.values(WORKFLOWS)
			.filter((workflow) => postgres || workflow !== WORKFLOWS.claim)
			.map((workflow) => workflow.id),
		server: true,
	});
	sandbox = suite.sandbox;
	rest = suite.rest as Rest;
	for (const webhookPath of ['payouts-event', 'rot-event', 'rot-event-next', 'oauth-fails-start'])
		await n8n.waitForWebhook(rest.url, webhookPath);
	if (postgres) await n8n.waitForWebhook(rest.url, 'payouts-claimed-topup');
});

afterAll(async () => {
	await suite?.close();
	await postgres?.stop();
	if (postgresDir) fs.rmSync(postgresDir, { recursive: true, force: true });
});

function psql(args: string[]): string {
	return execFileSync(
		'psql',
		[
			'-h',
			'127.0.0.1',
			'-p',
			String(postgres?.port),
			'-U',
			queue.DATABASE.user,
			'-d',
			queue.DATABASE.name,
			...args,
		],
		{ encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
	).trim();
}
/** What payouts.claims holds for a Transfer ID: its status ('' for none yet), or undefined. */
function claimOf(transferId: string): string | undefined {
	const out = psql([
		'-tAc',
		`SELECT COALESCE(status, '') || '|' FROM payouts.claims WHERE transfer_id = '${transferId.replace(/'/g, "''")}'`,
	]);
	return out === '' ? undefined : out.slice(0, -1);
}

type Answer = { code: number; body: Json; retryAfter: string | null };
/** A signed event, as the sender's script signs it: for `signedFor` (the webhook it is sent to, unless said), with `secret`. */
async function deliver(
	webhookPath: string,
	event: Json,
	{
		signedFor = webhookPath,
		secret = n8n.EVENT_SIGNING.secret,
	}: { signedFor?: string; secret?: string } = {},
): Promise<Answer> {
	const response = await fetch(`${rest.url}/webhook/${webhookPath}`, {
		method: 'POST',
		...signEvent(`${rest.url}/webhook/${signedFor}`, event, secret),
	});
	const text = await response.text();
	let body: Json;
	try {
		body = JSON.parse(text) as Json;
	} catch {
		body = { text };
	}
	return { code: response.status, body, retryAfter: response.headers.get('retry-after') };
}
const payout = (eventId: string, amount = '25.00', beneId = seed.beneficiaries.verified) => ({
	eventId,
	beneId,
	amount,
});
const topUp = (eventId: string, amount = '25.00') => ({ eventId, amount });
const bookedAs = (prefix: string) =>
	sandbox
		.state()
		.transfers.filter((transfer) => transfer.transferId.startsWith(prefix))
		.map((transfer) => `${transfer.transferId} ${transfer.amount}`);
const requestsFor = (transferId: string) =>
	sandbox
		.requests()
		.filter(
			(request) => request.method === 'POST' && (request.body as Json)?.transferId === transferId,
		).length;
const said = (answer: Answer) => [answer.code, answer.body.status];

// ---- The record of events: n8n's data table, as its page in the editor shows it --------------

async function eventsTable(): Promise<{ project: string; table?: string }> {
	const project = ((await rest('GET', '/projects/personal')) as { id: string }).id;
	const listed = (await rest('GET', `/projects/${project}/data-tables`)) as
		| { data: Array<{ id: string; name: string }> }
		| Array<{ id: string; name: string }>;
	const tables = Array.isArray(listed) ? listed : listed.data;
	// The template makes it at its first event that passes the checks.
	return { project, table: tables.find((entry) => entry.name === 'payouts_events')?.id };
}
async function eventRows(): Promise<Json[]> {
	const { project, table } = await eventsTable();
	if (!table) return [];
	const rows: Json[] = [];
	for (let skip = 0; ; skip += 500) {
		const page = (await rest(
			'GET',
			`/projects/${project}/data-tables/${table}/rows?take=500&skip=${skip}`,
		)) as {
			data: Json[];
		};
		rows.push(...page.data);
		if (page.data.length < 500) return rows;
	}
}
/** What an operator types into the event's row (dashboardStatus), as the data table's page saves it. */
async function settleEvent(transferId: string, dashboardStatus: string) {
	const { project, table } = await eventsTable();
	await rest('PATCH', `/projects/${project}/data-tables/${table}/rows`, {
		filter: {
			type: 'and',
			filters: [{ columnName: 'transferId', condition: 'eq', value: transferId }],
		},
		data: { dashboardStatus },
	});
}

// ---- The workflow's own record (n8n's processed data), filled from outside -----------------

/** n8n's row of a workflow's record, filled to `fill` entries with filler no transfer uses (the runtime's sqlite3); its size. */
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
	for (let n = 0; value.data.length < fill; n++) value.data.push(crypto.createHash('md5').update('templates-test-filler:' + n).digest('base64'));
	db.run("UPDATE processed_data SET value = ? WHERE workflowId = ? AND context = ''", [JSON.stringify(value), ${JSON.stringify(workflowId)}], (failed) => {
		if (failed) { console.error(failed.message); process.exit(1); }
		process.stdout.write(String(value.data.length));
	});
});`;
	return Number(execFileSync(runtime.nodeBin, ['-e', script], { encoding: 'utf8' }));
}

describe('one token per workflow', () => {
	describePostgres('the event template and the queue-mode template, both published', () => {
		test('a token made for one template is refused by the other with nothing claimed or sent; at its own webhook it pays once', async () => {
			const requests = sandbox.requests().length;
			const intoClaims = await deliver('payouts-claimed-topup', topUp('tpl-cross-1', '250.00'), {
				signedFor: 'payouts-event',
			});
			const intoEvents = await deliver('payouts-event', payout('tpl_cross_2', '250.00'), {
				signedFor: 'payouts-claimed-topup',
			});
			expect([said(intoClaims), said(intoEvents)]).toEqual([
				[401, 'UNSIGNED'],
				[401, 'UNSIGNED'],
			]);
			expect(String(intoClaims.body.message)).toMatch(/made for another webhook/);
			expect(sandbox.requests().length).toBe(requests);
			expect(claimOf('tpl-cross-1')).toBeUndefined();
			expect((await eventRows()).filter((row) => row.transferId === 'tpl_cross_2')).toEqual([]);
			// Each at the webhook it was made for: paid once; the same signed request again: paid before.
			for (const [webhookPath, event] of [
				['payouts-event', payout('tpl_cross_2', '250.00')],
				['payouts-claimed-topup', topUp('tpl-cross-1', '250.00')],
			] as const) {
				expect(said(await deliver(webhookPath, event))).toEqual([200, 'SUCCESS']);
				expect(said(await deliver(webhookPath, event))).toEqual([200, 'ALREADY_SUBMITTED']);
			}
			expect(bookedAs('tpl_cross_2')).toEqual(['tpl_cross_2 250']);
			expect(bookedAs('tpl-cross-1')).toEqual(['tpl-cross-1 250']);
		});
	});

	test('a replay pays nothing more: the same signed request twice, then the event delivered again', async () => {
		const request = signEvent(
			`${rest.url}/webhook/payouts-event`,
			payout('tpl_replay_1'),
			n8n.EVENT_SIGNING.secret,
		);
		const send = async () => {
			const response = await fetch(`${rest.url}/webhook/payouts-event`, {
				method: 'POST',
				...request,
			});
			return [response.status, ((await response.json()) as Json).status];
		};
		expect(await send()).toEqual([200, 'SUCCESS']);
		expect(await send()).toEqual([200, 'ALREADY_SUBMITTED']);
		expect(said(await deliver('payouts-event', payout('tpl_replay_1')))).toEqual([
			200,
			'ALREADY_SUBMITTED',
		]);
		expect(requestsFor('tpl_replay_1')).toBe(1);
		expect(bookedAs('tpl_replay_1')).toEqual(['tpl_replay_1 25']);
	});

	test('the signing secret rotated as the docs say: both webhooks open during the change, each with its own secret, no token opens the other', async () => {
		const requests = sandbox.requests().length;
		const old = await deliver('rot-event', payout('tpl_rot_1'));
		const next = await deliver('rot-event-next', payout('tpl_rot_2'), {
			secret: NEXT_SIGNING.secret,
		});
		expect([said(old), said(next)]).toEqual([
			[200, 'SUCCESS'],
			[200, 'SUCCESS'],
		]);
		// A token of one secret at the other's webhook: n8n refuses it; one made for the other webhook: the template does.
		const refused = [
			await deliver('rot-event-next', payout('tpl_rot_3'), { secret: n8n.EVENT_SIGNING.secret }),
			await deliver('rot-event', payout('tpl_rot_4'), { secret: NEXT_SIGNING.secret }),
			await deliver('rot-event', payout('tpl_rot_5'), { signedFor: 'rot-event-next' }),
		];
		expect(refused.map((answer) => answer.code)).toEqual([403, 403, 401]);
		expect(sandbox.requests().length).toBe(requests + 2);
		expect([...bookedAs('tpl_rot_')].sort()).toEqual(['tpl_rot_1 25', 'tpl_rot_2 25']);
	});

	test('a second import of each webhook template, as the editor saves an import, publishes beside the first, at a path of its own', async () => {
		const credentials = (await rest('GET', '/credentials')) as Array<{ id: string; name: string }>;
		const urls: string[] = [];
		const files = [
			'event-payout.json',
			'oauth-callback.json',
			...(postgres ? ['queue-claim-payout.json'] : []),
		];
		for (const file of files) {
			const shipped = JSON.parse(
				fs.readFileSync(path.join(n8n.ROOT, 'examples', file), 'utf8'),
			) as Workflow;
			for (const copy of [1, 2]) {
				// The editor's Import from File, then Save: each webhook given a fresh webhook id, its empty
				// path set to it (as the editor does for a Webhook node without a path; the browser test
				// imports through the editor itself), each credential found by its name.
				const nodes = shipped.nodes.map((node) => ({
					...node,
					...(node.type === 'n8n-nodes-base.webhook'
						? (({ id }) => ({
								webhookId: id,
								parameters: { ...(node.parameters as Json), path: id },
							}))({ id: crypto.randomUUID() })
						: {}),
					...(node.credentials
						? {
								credentials: Object.fromEntries(
									Object.entries(node.credentials as Record<string, { name: string }>).map(
										([type, { name }]) => [
											type,
											{ id: credentials.find((entry) => entry.name === name)?.id ?? null, name },
										],
									),
								),
							}
						: {}),
				}));
				const created = (await rest('POST', '/workflows', {
					...shipped,
					name: `${shipped.name} (import ${copy})`,
					nodes,
				})) as { id: string; versionId: string; nodes: Json[] };
				await rest('POST', `/workflows/${created.id}/activate`, { versionId: created.versionId });
				for (const webhook of created.nodes.filter(
					(node) => node.type === 'n8n-nodes-base.webhook',
				))
					urls.push(String((webhook.parameters as Json).path || webhook.webhookId));
			}
		}
		expect(urls.length).toBe(postgres ? 8 : 6);
		expect(new Set(urls).size).toBe(urls.length);
		// Each copy's own token opens it, and not the other copy's: the first two are the two event templates.
		await n8n.waitForWebhook(rest.url, urls[1]);
		const first = await deliver(urls[0], payout('tpl_import_1'));
		const crossed = await deliver(urls[1], payout('tpl_import_2'), { signedFor: urls[0] });
		expect([said(first), said(crossed)]).toEqual([
			[200, 'SUCCESS'],
			[401, 'UNSIGNED'],
		]);
	});
});

describe('the record of events: paid stays paid when the workflow record is full', () => {
	test("a paid event delivered again after the workflow's record is full is answered paid; a new event is paid and answered paid when it comes again", async () => {
		expect(said(await deliver('payouts-event', payout('tpl_full_1', '30.00')))).toEqual([
			200,
			'SUCCESS',
		]);
		// The record of the event workflow filled to its end (50,000 entries), as a year of events fills it.
		let size = 0;
		for (let attempt = 0; attempt < 20 && size < 50_000; attempt++) {
			recordRow(WORKFLOWS.event.id, 50_000);
			await new Promise((resolve) => setTimeout(resolve, 500));
			size = recordRow(WORKFLOWS.event.id);
		}
		expect(size).toBeGreaterThanOrEqual(50_000);
		const requests = sandbox.requests().length;
		expect(said(await deliver('payouts-event', payout('tpl_full_1', '30.00')))).toEqual([
			200,
			'ALREADY_SUBMITTED',
		]);
		expect(sandbox.requests().length).toBe(requests);
		// A new event: sent (the service refuses a repeat, the record takes on none), and answered paid when it comes again.
		const fresh = await deliver('payouts-event', payout('tpl_full_2', '31.00'));
		expect(said(fresh)).toEqual([200, 'SUCCESS']);
		expect(said(await deliver('payouts-event', payout('tpl_full_2', '31.00')))).toEqual([
			200,
			'ALREADY_SUBMITTED',
		]);
		expect(requestsFor('tpl_full_2')).toBe(1);
		expect(recordRow(WORKFLOWS.event.id)).toBeLessThanOrEqual(50_000);
		expect([...bookedAs('tpl_full_')].sort()).toEqual(['tpl_full_1 30', 'tpl_full_2 31']);
	});
});

describe('UNKNOWN has a way out', () => {
	test("the event template, its workflow's record full as after a year: an event with no clear answer reads 503 until the dashboard word is written into its row; then paid (200), or never payable under its Transfer ID (409)", async () => {
		const paid = payout('tpl_unknown_1', '40.00', seed.beneficiaries.noBankResponse);
		const failed = payout('tpl_unknown_2', '41.00', seed.beneficiaries.noBankResponse);
		for (const event of [paid, failed]) {
			expect(said(await deliver('payouts-event', event))).toEqual([503, 'UNKNOWN']);
			expect(said(await deliver('payouts-event', event))).toEqual([503, 'UNKNOWN']);
		}
		await settleEvent('tpl_unknown_1', 'SUCCESS');
		await settleEvent('tpl_unknown_2', 'FAILED');
		const requests = sandbox.requests().length;
		const settled = [await deliver('payouts-event', paid), await deliver('payouts-event', failed)];
		expect(settled.map(said)).toEqual([
			[200, 'ALREADY_SUBMITTED'],
			[409, 'ERROR'],
		]);
		expect(sandbox.requests().length).toBe(requests);
		// From then on the record answers: paid, and used up, without asking the node.
		expect(said(await deliver('payouts-event', paid))).toEqual([200, 'ALREADY_SUBMITTED']);
		expect(said(await deliver('payouts-event', failed))).toEqual([409, 'ERROR']);
		expect(sandbox.requests().length).toBe(requests);
		// Never paid twice: one booking each (the sandbox books a transfer whose bank did not answer).
		expect([...bookedAs('tpl_unknown_')].sort()).toEqual(['tpl_unknown_1 40', 'tpl_unknown_2 41']);
	});

	describePostgres('the queue-mode template', () => {
		test('a top-up with no clear answer reads 503 from its claim until the dashboard word is written into it; then paid (200), or never payable under its Transfer ID (409)', async () => {
			sandbox.configure({
				faults: [
					{ fault: 'drop-after', match: { transferId: 'tpl-unknown-3' }, times: 1 },
					{ fault: 'drop-after', match: { transferId: 'tpl-unknown-4' }, times: 1 },
				],
			});
			for (const eventId of ['tpl-unknown-3', 'tpl-unknown-4']) {
				expect(said(await deliver('payouts-claimed-topup', topUp(eventId, '42.00')))).toEqual([
					503,
					'UNKNOWN',
				]);
				expect(said(await deliver('payouts-claimed-topup', topUp(eventId, '42.00')))).toEqual([
					503,
					'UNKNOWN',
				]);
			}
			sandbox.configure({ faults: [] });
			// The operator's settling (docs/queue-claims.md): the dashboard's word into the claim.
			psql([
				'-c',
				"UPDATE payouts.claims SET status = 'SUCCESS', answered_at = now() WHERE transfer_id = 'tpl-unknown-3'",
			]);
			psql([
				'-c',
				"UPDATE payouts.claims SET status = 'FAILED', answered_at = now() WHERE transfer_id = 'tpl-unknown-4'",
			]);
			const requests = sandbox.requests().length;
			expect(said(await deliver('payouts-claimed-topup', topUp('tpl-unknown-3', '42.00')))).toEqual(
				[200, 'ALREADY_SUBMITTED'],
			);
			const failed = await deliver('payouts-claimed-topup', topUp('tpl-unknown-4', '42.00'));
			expect(said(failed)).toEqual([409, 'ERROR']);
			expect(String(failed.body.message)).toMatch(
				/can never be paid under Transfer ID tpl-unknown-4/,
			);
			expect(sandbox.requests().length).toBe(requests);
			expect(bookedAs('tpl-unknown-')).toEqual(['tpl-unknown-3 42', 'tpl-unknown-4 42']);
		});
	});
});

describe('the daily cap: a ceiling on a leaked secret', () => {
	/** Today's sum of the event template's rows (what its cap counts). */
	const reservedToday = async () =>
		(await eventRows())
			.filter((row) => row.day === new Date().toISOString().slice(0, 10))
			.reduce((cents, row) => cents + Math.round(Number(row.amount) * 100), 0) / 100;

	test('the event template: events up to the cap are paid, also when they arrive at once; the one that would pass it is refused (503 CAPPED with Retry-After to the next day) with nothing sent, and its reservation given back', async () => {
		const room = 5000 - (await reservedToday());
		expect(room).toBeGreaterThan(3000);
		// Paid one by one down to less than 1000 left; then six at once of which at most the room's pay.
		let next = 0;
		while (5000 - (await reservedToday()) >= 2000)
			expect(said(await deliver('payouts-event', payout(`tpl_cap_${next++}`, '1000.00')))).toEqual([
				200,
				'SUCCESS',
			]);
		const left = 5000 - (await reservedToday());
		const atOnce = await Promise.all(
			Array.from({ length: 6 }, (_, index) =>
				deliver('payouts-event', payout(`tpl_cap_at_once_${index}`, '500.00')),
			),
		);
		const paidAtOnce = atOnce.filter((answer) => answer.code === 200).length;
		expect(paidAtOnce).toBeLessThanOrEqual(Math.floor(left / 500));
		expect(paidAtOnce).toBeGreaterThan(0);
		for (const answer of atOnce.filter((entry) => entry.code !== 200)) {
			expect(said(answer)).toEqual([503, 'CAPPED']);
			expect(Number(answer.retryAfter)).toBeGreaterThan(0);
			expect(Number(answer.retryAfter)).toBeLessThanOrEqual(24 * 3600);
		}
		const requests = sandbox.requests().length;
		const refused = await deliver('payouts-event', payout('tpl_cap_over', '1000.00'));
		expect(said(refused)).toEqual([503, 'CAPPED']);
		expect(sandbox.requests().length).toBe(requests);
		expect((await eventRows()).filter((row) => row.transferId === 'tpl_cap_over')).toEqual([]);
		// The day's payouts never pass the cap.
		const paidToday = sandbox
			.state()
			.transfers.filter((transfer) => /^tpl_/.test(transfer.transferId))
			.reduce((sum, transfer) => sum + transfer.amount, 0);
		expect(paidToday).toBeLessThanOrEqual(5000);
	});

	describePostgres('the queue-mode template', () => {
		test('top-ups up to the cap are paid, also at once; the one that would pass it is refused (503 CAPPED) with nothing claimed or sent', async () => {
			// The day as n8n reads it (GENERIC_TIMEZONE UTC), whatever the cluster's own timezone.
			const dayStart = `${new Date().toISOString().slice(0, 10)}T00:00:00Z`;
			const claimed = () =>
				Number(
					psql([
						'-tAc',
						`SELECT COALESCE(SUM(amount), 0) FROM payouts.claims WHERE claimed_at >= '${dayStart}'::timestamptz`,
					]),
				);
			let next = 0;
			while (5000 - claimed() >= 2000)
				expect(
					said(await deliver('payouts-claimed-topup', topUp(`tpl-cap-${next++}`, '1000.00'))),
				).toEqual([200, 'SUCCESS']);
			const left = 5000 - claimed();
			const atOnce = await Promise.all(
				Array.from({ length: 6 }, (_, index) =>
					deliver('payouts-claimed-topup', topUp(`tpl-cap-at-once-${index}`, '500.00')),
				),
			);
			expect(atOnce.filter((answer) => answer.code === 200).length).toBe(Math.floor(left / 500));
			expect(atOnce.filter((answer) => answer.code !== 200).map(said)).toEqual(
				Array(6 - Math.floor(left / 500)).fill([503, 'CAPPED']),
			);
			const requests = sandbox.requests().length;
			expect(
				said(await deliver('payouts-claimed-topup', topUp('tpl-cap-over', '1000.00'))),
			).toEqual([503, 'CAPPED']);
			expect(claimOf('tpl-cap-over')).toBeUndefined();
			expect(sandbox.requests().length).toBe(requests);
			expect(claimed()).toBeLessThanOrEqual(5000);
		});
	});
});

describe('the OAuth example keeps no token in n8n', () => {
	/** A whole sign-in: your app starts it, the user consents (the sandbox stands in), the browser follows the redirect. */
	async function signIn(prefix: string) {
		const started = await fetch(`${rest.url}/webhook/${prefix}-start`, {
			method: 'POST',
			...signEvent(
				`${rest.url}/webhook/${prefix}-start`,
				{ user: `user-${prefix}` },
				n8n.APP_SIGNING.secret,
			),
		});
		expect(started.status).toBe(200);
		const { verificationId } = (await started.json()) as { verificationId: string };
		const { authCode } = sandbox.consent({ verificationId });
		const answer = await fetch(`${rest.url}/webhook/${prefix}-callback?auth_code=${authCode}`);
		return { code: answer.status, text: await answer.text() };
	}
	/** Every saved execution n8n holds, its data as text (n8n lists at most 100 a page). */
	async function savedExecutions(): Promise<Array<{ workflowId: string; text: string }>> {
		const listed: Array<{ id: string; workflowId: string; status: string }> = [];
		for (let lastId: string | undefined; ; ) {
			const page = (await rest(
				'GET',
				`/executions?limit=100${lastId ? `&lastId=${lastId}` : ''}`,
			)) as { results: Array<{ id: string; workflowId: string; status: string }> };
			listed.push(...page.results);
			if (page.results.length < 100) break;
			lastId = String(page.results.at(-1)?.id);
		}
		return await Promise.all(
			listed
				.filter((execution) => !['new', 'running', 'waiting'].includes(execution.status))
				.map(async (execution) => ({
					workflowId: execution.workflowId,
					text: JSON.stringify(await rest('GET', `/executions/${execution.id}`)),
				})),
		);
	}

	test('its last step fails, wired to the alert or not: the browser hears no token (wired: 500, start it again), and no saved execution holds the token', async () => {
		const wired = await signIn('oauth-fails');
		expect(wired.code).toBe(500);
		expect(JSON.parse(wired.text)).toEqual({
			message: 'The sign-in could not be completed: start it again.',
		});
		// Not wired: the workflow stops at the step; n8n answers for it (2.41: 500 "Error in workflow"; 2.8: an empty 200).
		const stops = await signIn('oauth-stops');
		expect(stops.text).not.toMatch(/Connected/);
		expect(`${wired.text}${stops.text}`).not.toMatch(/user-access-/);
		// The sandbox's tokens read user-access-<reference>-<random>: none in any execution n8n saved (but the test-only one below).
		const saved = await until(
			'n8n to have finished every execution',
			async () =>
				(await n8n.unfinishedExecutions(rest)).length === 0 ? await savedExecutions() : undefined,
			60,
		);
		expect(
			saved.filter((execution) =>
				['payoutsOAuthStoreFails', 'payoutsOAuthStoreStops'].includes(execution.workflowId),
			),
		).toEqual([]);
		expect(
			saved
				.filter((execution) => execution.workflowId !== 'payoutsOAuthStoreSaved')
				.filter((execution) => /user-access-/.test(execution.text))
				.map((execution) => execution.workflowId),
		).toEqual([]);
	});

	test("the alert names the failed step's error with the token blanked out", async () => {
		const answer = await signIn('oauth-saved');
		expect(answer.code).toBe(500);
		const execution = await until(
			'the saved execution of the test-only copy',
			async () => {
				const page = (await rest(
					'GET',
					`/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId: 'payoutsOAuthStoreSaved' }))}`,
				)) as { results: Array<{ id: string; status: string }> };
				// Its callback's execution (its start's is saved too): the one with the alert.
				for (const entry of page.results.filter((candidate) => candidate.status === 'success')) {
					const saved = await savedExecution(rest, String(entry.id));
					if (saved.output('Alert: Sign-In Not Kept').length > 0) return saved;
				}
				return undefined;
			},
			60,
		);
		const [alert] = execution.output('Alert: Sign-In Not Kept');
		expect(alert.message).toMatch(
			/^Payouts OAuth: the sign-in of user-oauth-saved \(verification [0-9a-f]{32}\) was exchanged for a token, which was not kept: The token store refused \[token\]/,
		);
		expect(JSON.stringify(alert)).not.toMatch(/user-access-/);
	});
});

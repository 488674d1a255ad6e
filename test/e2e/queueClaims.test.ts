/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- test code runs in Node under jest, never inside n8n (it uses Node's own modules, timers, sockets, files and psql); these rules guard the code n8n loads (nodes/, credentials/) */
/**
 * The queue-mode template examples/queue-claim-payout.json end to end, in real n8n queue mode
 * (scripts/queue.js: Postgres, Redis, a main and two workers; its claims table made by
 * examples/queue-claims.sql), judged by the sandbox's ledger, with one worker's calls to n8n's
 * database slowed far past anything a guard of the node's own could wait for, by a delaying proxy
 * between that worker and Postgres:
 * - 100 top-up events each delivered twice (half of the pairs at the same moment): every event paid once;
 * - signed events: unsigned, signed with another secret, expired, stale, another body: refused with
 *   nothing claimed or sent; the same signed request replayed pays nothing more;
 * - what the template once got wrong: an event id holding a comma is one value, not two;
 *   a delivery with another amount, or another event id that makes the same Transfer ID, is refused
 *   (409 CONFLICT), never answered paid; a Top Up that did not run at all (an http:// Base URL)
 *   answers 503 and gives the claim back, so the next delivery pays; a refusal with nothing sent
 *   (503) gives it back too;
 * - a worker killed between the claim and the answer: never paid twice; the events it left read
 *   503 UNKNOWN from their claim (no outcome), settled as docs/queue-claims.md says;
 * - the claims database down: nothing is sent, and the error says so.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
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
		options?: { now?: number; lifetimeSeconds?: number; audience?: string },
	) => { body: string; headers: Record<string, string> };
};

// Long: besides its own work, it may wait for another queue-mode suite (one at a time, scripts/queue.js).
jest.setTimeout(45 * 60 * 1000);

type Json = Record<string, unknown>;

/** How much later the slowed worker gets each answer of n8n's database: far past the node's wait (at least 100 ms). */
const DATABASE_DELAY_MS = 300;
const EVENTS = 100;
const template = n8n
	.exampleWorkflows()
	.find((workflow: { file: string }) => workflow.file === 'queue-claim-payout.json') as {
	id: string;
	nodes: Json[];
	connections: Json;
};

/** The template with one thing changed: its id, its webhook's path, and what `change` makes of each node. */
function variant(id: string, webhookPath: string, change: (node: Json) => Json) {
	return {
		...template,
		id,
		name: `E2E claims: ${webhookPath}`,
		nodes: template.nodes.map((node) =>
			change({
				...node,
				id: `${id}-${String(node.id)}`,
				...(node.type === 'n8n-nodes-base.webhook'
					? {
							webhookId: `${webhookPath}-0001`,
							parameters: { ...(node.parameters as Json), path: webhookPath },
						}
					: {}),
			}),
		),
	};
}
/** The template with its claims database down: a credential pointing at a port nobody listens on. */
const DOWN = { id: 'payoutsClaimsDbDown', name: 'Payouts Claims Database (down)' };
const templateDown = variant('payoutsQueueClaimDown', 'payouts-claimed-topup-down', (node) =>
	node.type === 'n8n-nodes-base.postgres' ? { ...node, credentials: { postgres: DOWN } } : node,
);
/** The template whose Top Up fails as a whole before sending: its credential's Base URL is plain http to a host that is not loopback. */
const BROKEN = { id: 'payoutsBrokenBaseUrl', name: 'Payouts Sandbox (http Base URL)' };
const templateBroken = variant('payoutsQueueClaimBroken', 'payouts-claimed-topup-broken', (node) =>
	node.type === 'n8n-nodes-payouts.payoutsTransfer'
		? { ...node, credentials: { payoutsApi: BROKEN } }
		: node,
);

let sandbox: Sandbox;
let baseDir: string;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
let stack: any;
let proxy: net.Server;

/**
 * A TCP proxy that hands the client every answer of the server `delayMs` late, in order: a worker's
 * every call to n8n's database takes that much longer, as on a loaded or distant database.
 */
async function delayingProxy(targetPort: () => number, delayMs: number): Promise<net.Server> {
	const sockets = new Set<net.Socket>();
	const server = net.createServer((client) => {
		sockets.add(client);
		client.on('close', () => sockets.delete(client));
		const upstream = net.connect(targetPort(), '127.0.0.1');
		let lastAt = 0;
		client.on('data', (chunk) => upstream.write(chunk));
		upstream.on('data', (chunk) => {
			lastAt = Math.max(Date.now() + delayMs, lastAt);
			setTimeout(() => client.writable && client.write(chunk), lastAt - Date.now());
		});
		const close = () => {
			client.destroy();
			upstream.destroy();
		};
		client.on('error', close);
		upstream.on('error', close);
		client.on('close', () => upstream.end());
		upstream.on('close', () => setTimeout(() => client.end(), delayMs + 50));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	// Closing the proxy ends the connections it holds too.
	const close = server.close.bind(server);
	server.close = (callback) => {
		for (const socket of sockets) socket.destroy();
		return close(callback);
	};
	return server;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
type Answer = { status: number; body: Json; retryAfter?: string | null };

/** A request as given (its body and headers) to a webhook of the template: the answer, or status 0 for none. */
async function deliver(
	webhookPath: string,
	request: { body: string; headers: Record<string, string> },
	timeoutMs = 120_000,
): Promise<Answer> {
	try {
		const response = await fetch(`${stack.main.url}/webhook/${webhookPath}`, {
			method: 'POST',
			...request,
			signal: AbortSignal.timeout(timeoutMs),
		});
		const text = await response.text();
		let body: Json;
		try {
			body = JSON.parse(text) as Json;
		} catch {
			body = { text };
		}
		return { status: response.status, body, retryAfter: response.headers.get('retry-after') };
	} catch (error) {
		return { status: 0, body: { noAnswer: (error as Error).message } };
	}
}

/** The event `{ eventId, amount }`, signed now with the demo secret npm start gives "Payouts Event Signing", for the webhook it is sent to. */
const signed = (
	event: Json,
	options?: { now?: number; lifetimeSeconds?: number; audience?: string },
	webhookPath = 'payouts-claimed-topup',
) =>
	signEvent(`${stack.main.url}/webhook/${webhookPath}`, event, n8n.EVENT_SIGNING.secret, options);

async function post(
	webhookPath: string,
	eventId: string,
	amount: number,
	timeoutMs = 120_000,
): Promise<Answer> {
	return await deliver(
		webhookPath,
		signed({ eventId, amount: amount.toFixed(2) }, {}, webhookPath),
		timeoutMs,
	);
}

/** What payouts.claims holds for a Transfer ID (psql as n8n's database user), or undefined. */
function claimOf(
	transferId: string,
): { eventId: string; amount: string; rechargeAccount: string; status: string } | undefined {
	const psql = path.join(
		fs
			.readdirSync('/usr/lib/postgresql')
			.map((version) => `/usr/lib/postgresql/${version}/bin`)
			.find((bin) => fs.existsSync(`${bin}/psql`)) ?? '/usr/bin',
		'psql',
	);
	const sql = `SELECT json_build_object('eventId', event_id, 'amount', amount::text, 'rechargeAccount', recharge_account, 'status', status) FROM payouts.claims WHERE transfer_id = '${transferId.replace(/'/g, "''")}'`;
	const out = execFileSync(
		psql,
		['-h', '127.0.0.1', '-p', String(stack.postgres.port), '-U', 'n8n', '-d', 'n8n', '-tAc', sql],
		{ encoding: 'utf8' },
	).trim();
	return out ? JSON.parse(out) : undefined;
}

/** Every event twice: the even ones at the same moment, the odd ones again after the first answer; ten events in flight. */
async function deliverTwice(
	webhookPath: string,
	prefix: string,
): Promise<Map<string, Array<{ status: number; body: Json }>>> {
	const answers = new Map<string, Array<{ status: number; body: Json }>>();
	let next = 0;
	const lane = async () => {
		while (next < EVENTS) {
			const index = next++;
			const eventId = `${prefix}${index}`;
			const deliver = () => post(webhookPath, eventId, 1 + (index % 50));
			answers.set(
				eventId,
				index % 2 === 0
					? await Promise.all([deliver(), deliver()])
					: [await deliver(), await deliver()],
			);
		}
	};
	await Promise.all(Array.from({ length: 10 }, lane));
	return answers;
}

/**
 * As a sender does: once n8n is idle, each event delivered again until it gets an answer of the
 * template's own (not n8n's 500 or none), at most three times. The last answer of each.
 */
async function deliverAgain(
	eventIds: string[],
	amountOf: (eventId: string) => number,
): Promise<Array<{ status: number; body: Json }>> {
	const last = new Map<string, { status: number; body: Json }>();
	let waiting = eventIds;
	for (let round = 0; round < 3 && waiting.length > 0; round++) {
		await queue.settle(stack, { idle: () => sandbox.state().inFlight === 0 });
		const answers = await Promise.all(
			waiting.map((eventId) => post('payouts-claimed-topup', eventId, amountOf(eventId))),
		);
		answers.forEach((answer, index) => last.set(waiting[index], answer));
		waiting = waiting.filter(
			(_, index) => answers[index].status === 0 || answers[index].status === 500,
		);
	}
	return eventIds.map((eventId) => last.get(eventId)!);
}

/** The failed executions of a workflow, each as its last node and the first error message n8n saved: what a 500 was. */
async function failures(workflowId: string): Promise<string[]> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId, status: ['error', 'crashed'] }));
	const listed = (await (
		await fetch(`${stack.main.url}/rest/executions?filter=${filter}&limit=100`, {
			headers: { cookie: stack.cookie },
		})
	).json()) as { data: { results: Array<{ id: string; status: string }> } };
	const said: string[] = [];
	for (const { id, status } of listed.data.results.slice(0, 5)) {
		const execution = (await (
			await fetch(`${stack.main.url}/rest/executions/${id}`, { headers: { cookie: stack.cookie } })
		).json()) as { data: { data: string } };
		const text = String(execution.data.data);
		said.push(
			`${id} ${status}: ${text.match(/"[A-Za-z]*Error: [^"]{0,200}"/)?.[0] ?? text.match(/"[^"]{0,120}(?:timeout|refused|terminated)[^"]{0,120}"/i)?.[0] ?? 'no message saved'}`,
		);
	}
	return [`${listed.data.results.length} failed`, ...said];
}

/** How many times each Transfer ID with this prefix was booked. */
function bookings(prefix: string): Map<string, number> {
	const counts = new Map<string, number>();
	for (const transfer of sandbox.state().transfers)
		if (transfer.transferId.startsWith(prefix))
			counts.set(transfer.transferId, (counts.get(transfer.transferId) ?? 0) + 1);
	return counts;
}

/** What the senders heard, by HTTP status and the body's status, with one body of each answer that is not 2xx. */
function tally(answers: Map<string, Array<{ status: number; body: Json }>>) {
	const counts: Record<string, number> = {};
	const examples: Record<string, string> = {};
	for (const answer of [...answers.values()].flat()) {
		const said = `${answer.status} ${String(answer.body.status ?? answer.body.noAnswer ?? '')}`;
		counts[said] = (counts[said] ?? 0) + 1;
		if (answer.status >= 300 || answer.status === 0)
			examples[said] ??= JSON.stringify(answer.body).slice(0, 300);
	}
	return { counts, examples };
}

const describeQueue =
	queue.missingQueueTools().length && !process.env.CI ? describe.skip : describe;
if (queue.missingQueueTools().length && !process.env.CI)
	process.stderr.write(
		`[queue claims test] SKIPPED: install ${queue.missingQueueTools().join(' and ')} (Debian packages) to run it\n`,
	);

describeQueue(
	"the Postgres claim template in queue mode, one worker's database calls slowed",
	() => {
		beforeAll(async () => {
			sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
			sandbox.configure({ internalDuplicates: 'book', latencyMs: 30 });
			baseDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payouts-queue-claims-'));
			// The first worker talks to n8n's database through the delaying proxy, the others directly.
			let postgresPort = 0;
			proxy = await delayingProxy(() => postgresPort, DATABASE_DELAY_MS);
			stack = await queue.startQueueStack({
				baseDir,
				sandbox,
				seed,
				fast: true,
				workflows: [template, templateDown, templateBroken],
				publish: [template.id, templateDown.id, templateBroken.id],
				workerConcurrency: 10,
				workerDatabasePort: (index: number, port: number) => {
					postgresPort = port;
					return index === 0 ? (proxy.address() as net.AddressInfo).port : undefined;
				},
			});
			await n8n.importCredentials(path.join(baseDir, 'main'), stack.mainEnv, [
				{
					...DOWN,
					type: 'postgres',
					data: {
						host: '127.0.0.1',
						port: await n8n.freePort(0),
						database: 'n8n',
						user: 'n8n',
						password: 'n8n',
						ssl: 'disable',
						allowUnauthorizedCerts: false,
						maxConnections: 2,
					},
				},
				{
					...BROKEN,
					type: 'payoutsApi',
					data: {
						...n8n.sandboxCredential(sandbox, seed).data,
						baseUrl: 'http://payouts.example.com',
					},
				},
			]);
		});

		afterAll(async () => {
			await stack?.stop();
			proxy?.close();
			await sandbox?.close();
			if (baseDir && !process.env.KEEP_N8N_FOLDERS)
				fs.rmSync(baseDir, { recursive: true, force: true });
		});

		test(`the Postgres claim (examples/queue-claim-payout.json): the same ${EVENTS} top-ups each delivered twice: every event paid once`, async () => {
			const answers = await deliverTwice('payouts-claimed-topup', 'pc-evt-');
			const paid = bookings('pc-evt-');
			process.stderr.write(
				`[queue claims test] Postgres claim: ${paid.size} events paid; answers ${JSON.stringify(tally(answers))}; failed executions: ${JSON.stringify(await failures(template.id))}\n`,
			);
			expect([...paid].filter(([, count]) => count > 1)).toEqual([]);
			// A 500 is n8n failing around the template (on the slowed worker its own database pool waits past
			// its connection timeout): no usable answer, like none at all. The sender delivers such events again.
			const usable = (answer: { status: number }) => answer.status !== 0 && answer.status !== 500;
			for (const [eventId, pair] of answers) {
				const statuses = pair
					.map((answer) => `${answer.status} ${String(answer.body.status ?? '')}`)
					.sort();
				if (pair.every(usable)) {
					// One paid it; the other heard it was paid, or (at once) that the first had no answer yet.
					expect({ eventId, statuses, paid: paid.get(eventId) }).toEqual({
						eventId,
						statuses: expect.arrayContaining(['200 SUCCESS']),
						paid: 1,
					});
					expect(['200 ALREADY_SUBMITTED', '200 SUCCESS', '503 UNKNOWN']).toEqual(
						expect.arrayContaining(statuses.filter((status) => status !== '200 SUCCESS')),
					);
				}
			}
			const unanswered = [...answers]
				.filter(([, pair]) => !pair.some((answer) => answer.status === 200))
				.map(([eventId]) => eventId);
			const again = await deliverAgain(
				unanswered,
				(eventId) => 1 + (Number(eventId.slice('pc-evt-'.length)) % 50),
			);
			process.stderr.write(
				`[queue claims test] Postgres claim: ${unanswered.length} events without a 200, delivered again: ${JSON.stringify(tally(new Map([['again', again]])).counts)}\n`,
			);
			for (const answer of again)
				expect(['200 ALREADY_SUBMITTED', '200 SUCCESS', '503 UNKNOWN']).toContain(
					`${answer.status} ${String(answer.body.status)}`,
				);
			expect([...bookings('pc-evt-')].filter(([, count]) => count > 1)).toEqual([]);
			expect(bookings('pc-evt-').size).toBe(EVENTS);
		});

		test('signed events: unsigned, signed with another secret, expired, stale, over another body or made for another webhook is refused with nothing claimed or sent; a replay pays nothing more', async () => {
			const before = {
				ledger: sandbox.state().transfers.length,
				requests: sandbox.requests().length,
			};
			const event = (eventId: string) => ({ eventId, amount: '12.00' });
			const good = signed(event('sig-evt-1'));
			const refused = {
				unsigned: await deliver('payouts-claimed-topup', {
					body: good.body,
					headers: { 'content-type': 'application/json' },
				}),
				otherSecret: await deliver(
					'payouts-claimed-topup',
					signEvent(
						`${stack.main.url}/webhook/payouts-claimed-topup`,
						event('sig-evt-2'),
						'not-the-secret',
					),
				),
				expired: await deliver(
					'payouts-claimed-topup',
					signed(event('sig-evt-3'), { now: Date.now() - 10 * 60_000 }),
				),
				stale: await deliver(
					'payouts-claimed-topup',
					signed(event('sig-evt-4'), { now: Date.now() - 10 * 60_000, lifetimeSeconds: 3600 }),
				),
				otherBody: await deliver('payouts-claimed-topup', {
					...signed(event('sig-evt-5')),
					body: JSON.stringify({ ...event('sig-evt-5'), amount: '900.00' }),
				}),
				// A token the sender made for the event template's webhook, replayed here (issue 48's finding).
				otherWebhook: await deliver(
					'payouts-claimed-topup',
					signed(event('sig-evt-6'), {}, 'payouts-event'),
				),
			};
			expect(
				Object.fromEntries(Object.entries(refused).map(([name, answer]) => [name, answer.status])),
			).toEqual({
				unsigned: 401,
				otherSecret: 403,
				expired: 403,
				stale: 401,
				otherBody: 401,
				otherWebhook: 401,
			});
			expect([
				refused.stale.body.status,
				refused.otherBody.body.status,
				refused.otherWebhook.body.status,
			]).toEqual(['UNSIGNED', 'UNSIGNED', 'UNSIGNED']);
			for (const transferId of [
				'sig-evt-1',
				'sig-evt-2',
				'sig-evt-3',
				'sig-evt-4',
				'sig-evt-5',
				'sig-evt-6',
			])
				expect(claimOf(transferId)).toBeUndefined();
			expect({
				ledger: sandbox.state().transfers.length,
				requests: sandbox.requests().length,
			}).toEqual(before);
			// The same signed request again within its five minutes (a replay): one payout, the second answer from the claim.
			const first = await deliver('payouts-claimed-topup', good);
			const replay = await deliver('payouts-claimed-topup', good);
			expect([
				`${first.status} ${String(first.body.status)}`,
				`${replay.status} ${String(replay.body.status)}`,
			]).toEqual(['200 SUCCESS', '200 ALREADY_SUBMITTED']);
			expect(bookings('sig-evt-')).toEqual(new Map([['sig-evt-1', 1]]));
		});

		test('an event id holding a comma is one value: paid once with its own amount; another event id with the same Transfer ID, or the event with another amount, is refused 409 and never answered paid', async () => {
			const first = await post('payouts-claimed-topup', 'evt,c1001', 10);
			expect([first.status, first.body.status, first.body.transferId]).toEqual([
				200,
				'SUCCESS',
				'evtc1001',
			]);
			expect(claimOf('evtc1001')).toEqual({
				eventId: 'evt,c1001',
				amount: '10.00',
				rechargeAccount: seed.rechargeAccounts.configured,
				status: 'SUCCESS',
			});
			const conflicts = [
				await post('payouts-claimed-topup', 'evt.c1001', 10),
				await post('payouts-claimed-topup', 'evt,c1001', 20),
				await post('payouts-claimed-topup', 'evtc1001', 10),
			];
			for (const answer of conflicts)
				expect({
					status: answer.status,
					said: answer.body.status,
					message: answer.body.message,
				}).toEqual({
					status: 409,
					said: 'CONFLICT',
					message: expect.stringMatching(/claimed by another payout/),
				});
			// The same event with its own values: paid by the earlier delivery.
			const again = await post('payouts-claimed-topup', 'evt,c1001', 10);
			expect([again.status, again.body.status]).toEqual([200, 'ALREADY_SUBMITTED']);
			const paid = sandbox
				.state()
				.transfers.filter((transfer) => transfer.transferId === 'evtc1001');
			expect(paid.map((transfer) => transfer.amount)).toEqual([10]);
		});

		test('a Top Up that did not run at all (an http:// Base URL) answers 503 with Retry-After and gives the claim back: the next delivery pays', async () => {
			const before = sandbox.requests().length;
			const broken = await post('payouts-claimed-topup-broken', 'broken-evt-1', 15);
			expect({
				status: broken.status,
				said: broken.body.status,
				retryAfter: broken.retryAfter,
			}).toEqual({ status: 503, said: 'NOT_SENT', retryAfter: '60' });
			expect(sandbox.requests().length).toBe(before);
			expect(claimOf('broken-evt-1')).toBeUndefined();
			const fixed = await post('payouts-claimed-topup', 'broken-evt-1', 15);
			expect([fixed.status, fixed.body.status]).toEqual([200, 'SUCCESS']);
			expect(bookings('broken-evt-')).toEqual(new Map([['broken-evt-1', 1]]));
		});

		test("a refusal that moved nothing (this n8n's address not on the service's allow-list) answers 503 with Retry-After and gives the claim back: the next delivery pays", async () => {
			const refusal = { status: 'ERROR', subCode: '403', message: 'IP not whitelisted' };
			sandbox.configure({
				internalDuplicates: 'book',
				latencyMs: 30,
				faults: [
					{
						match: { transferId: 'refused-evt-1' },
						fault: 'replay',
						status: 403,
						body: JSON.stringify(refusal),
						times: 1,
					},
				],
			});
			const refused = await post('payouts-claimed-topup', 'refused-evt-1', 16);
			expect({
				status: refused.status,
				said: refused.body.status,
				retryAfter: refused.retryAfter,
				hint: refused.body.hint,
			}).toEqual({
				status: 503,
				said: 'ERROR',
				retryAfter: '60',
				hint: expect.stringMatching(/allow-list/),
			});
			expect(claimOf('refused-evt-1')).toBeUndefined();
			const again = await post('payouts-claimed-topup', 'refused-evt-1', 16);
			expect([again.status, again.body.status]).toEqual([200, 'SUCCESS']);
			expect(bookings('refused-evt-')).toEqual(new Map([['refused-evt-1', 1]]));
			sandbox.configure({ internalDuplicates: 'book', latencyMs: 30, faults: [] });
		});

		test('a worker killed between the claim and the answer: never paid twice; its events read 503 UNKNOWN from their claim until settled', async () => {
			// Up to three rounds of 30 new events, until one was claimed and in flight on the killed worker.
			const said: string[] = [];
			const again: Array<{ status: number; body: Json }> = [];
			for (let round = 1; round <= 3 && !again.some((answer) => answer.status === 503); round++) {
				sandbox.configure({ internalDuplicates: 'book', latencyMs: 1500 });
				const events = Array.from({ length: 30 }, (_, index) => `kill${round}-evt-${index}`);
				const first = events.map((eventId, index) =>
					post('payouts-claimed-topup', eventId, 1 + index, 60_000),
				);
				// Killed once top-ups are at the service: claimed, and not answered (1.5 s each).
				for (
					const started = Date.now();
					sandbox.state().inFlight < 3 && Date.now() - started < 30_000;

				)
					await sleep(50);
				// The worker that talks to n8n's database directly (the slowed one takes minutes to start again).
				stack.workers[1].kill();
				const answers = await Promise.all(first);
				await stack.startWorker(1);
				sandbox.configure({ internalDuplicates: 'book', latencyMs: 30 });
				await queue.settle(stack, { idle: () => sandbox.state().inFlight === 0 });
				// The sender delivers again every event it has no answer for (n8n's own 500 is none either).
				const unanswered = events.filter((_, index) => answers[index].status !== 200);
				const roundAgain = await deliverAgain(unanswered, (eventId) => 1 + events.indexOf(eventId));
				again.push(...roundAgain);
				said.push(
					`round ${round}: ${unanswered.length} of ${events.length} events without an answer; delivered again: ${JSON.stringify(tally(new Map([['again', roundAgain]])).counts)}`,
				);
				expect(unanswered.length).toBeLessThan(events.length);
			}
			const paid = bookings('kill');
			process.stderr.write(`[queue claims test] worker killed: ${said.join('; ')}\n`);
			expect([...paid].filter(([, count]) => count > 1)).toEqual([]);
			// A delivered-again event is paid (its claim's outcome was written), in doubt (its worker died after
			// the claim: never sent again), or paid now (its first delivery died before it claimed anything).
			for (const answer of again)
				expect(['200 ALREADY_SUBMITTED', '503 UNKNOWN', '200 SUCCESS']).toContain(
					`${answer.status} ${String(answer.body.status)}`,
				);
			for (const answer of again)
				if (answer.status === 503)
					expect(String(answer.body.message)).toMatch(
						/holds its claim and has no answer yet|has no clear answer/,
					);
			expect(again.filter((answer) => answer.status === 503).length).toBeGreaterThan(0);
		});

		test('a bad event (an amount with three decimals, none, above the limit) is answered 400 with its problems: nothing claimed, nothing sent', async () => {
			for (const amount of ['25.001', '', '1000.01']) {
				const { status, body } = await deliver(
					'payouts-claimed-topup',
					signed({ eventId: `bad-evt-${amount || 'none'}`, amount }),
				);
				expect({ amount, status, said: body.status, problems: body.problems }).toEqual({
					amount,
					status: 400,
					said: 'INVALID',
					problems: [expect.stringMatching(/'amount'/)],
				});
				expect(
					claimOf(`bad-evt-${amount.replace(/[^A-Za-z0-9_-]/g, '') || 'none'}`),
				).toBeUndefined();
			}
			// Delivered again with a good amount, the same event ids pay once: nothing was claimed for them.
			const again = await post('payouts-claimed-topup', 'bad-evt-25.001', 25);
			expect(`${again.status} ${String(again.body.status)}`).toBe('200 SUCCESS');
			expect(bookings('bad-evt-')).toEqual(new Map([['bad-evt-25001', 1]]));
		});

		test('the claims database down: nothing is sent, and the error says so', async () => {
			const before = sandbox.state().transfers.length;
			const answer = await post('payouts-claimed-topup-down', 'down-evt-1', 10);
			expect(answer.status).toBe(500);
			expect(sandbox.state().transfers.length).toBe(before);
			expect(
				sandbox
					.requests()
					.filter((request) =>
						String((request.body as Json | undefined)?.transferId ?? '').startsWith('down-evt'),
					),
			).toEqual([]);
			// The failed execution names the database that could not be reached.
			const filter = encodeURIComponent(
				JSON.stringify({ workflowId: templateDown.id, status: ['error'] }),
			);
			const response = await fetch(`${stack.main.url}/rest/executions?filter=${filter}`, {
				headers: { cookie: stack.cookie },
			});
			const { data } = (await response.json()) as { data: { results: Array<{ id: string }> } };
			expect(data.results.length).toBeGreaterThan(0);
			const execution = (await (
				await fetch(`${stack.main.url}/rest/executions/${data.results[0].id}`, {
					headers: { cookie: stack.cookie },
				})
			).json()) as { data: { data: string } };
			expect(execution.data.data).toMatch(/ECONNREFUSED|connect|Couldn't connect/i);
			expect(execution.data.data).toMatch(/Claim the Event/);
		});
	},
);

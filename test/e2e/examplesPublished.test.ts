/**
 * The examples that start from a webhook, a schedule or a trigger, published in real n8n (the
 * package installed the community-package way, the credentials `npm start` imports) and called or
 * polled as in production, judged by the sandbox's ledger (`GET /__sandbox/state`) and by what it
 * received:
 * - the event example takes only signed events (unsigned, another secret, expired: n8n refuses
 *   them and nothing runs; stale or over another body: 401; nothing paid), checks the payload (a
 *   bad one: 400, nothing sent), pays an event once under the Transfer ID made of its id (a UUID:
 *   its 32 hex digits), a redelivery or a replay pays nothing more, and each outcome is answered
 *   as docs/examples.md's table says (503 with Retry-After for what may succeed later);
 * - the OAuth callback connects only a sign-in it started (a verification id it gave out, once,
 *   within 30 minutes), never answers the browser with the token, saves no successful execution,
 *   and answers a missing or malformed code with 400 without calling the service;
 * - the incident check reports each incident once, one open since yesterday included, and then
 *   only what changed;
 * - the paylink check reports a paylink's status only when it changed since the last check (also
 *   back to an earlier one).
 * The sandbox is never reset here: the published workflows poll it in the background.
 */
import { example, n8n, savedExecution, suiteN8n, until } from '../helpers/e2e';
import type { Json, Rest, SavedExecution, SuiteN8n, Workflow } from '../helpers/e2e';
import { seed } from '../../harness/sandbox';
import type { Sandbox } from '../../harness/sandbox';

jest.setTimeout(20 * 60 * 1000);

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

const YESTERDAY = new Date(Date.now() - 26 * 3600 * 1000).toISOString();
/** Opened before n8n starts: an incident open since yesterday, which the old example (today's list) missed. */
const SINCE_YESTERDAY = { entityCode: 'SBIN', mode: 'UPI', impact: 'HIGH', createdAt: YESTERDAY };

/** The shipped example with its schedule made shorter, so that the test sees several runs. */
function withNode(workflow: Workflow, name: string, change: (node: Json) => Json): Workflow {
	return {
		...workflow,
		nodes: workflow.nodes.map((node) => (node.name === name ? change(node) : node)),
	};
}
const incidentCheck = withNode(example('incident-check'), 'Incident Check', (node) => ({
	...node,
	// The shortest interval n8n activates for a polling trigger.
	parameters: { ...(node.parameters as Json), pollTimes: { item: [{ mode: 'everyMinute' }] } },
}));
/** The event example whose Pay Payee fails as a whole before sending: its credential's Base URL is plain http to a host that is not loopback. */
const BROKEN = { id: 'payoutsBrokenBaseUrl', name: 'Payouts Sandbox (http Base URL)' };
const eventBroken = {
	...example('event-payout'),
	id: 'payoutsEventBroken',
	name: 'E2E: the event example, its payouts credential broken',
	nodes: example('event-payout').nodes.map((node) => ({
		...node,
		...(node.type === 'n8n-nodes-base.webhook'
			? {
					webhookId: 'payouts-event-broken-0001',
					parameters: { ...(node.parameters as Json), path: 'payouts-event-broken' },
				}
			: {}),
		...(node.type === 'n8n-nodes-payouts.payoutsTransfer'
			? { credentials: { payoutsApi: BROKEN } }
			: {}),
	})),
};
const paylinkStatus = withNode(example('paylink-status'), 'Every 15 Minutes', (node) => ({
	...node,
	parameters: { rule: { interval: [{ field: 'seconds', secondsInterval: 8 }] } },
}));

let suite: SuiteN8n;
let sandbox: Sandbox;
let rest: Rest;
let sinceYesterday: { id: number };

beforeAll(async () => {
	suite = await suiteN8n({
		name: 'e2e-examples-published',
		workflows: [
			example('event-payout'),
			eventBroken,
			example('oauth-callback'),
			incidentCheck,
			paylinkStatus,
		],
		publish: [
			'payoutsEventPayout',
			'payoutsEventBroken',
			'payoutsOAuthCallback',
			'payoutsIncidentCheck',
			'payoutsPaylinkStatus',
		],
		credentials: [
			{
				...BROKEN,
				type: 'payoutsApi',
				data: { baseUrl: 'http://payouts.example.com', accessToken: seed.credentials.accessToken },
			},
		],
		server: true,
		prepare: async (service) => {
			sinceYesterday = service.openIncident(SINCE_YESTERDAY);
		},
	});
	sandbox = suite.sandbox;
	rest = suite.rest as Rest;
	await n8n.waitForWebhook(rest.url, 'payouts-event');
	await n8n.waitForWebhook(rest.url, 'payouts-event-broken');
	await n8n.waitForWebhook(rest.url, 'payouts-oauth-callback', { method: 'GET' });
	await n8n.waitForWebhook(rest.url, 'payouts-oauth-start');
});

afterAll(async () => suite?.close());

/** The finished executions of a workflow, oldest first. */
async function executionsOf(workflowId: string): Promise<SavedExecution[]> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	const page = (await rest('GET', `/executions?filter=${filter}&limit=100`)) as {
		results: Array<{ id: string; status: string }>;
	};
	const ids = [
		...new Set(
			page.results
				.filter((execution) => !['new', 'running', 'waiting'].includes(execution.status))
				.map((execution) => String(execution.id)),
		),
	];
	const executions = await Promise.all(ids.map((id) => savedExecution(rest, id)));
	return executions.sort((a, b) => Number(a.id) - Number(b.id));
}

/** The sandbox's ledger as its HTTP control interface gives it. */
async function ledger(): Promise<Array<{ transferId: string; amount: number; status: string }>> {
	return (
		(await (await fetch(`${sandbox.baseUrl}/__sandbox/state`)).json()) as {
			transfers: Array<{ transferId: string; amount: number; status: string }>;
		}
	).transfers;
}
const transferRequests = () =>
	sandbox.requests().filter((request) => request.path.startsWith('/payout/v1.2/requestTransfer'));

/** Waits until `workflowId` has a finished execution newer than `afterId` that `accept`s, and gives it with those before it. */
async function nextExecutions(
	workflowId: string,
	afterId: number,
	what: string,
	accept: (execution: SavedExecution) => boolean,
	seconds = 150,
) {
	return await until(
		what,
		async () => {
			const newer = (await executionsOf(workflowId)).filter(
				(execution) => Number(execution.id) > afterId,
			);
			const found = newer.findIndex(accept);
			return found >= 0 ? newer.slice(0, found + 1) : undefined;
		},
		seconds,
		1000,
	);
}
const lastId = async (workflowId: string) =>
	Number((await executionsOf(workflowId)).at(-1)?.id ?? 0);

describe('the incident check (Payouts Incident Trigger → message), published', () => {
	test('the first poll reports each incident once, one open since yesterday included; the next reports only what changed', async () => {
		const open = [
			seed.incidentBanks.openScheduledImpsAtHdfc.incidentId,
			seed.incidentBanks.openRtgsAtYesb.incidentId,
			sinceYesterday.id,
		].sort();
		const [first] = await nextExecutions(
			'payoutsIncidentCheck',
			0,
			"the trigger's first poll to start a run",
			() => true,
			120,
		);
		expect(first.describe(sandbox)).toMatch(/^execution \(success\)/);
		const messages = first.output('Notification Message');
		const reported = (event: string) =>
			messages
				.filter((message) => message.event === event)
				.map((message) => message.incidentId as number);
		// Open incidents as new ones (not only today's); resolved ones once, as resolved; none twice.
		expect(reported('new').sort()).toEqual(open);
		expect(messages.find((message) => message.incidentId === sinceYesterday.id)?.message).toBe(
			`Bank incident: State Bank of India (SBIN), UPI transfers affected since ${YESTERDAY}, impact HIGH. Consider another transfer mode until it is resolved.`,
		);
		expect(reported('resolved').length).toBeGreaterThan(0);
		expect(reported('resolved').some((id) => open.includes(id))).toBe(false);
		expect(new Set(messages.map((message) => message.incidentId)).size).toBe(messages.length);
		for (const message of messages.filter((entry) => entry.event === 'resolved'))
			expect(message.message).toMatch(
				/^Resolved: .+ \(.+\), [A-Z]+ transfers affected from \S+Z to \S+Z\. [A-Z]+ transfers to this bank can go again\.$/,
			);

		// Yesterday's incident resolved and a new one opened at once: the next run reports those two, nothing else.
		sandbox.resolveIncident(sinceYesterday.id);
		const opened = sandbox.openIncident({ entityCode: 'ICIC', mode: 'NEFT', impact: 'MEDIUM' });
		const later = await nextExecutions(
			'payoutsIncidentCheck',
			Number(first.id),
			'the next poll to report the changes',
			(execution) => execution.output('Notification Message').length > 0,
		);
		expect(
			later.flatMap((execution) =>
				execution
					.output('Notification Message')
					.map((message) => [message.event, message.incidentId]),
			),
		).toEqual([
			['new', opened.id],
			['resolved', sinceYesterday.id],
		]);
		expect(later.at(-1)?.output('Notification Message')[1].message).toMatch(
			/^Resolved: State Bank of India \(SBIN\), UPI transfers affected from /,
		);
	});
});

describe('the paylink check (Schedule → Payouts Paylink → only changes), published', () => {
	test('each paylink once at its first check; then a message only when its status changed since the last check, also back to an earlier one', async () => {
		const runs = await nextExecutions(
			'payoutsPaylinkStatus',
			0,
			'two scheduled checks',
			(execution) => execution.status === 'success' && Number(execution.id) > 0,
			60,
		);
		await nextExecutions(
			'payoutsPaylinkStatus',
			Number(runs.at(-1)?.id),
			'a second scheduled check',
			() => true,
			60,
		);
		const [first, ...quiet] = await executionsOf('payoutsPaylinkStatus');
		expect(first.output('Notification Message').map((item) => item.message)).toEqual([
			`Paylink ${seed.paylinks.active} is ACTIVE (first check): https://payouts.example.com/paylink/paylink_active_1`,
			`Paylink ${seed.paylinks.paid} is PAID (first check): https://payouts.example.com/paylink/paylink_paid_1`,
			`Paylink ${seed.paylinks.expired} is EXPIRED (first check): https://payouts.example.com/paylink/paylink_expired_1`,
		]);
		expect(quiet.length).toBeGreaterThan(0);
		for (const run of quiet)
			expect([run.status, run.output('Only Changed Statuses')]).toEqual(['success', []]);

		const changes: string[] = [];
		for (const paylinkStatus of ['PAID', 'ACTIVE']) {
			const before = await lastId('payoutsPaylinkStatus');
			sandbox.setPaylink({ paylinkId: seed.paylinks.active, paylinkStatus });
			const reported = await nextExecutions(
				'payoutsPaylinkStatus',
				before,
				`the change to ${paylinkStatus} to be reported`,
				(execution) => execution.output('Notification Message').length > 0,
				60,
			);
			const after = await nextExecutions(
				'payoutsPaylinkStatus',
				Number(reported.at(-1)?.id),
				'one more check',
				() => true,
				60,
			);
			changes.push(
				...[...reported, ...after].flatMap((execution) =>
					execution.output('Notification Message').map((item) => String(item.message)),
				),
			);
		}
		expect(changes).toEqual([
			`Paylink ${seed.paylinks.active} changed from ACTIVE to PAID: https://payouts.example.com/paylink/paylink_active_1`,
			`Paylink ${seed.paylinks.active} changed from PAID to ACTIVE: https://payouts.example.com/paylink/paylink_active_1`,
		]);
	});
});

describe('the OAuth callback, published', () => {
	const tokenRequests = () =>
		sandbox.requests().filter((request) => request.path === '/verification/oauth2/generate-token')
			.length;
	const call = async (query: string) => {
		const response = await fetch(`${rest.url}/webhook/payouts-oauth-callback${query}`);
		return { code: response.status, text: await response.text() };
	};
	/** Your app asks for a verification id, signed with the app's secret as the sender's script signs. */
	const startSignIn = async (body: unknown, secret = n8n.APP_SIGNING.secret) => {
		const response = await fetch(`${rest.url}/webhook/payouts-oauth-start`, {
			method: 'POST',
			...signEvent(`${rest.url}/webhook/payouts-oauth-start`, body, secret),
		});
		const text = await response.text();
		return {
			code: response.status,
			body: (() => {
				try {
					return JSON.parse(text) as Json;
				} catch {
					return { text };
				}
			})(),
		};
	};

	test('a sign-in started here: the browser gets "Connected", never the token; no successful execution is saved', async () => {
		const started = await startSignIn({ user: 'user-42' });
		expect(started).toEqual({
			code: 200,
			body: { verificationId: expect.stringMatching(/^[0-9a-f]{32}$/) },
		});
		const verificationId = String(started.body.verificationId);
		const { authCode } = sandbox.consent({ verificationId });
		const before = tokenRequests();
		const connected = await call(`?auth_code=${authCode}`);
		expect(connected.code).toBe(200);
		expect(JSON.parse(connected.text)).toEqual({
			message: expect.stringMatching(
				new RegExp(
					`^Connected: verification ${verificationId}, token valid until \\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z$`,
				),
			),
		});
		// The sandbox's tokens read user-access-<reference>-<random>.
		expect(connected.text).not.toMatch(/user-access-|access_token/);
		expect(tokenRequests()).toBe(before + 1);
		// Used once: a second consent to the same verification is not connected.
		const again = await call(`?auth_code=${sandbox.consent({ verificationId }).authCode}`);
		expect([again.code, JSON.parse(again.text).message]).toEqual([
			400,
			expect.stringMatching(/^This sign-in was not started here/),
		]);
		// Workflow Settings: successful production executions are not saved, so no token stays in n8n.
		const saved = await executionsOf('payoutsOAuthCallback');
		expect(saved.filter((execution) => execution.status === 'success')).toEqual([]);
	});

	test("starting a sign-in takes your app's signature and a user; a verification this workflow never gave out is not connected", async () => {
		expect((await startSignIn({ user: 'user-43' }, 'not-the-app-secret')).code).toBe(403);
		expect(await startSignIn({ name: 'no user' })).toMatchObject({ code: 400 });
		// A seeded code's flow was started by nobody here: its token is refused, not kept.
		const before = tokenRequests();
		const stranger = await call(`?auth_code=${seed.authCodes[5]}`);
		expect([stranger.code, JSON.parse(stranger.text).message]).toEqual([
			400,
			'This sign-in was not started here, or was started too long ago: start it again from the app.',
		]);
		expect(stranger.text).not.toMatch(/user-access-|access_token/);
		expect(tokenRequests()).toBe(before + 1);
	});

	test('a missing, malformed or used code is answered 400; a malformed one without calling the service', async () => {
		const before = tokenRequests();
		for (const query of [
			'',
			'?auth_code=',
			'?auth_code=two%20words',
			`?auth_code=${'x'.repeat(2049)}`,
			`?auth_code=${seed.authCodes[6]}&auth_code=${seed.authCodes[7]}`,
		]) {
			const refused = await call(query);
			expect([query.slice(0, 40), refused.code, JSON.parse(refused.text).message]).toEqual([
				query.slice(0, 40),
				400,
				'This sign-in link has no valid code: start the sign-in again.',
			]);
		}
		expect(tokenRequests()).toBe(before);
		const used = await call(`?auth_code=${seed.authCodes[5]}`);
		expect([used.code, JSON.parse(used.text).message]).toEqual([
			400,
			'The sign-in could not be completed: start it again.',
		]);
		expect(tokenRequests()).toBe(before + 1);
	});
});

describe('the event example (Webhook → Payouts Transfer), published', () => {
	/** A request as the sender's script makes it (examples/sign-event.js), or as given. */
	async function deliver(
		request: { body: string; headers: Record<string, string> },
		webhookPath = 'payouts-event',
	) {
		const response = await fetch(`${rest.url}/webhook/${webhookPath}`, {
			method: 'POST',
			...request,
		});
		const text = await response.text();
		let json: Json | undefined;
		try {
			json = JSON.parse(text);
		} catch {
			json = undefined;
		}
		return {
			code: response.status,
			body: json,
			text,
			retryAfter: response.headers.get('retry-after'),
		};
	}
	/** Signed as the sender's script signs, for the webhook it is sent to (`payouts-event` unless said). */
	const signed = (
		body: unknown,
		options?: { now?: number; lifetimeSeconds?: number; audience?: string },
		webhookPath = 'payouts-event',
	) => signEvent(`${rest.url}/webhook/${webhookPath}`, body, n8n.EVENT_SIGNING.secret, options);
	const event = (
		eventId: string,
		amount: unknown = '250.00',
		beneId: unknown = seed.beneficiaries.verified,
	) => ({ eventId, beneId, amount });
	const nothingSent = async () => ({ ledger: await ledger(), requests: transferRequests().length });

	test('unsigned, signed with another secret, expired or with alg "none": n8n refuses it (401, 403) and nothing runs; stale, over another body or made for another webhook: the template refuses it (401); nothing is paid', async () => {
		const before = {
			...(await nothingSent()),
			executions: (await executionsOf('payoutsEventPayout')).length,
		};
		const good = signed(event('evt_sig_1'));
		const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${good.headers.authorization.split('.')[1]}.`;
		const byN8n = {
			unsigned: await deliver({ body: good.body, headers: { 'content-type': 'application/json' } }),
			otherSecret: await deliver(
				signEvent(`${rest.url}/webhook/payouts-event`, event('evt_sig_2'), 'not-the-secret'),
			),
			expired: await deliver(signed(event('evt_sig_3'), { now: Date.now() - 10 * 60_000 })),
			algNone: await deliver({
				body: good.body,
				headers: { 'content-type': 'application/json', authorization: `Bearer ${none}` },
			}),
			secretAsBearer: await deliver({
				body: good.body,
				headers: {
					'content-type': 'application/json',
					authorization: `Bearer ${n8n.EVENT_SIGNING.secret}`,
				},
			}),
		};
		expect(
			Object.fromEntries(Object.entries(byN8n).map(([name, answer]) => [name, answer.code])),
		).toEqual({ unsigned: 401, otherSecret: 403, expired: 403, algNone: 403, secretAsBearer: 403 });
		for (const answer of Object.values(byN8n))
			expect(answer.text).not.toContain(n8n.EVENT_SIGNING.secret);
		expect((await executionsOf('payoutsEventPayout')).length).toBe(before.executions);
		const byTemplate = {
			stale: await deliver(
				signed(event('evt_sig_4'), { now: Date.now() - 10 * 60_000, lifetimeSeconds: 3600 }),
			),
			otherBody: await deliver({
				...signed(event('evt_sig_5')),
				body: JSON.stringify(event('evt_sig_5', '999.00')),
			}),
			// Made for another workflow's webhook (here the broken copy's), or naming none, as before audiences.
			otherWebhook: await deliver(signed(event('evt_sig_6'), {}, 'payouts-event-broken')),
			noAudience: await deliver(signed(event('evt_sig_7'), { audience: '' })),
		};
		for (const answer of Object.values(byTemplate))
			expect({ code: answer.code, status: answer.body?.status }).toEqual({
				code: 401,
				status: 'UNSIGNED',
			});
		expect(await nothingSent()).toEqual({ ledger: before.ledger, requests: before.requests });
	});

	test('a signed event pays once; the same signed request replayed within its five minutes pays nothing more', async () => {
		const before = await ledger();
		const request = signed(event('evt_pub_1001', '250.00'));
		const first = await deliver(request);
		expect(first).toMatchObject({
			code: 200,
			body: {
				eventId: 'evt_pub_1001',
				transferId: 'evt_pub_1001',
				status: 'SUCCESS',
				referenceId: expect.any(String),
			},
		});
		const replay = await deliver(request);
		expect(replay).toMatchObject({
			code: 200,
			body: {
				eventId: 'evt_pub_1001',
				status: 'ALREADY_SUBMITTED',
				referenceId: (first.body as Json).referenceId,
			},
		});
		const again = await deliver(signed(event('evt_pub_1001', '250.00')));
		expect(again).toMatchObject({ code: 200, body: { status: 'ALREADY_SUBMITTED' } });
		// An amount exactly at the limit is paid; a number in the JSON is read as its decimal text.
		expect(await deliver(signed(event('evt_pub_1002', '1000.00')))).toMatchObject({
			code: 200,
			body: { status: 'SUCCESS' },
		});
		expect(await deliver(signed(event('evt_pub_1003', 120)))).toMatchObject({
			code: 200,
			body: { status: 'SUCCESS' },
		});
		expect(
			(await ledger()).slice(before.length).map(({ transferId, amount }) => [transferId, amount]),
		).toEqual([
			['evt_pub_1001', 250],
			['evt_pub_1002', 1000],
			['evt_pub_1003', 120],
		]);
	});

	// One row per row of docs/examples.md's "What the sender hears" that this template can meet.
	test.each([
		[
			'PENDING: paid, pending at the bank',
			event('evt_ans_1', '20.00', seed.beneficiaries.pendingAtBank),
			202,
			'PENDING',
			null,
			true,
		],
		[
			'UNKNOWN: may have been paid',
			event('evt_ans_2', '20.00', seed.beneficiaries.noBankResponse),
			503,
			'UNKNOWN',
			'60',
			true,
		],
		[
			"ERROR, the beneficiary's 30-minute wait",
			event('evt_ans_3', '20.00', seed.beneficiaries.newlyAdded),
			503,
			'ERROR',
			'1800',
			false,
		],
		[
			'ERROR that may succeed later: the transfer attempt failed at the bank (it booked nothing; delivered again, unchanged)',
			event('evt_ans_4', '20.00', seed.beneficiaries.bankFails),
			503,
			'ERROR',
			'60',
			false,
		],
		[
			'ERROR for good: the beneficiary does not exist',
			event('evt_ans_5', '20.00', seed.unknownBeneId),
			422,
			'ERROR',
			null,
			false,
		],
		[
			'ERROR for good: the beneficiary is blocked',
			event('evt_ans_6', '20.00', seed.beneficiaries.blocked),
			422,
			'ERROR',
			null,
			false,
		],
		[
			'ALREADY_EXISTS: the Transfer ID is another transfer',
			event(seed.existingTransferId, '20.00'),
			409,
			'ALREADY_EXISTS',
			null,
			false,
		],
		['INVALID: a bad event', event('evt_ans_7', '20.005'), 400, 'INVALID', null, false],
	])('what the sender hears: %s', async (_case, body, code, status, retryAfter, books) => {
		const before = await ledger();
		const answer = await deliver(signed(body));
		expect({
			code: answer.code,
			status: answer.body?.status,
			retryAfter: answer.retryAfter,
			senderShould: typeof answer.body?.senderShould,
		}).toEqual({ code, status, retryAfter, senderShould: 'string' });
		expect((await ledger()).length - before.length).toBe(books ? 1 : 0);
	});

	test('what the sender hears: Pay Payee did not run at all (its credential has an http:// Base URL): 503 NOT_SENT with Retry-After, nothing sent', async () => {
		const before = await nothingSent();
		const answer = await deliver(
			signed(event('evt_ans_8', '20.00'), {}, 'payouts-event-broken'),
			'payouts-event-broken',
		);
		expect({
			code: answer.code,
			status: answer.body?.status,
			retryAfter: answer.retryAfter,
		}).toEqual({ code: 503, status: 'NOT_SENT', retryAfter: '60' });
		expect(await nothingSent()).toEqual(before);
		// Delivered again to the working template, it pays.
		expect(await deliver(signed(event('evt_ans_8', '20.00')))).toMatchObject({
			code: 200,
			body: { status: 'SUCCESS' },
		});
	});

	test.each([
		[
			'no eventId',
			{ beneId: seed.beneficiaries.verified, amount: '10.00' },
			/'eventId' is missing/,
		],
		['an eventId of hyphens only', event('----'), /'eventId' has no letter, digit or underscore/],
		[
			'an eventId of 41 letters after the hyphens are dropped',
			event(`evt-${'a'.repeat(38)}`),
			/'eventId' keeps 41 letters, digits and underscores: a Transfer ID takes at most 40/,
		],
		['an eventId that is an object', event({ id: 1 } as unknown as string), /'eventId' is missing/],
		['no beneId', { eventId: 'evt_bad_1', amount: '10.00' }, /'beneId' must be/],
		['a beneId with a space', event('evt_bad_2', '10.00', 'BENE VERIFIED1'), /'beneId' must be/],
		[
			'no amount',
			{ eventId: 'evt_bad_3', beneId: seed.beneficiaries.verified },
			/'amount' must be a decimal/,
		],
		['an amount in words', event('evt_bad_4', 'ten'), /'amount' must be a decimal/],
		[
			'an amount with three decimals',
			event('evt_bad_5', '10.005'),
			/'amount' must be a decimal with at most 2 decimals/,
		],
		['an amount below 1.00', event('evt_bad_6', '0.50'), /'amount' must be at least 1\.00/],
		[
			'an amount above the limit',
			event('evt_bad_7', '1000.01'),
			/'amount' is above this workflow's limit of 1000\.00 per event/,
		],
		[
			'an amount far above the limit, as a number',
			event('evt_bad_8', 99999),
			/'amount' is above this workflow's limit/,
		],
		['a body that is not JSON', 'pay evt_bad_9 please', /'eventId' is missing/],
	])(
		'a bad event (%s), signed, is answered 400 with its problems: nothing is sent, nothing paid',
		async (_case, body, problem) => {
			const before = await nothingSent();
			const request = signed(body);
			const answer = await deliver(
				typeof body === 'string'
					? { ...request, headers: { ...request.headers, 'content-type': 'text/plain' } }
					: request,
			);
			expect(answer.code).toBe(400);
			expect(answer.body).toMatchObject({
				status: 'INVALID',
				message: expect.stringMatching(/^Nothing was paid: /),
			});
			expect((answer.body as { problems: string[] }).problems).toEqual(
				expect.arrayContaining([expect.stringMatching(problem)]),
			);
			expect(await nothingSent()).toEqual(before);
		},
	);

	test('a UUID event id pays once, under its 32 hex digits as the Transfer ID; delivered again, nothing more', async () => {
		const uuid = '5f0c6a0e-3b7d-4c1a-9e2f-8a4b6c2d1e0f';
		const transferId = '5f0c6a0e3b7d4c1a9e2f8a4b6c2d1e0f';
		const before = await ledger();
		expect(await deliver(signed(event(uuid, '75.25')))).toMatchObject({
			code: 200,
			body: { eventId: uuid, transferId, status: 'SUCCESS' },
		});
		expect(await deliver(signed(event(uuid, '75.25')))).toMatchObject({
			code: 200,
			body: { eventId: uuid, transferId, status: 'ALREADY_SUBMITTED' },
		});
		expect(
			(await ledger()).slice(before.length).map(({ transferId: id, amount }) => [id, amount]),
		).toEqual([[transferId, 75.25]]);
		expect(
			transferRequests().filter((request) => (request.body as Json).transferId === transferId),
		).toHaveLength(1);
	});
});

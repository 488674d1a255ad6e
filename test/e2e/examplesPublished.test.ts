/**
 * The examples that start from a webhook, a schedule or a trigger, published in real n8n (the
 * package installed the community-package way, the credentials `npm start` imports) and called or
 * polled as in production, judged by the sandbox's ledger (`GET /__sandbox/state`) and by what it
 * received:
 * - the event example authenticates its caller with n8n's Header Auth (none or a wrong key: 403,
 *   nothing runs, nothing paid), checks the payload (a bad one: 400, nothing sent), pays an event
 *   once under the Transfer ID made of its id (a UUID: its 32 hex digits), and a redelivery pays
 *   nothing more;
 * - the OAuth callback never answers the browser with the token, and answers a missing or
 *   malformed code with 400 without calling the service;
 * - the incident check reports each incident once, one open since yesterday included, and then
 *   only what changed;
 * - the paylink check reports a paylink's status only when it changed since the last check (also
 *   back to an earlier one).
 * The sandbox is never reset here: the published workflows poll it in the background.
 */
import { example, n8n, savedExecution, suiteN8n, until } from '../helpers/e2e';
import type { Json, Rest, SavedExecution, SuiteN8n, Workflow } from '../helpers/e2e';
import { seed } from '../helpers/sandbox';
import type { Sandbox } from '../helpers/sandbox';

jest.setTimeout(20 * 60 * 1000);

const YESTERDAY = new Date(Date.now() - 26 * 3600 * 1000).toISOString();
/** Opened before n8n starts: an incident open since yesterday, which the old example (today's list) missed. */
const SINCE_YESTERDAY = { entityCode: 'SBIN', mode: 'UPI', impact: 'HIGH', createdAt: YESTERDAY };

/** The shipped example with its schedule made shorter, so that the test sees several runs. */
function withNode(workflow: Workflow, name: string, change: (node: Json) => Json): Workflow {
	return { ...workflow, nodes: workflow.nodes.map((node) => (node.name === name ? change(node) : node)) };
}
const incidentCheck = withNode(example('incident-check'), 'Incident Check', (node) => ({
	...node,
	// The shortest interval n8n activates for a polling trigger.
	parameters: { ...(node.parameters as Json), pollTimes: { item: [{ mode: 'everyMinute' }] } },
}));
const paylinkStatus = withNode(example('paylink-status'), 'Every 15 Minutes', (node) => ({ ...node, parameters: { rule: { interval: [{ field: 'seconds', secondsInterval: 8 }] } } }));

let suite: SuiteN8n;
let sandbox: Sandbox;
let rest: Rest;
let sinceYesterday: { id: number };

beforeAll(async () => {
	suite = await suiteN8n({
		name: 'e2e-examples-published',
		workflows: [example('event-payout'), example('oauth-callback'), incidentCheck, paylinkStatus],
		publish: ['payoutsEventPayout', 'payoutsOAuthCallback', 'payoutsIncidentCheck', 'payoutsPaylinkStatus'],
		server: true,
		prepare: async (service) => {
			sinceYesterday = service.openIncident(SINCE_YESTERDAY);
		},
	});
	sandbox = suite.sandbox;
	rest = suite.rest as Rest;
	await n8n.waitForWebhook(rest.url, 'payouts-event');
	await n8n.waitForWebhook(rest.url, 'payouts-oauth-callback', { method: 'GET' });
});

afterAll(async () => suite?.close());

/** The finished executions of a workflow, oldest first. */
async function executionsOf(workflowId: string): Promise<SavedExecution[]> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	const page = (await rest('GET', `/executions?filter=${filter}&limit=100`)) as { results: Array<{ id: string; status: string }> };
	const ids = [...new Set(page.results.filter((execution) => !['new', 'running', 'waiting'].includes(execution.status)).map((execution) => String(execution.id)))];
	const executions = await Promise.all(ids.map((id) => savedExecution(rest, id)));
	return executions.sort((a, b) => Number(a.id) - Number(b.id));
}

/** The sandbox's ledger as its HTTP control interface gives it. */
async function ledger(): Promise<Array<{ transferId: string; amount: number; status: string }>> {
	return ((await (await fetch(`${sandbox.baseUrl}/__sandbox/state`)).json()) as { transfers: Array<{ transferId: string; amount: number; status: string }> }).transfers;
}
const transferRequests = () => sandbox.requests().filter((request) => request.path.startsWith('/payout/v1.2/requestTransfer'));

/** Waits until `workflowId` has a finished execution newer than `afterId` that `accept`s, and gives it with those before it. */
async function nextExecutions(workflowId: string, afterId: number, what: string, accept: (execution: SavedExecution) => boolean, seconds = 150) {
	return await until(what, async () => {
		const newer = (await executionsOf(workflowId)).filter((execution) => Number(execution.id) > afterId);
		const found = newer.findIndex(accept);
		return found >= 0 ? newer.slice(0, found + 1) : undefined;
	}, seconds, 1000);
}
const lastId = async (workflowId: string) => Number((await executionsOf(workflowId)).at(-1)?.id ?? 0);

describe('the incident check (Payouts Incident Trigger → message), published', () => {
	test('the first poll reports each incident once, one open since yesterday included; the next reports only what changed', async () => {
		const open = [seed.incidentBanks.openScheduledImpsAtHdfc.incidentId, seed.incidentBanks.openRtgsAtYesb.incidentId, sinceYesterday.id].sort();
		const [first] = await nextExecutions('payoutsIncidentCheck', 0, "the trigger's first poll to start a run", () => true, 120);
		expect(first.describe(sandbox)).toMatch(/^execution \(success\)/);
		const messages = first.output('Notification Message');
		const reported = (event: string) => messages.filter((message) => message.event === event).map((message) => message.incidentId as number);
		// Open incidents as new ones (not only today's); resolved ones once, as resolved; none twice.
		expect(reported('new').sort()).toEqual(open);
		expect(messages.find((message) => message.incidentId === sinceYesterday.id)?.message).toBe(`Bank incident: State Bank of India (SBIN), UPI transfers affected since ${YESTERDAY}, impact HIGH. Consider another transfer mode until it is resolved.`);
		expect(reported('resolved').length).toBeGreaterThan(0);
		expect(reported('resolved').some((id) => open.includes(id))).toBe(false);
		expect(new Set(messages.map((message) => message.incidentId)).size).toBe(messages.length);
		for (const message of messages.filter((entry) => entry.event === 'resolved')) expect(message.message).toMatch(/^Resolved: .+ \(.+\), [A-Z]+ transfers affected from \S+Z to \S+Z\. [A-Z]+ transfers to this bank can go again\.$/);

		// Yesterday's incident resolved and a new one opened at once: the next run reports those two, nothing else.
		sandbox.resolveIncident(sinceYesterday.id);
		const opened = sandbox.openIncident({ entityCode: 'ICIC', mode: 'NEFT', impact: 'MEDIUM' });
		const later = await nextExecutions('payoutsIncidentCheck', Number(first.id), 'the next poll to report the changes', (execution) => execution.output('Notification Message').length > 0);
		expect(later.flatMap((execution) => execution.output('Notification Message').map((message) => [message.event, message.incidentId]))).toEqual([
			['new', opened.id],
			['resolved', sinceYesterday.id],
		]);
		expect(later.at(-1)?.output('Notification Message')[1].message).toMatch(/^Resolved: State Bank of India \(SBIN\), UPI transfers affected from /);
	});
});

describe('the paylink check (Schedule → Payouts Paylink → only changes), published', () => {
	test("each paylink once at its first check; then a message only when its status changed since the last check, also back to an earlier one", async () => {
		const runs = await nextExecutions('payoutsPaylinkStatus', 0, 'two scheduled checks', (execution) => execution.status === 'success' && Number(execution.id) > 0, 60);
		await nextExecutions('payoutsPaylinkStatus', Number(runs.at(-1)?.id), 'a second scheduled check', () => true, 60);
		const [first, ...quiet] = await executionsOf('payoutsPaylinkStatus');
		expect(first.output('Notification Message').map((item) => item.message)).toEqual([
			`Paylink ${seed.paylinks.active} is ACTIVE (first check): https://payouts.example.com/paylink/paylink_active_1`,
			`Paylink ${seed.paylinks.paid} is PAID (first check): https://payouts.example.com/paylink/paylink_paid_1`,
			`Paylink ${seed.paylinks.expired} is EXPIRED (first check): https://payouts.example.com/paylink/paylink_expired_1`,
		]);
		expect(quiet.length).toBeGreaterThan(0);
		for (const run of quiet) expect([run.status, run.output('Only Changed Statuses')]).toEqual(['success', []]);

		const changes: string[] = [];
		for (const paylinkStatus of ['PAID', 'ACTIVE']) {
			const before = await lastId('payoutsPaylinkStatus');
			sandbox.setPaylink({ paylinkId: seed.paylinks.active, paylinkStatus });
			const reported = await nextExecutions('payoutsPaylinkStatus', before, `the change to ${paylinkStatus} to be reported`, (execution) => execution.output('Notification Message').length > 0, 60);
			const after = await nextExecutions('payoutsPaylinkStatus', Number(reported.at(-1)?.id), 'one more check', () => true, 60);
			changes.push(...[...reported, ...after].flatMap((execution) => execution.output('Notification Message').map((item) => String(item.message))));
		}
		expect(changes).toEqual([
			`Paylink ${seed.paylinks.active} changed from ACTIVE to PAID: https://payouts.example.com/paylink/paylink_active_1`,
			`Paylink ${seed.paylinks.active} changed from PAID to ACTIVE: https://payouts.example.com/paylink/paylink_active_1`,
		]);
	});
});

describe('the OAuth callback, published', () => {
	const tokenRequests = () => sandbox.requests().filter((request) => request.path === '/verification/oauth2/generate-token').length;
	const call = async (query: string) => {
		const response = await fetch(`${rest.url}/webhook/payouts-oauth-callback${query}`);
		return { code: response.status, text: await response.text() };
	};

	test('the browser gets "Connected", never the token; a missing, malformed or used code is answered 400', async () => {
		const before = tokenRequests();
		const connected = await call(`?auth_code=${seed.authCodes[5]}`);
		expect(connected.code).toBe(200);
		expect(JSON.parse(connected.text)).toEqual({ message: expect.stringMatching(/^Connected: verification verification_\d+, token valid until \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/) });
		// The sandbox's tokens read user-access-<reference>-<random>.
		expect(connected.text).not.toMatch(/user-access-|access_token/);
		expect(sandbox.state().usedAuthCodes).toContain(seed.authCodes[5]);
		expect(tokenRequests()).toBe(before + 1);

		for (const query of ['', '?auth_code=', '?auth_code=two%20words', `?auth_code=${'x'.repeat(2049)}`, `?auth_code=${seed.authCodes[6]}&auth_code=${seed.authCodes[7]}`]) {
			const refused = await call(query);
			expect([query.slice(0, 40), refused.code, JSON.parse(refused.text).message]).toEqual([query.slice(0, 40), 400, 'This sign-in link has no valid code: start the sign-in again.']);
		}
		expect(tokenRequests()).toBe(before + 1);

		const used = await call(`?auth_code=${seed.authCodes[5]}`);
		expect([used.code, JSON.parse(used.text).message]).toEqual([400, 'The sign-in could not be completed: start it again.']);
		expect(tokenRequests()).toBe(before + 2);
	});
});

describe('the event example (Webhook → Payouts Transfer), published', () => {
	const KEY = { [n8n.EVENT_SENDER.header]: n8n.EVENT_SENDER.value };
	async function deliver(body: unknown, headers: Record<string, string> = KEY, contentType = 'application/json') {
		const response = await fetch(`${rest.url}/webhook/payouts-event`, { method: 'POST', headers: { 'content-type': contentType, ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
		const text = await response.text();
		let json: Json | undefined;
		try {
			json = JSON.parse(text);
		} catch {
			json = undefined;
		}
		return { code: response.status, body: json, text };
	}
	const event = (eventId: string, amount: unknown = '250.00', beneId: unknown = seed.beneficiaries.verified) => ({ eventId, beneId, amount });

	test('a caller without the key, with a wrong one, or with the key under another header is refused (403): nothing runs, nothing is paid', async () => {
		const before = { ledger: await ledger(), requests: transferRequests().length, executions: (await executionsOf('payoutsEventPayout')).length };
		const refused = [
			await deliver(event('evt_nokey_1'), {}),
			await deliver(event('evt_nokey_2'), { [n8n.EVENT_SENDER.header]: 'not-the-key' }),
			await deliver(event('evt_nokey_3'), { [n8n.EVENT_SENDER.header]: '' }),
			await deliver(event('evt_nokey_4'), { authorization: `Bearer ${n8n.EVENT_SENDER.value}` }),
		];
		expect(refused.map((answer) => answer.code)).toEqual([403, 403, 403, 403]);
		// What n8n answers says nothing of the key.
		for (const answer of refused) expect(answer.text).not.toContain(n8n.EVENT_SENDER.value);
		expect(await ledger()).toEqual(before.ledger);
		expect(transferRequests()).toHaveLength(before.requests);
		expect((await executionsOf('payoutsEventPayout')).length).toBe(before.executions);
	});

	test('with the key: the event pays once; the same event delivered again pays nothing more', async () => {
		const before = await ledger();
		const first = await deliver(event('evt_pub_1001', '250.00'));
		expect(first).toMatchObject({ code: 200, body: { eventId: 'evt_pub_1001', transferId: 'evt_pub_1001', status: 'SUCCESS', referenceId: expect.any(String) } });
		const again = await deliver(event('evt_pub_1001', '250.00'));
		expect(again).toMatchObject({ code: 200, body: { eventId: 'evt_pub_1001', status: 'ALREADY_SUBMITTED', referenceId: (first.body as Json).referenceId } });
		const after = await ledger();
		expect(after.slice(before.length).map(({ transferId, amount }) => ({ transferId, amount }))).toEqual([{ transferId: 'evt_pub_1001', amount: 250 }]);
		// An amount exactly at the limit is paid; a number in the JSON is read as its decimal text.
		expect(await deliver(event('evt_pub_1002', '1000.00'))).toMatchObject({ code: 200, body: { status: 'SUCCESS' } });
		expect(await deliver(event('evt_pub_1003', 120))).toMatchObject({ code: 200, body: { status: 'SUCCESS' } });
		expect((await ledger()).slice(before.length).map(({ transferId, amount }) => [transferId, amount])).toEqual([
			['evt_pub_1001', 250],
			['evt_pub_1002', 1000],
			['evt_pub_1003', 120],
		]);
	});

	test.each([
		['no eventId', { beneId: seed.beneficiaries.verified, amount: '10.00' }, /'eventId' is missing/],
		['an eventId of hyphens only', event('----'), /'eventId' has no letter, digit or underscore/],
		['an eventId of 41 letters after the hyphens are dropped', event(`evt-${'a'.repeat(38)}`), /'eventId' keeps 41 letters, digits and underscores: a Transfer ID takes at most 40/],
		['an eventId that is an object', event({ id: 1 } as unknown as string), /'eventId' is missing/],
		['no beneId', { eventId: 'evt_bad_1', amount: '10.00' }, /'beneId' must be/],
		['a beneId with a space', event('evt_bad_2', '10.00', 'BENE VERIFIED1'), /'beneId' must be/],
		['no amount', { eventId: 'evt_bad_3', beneId: seed.beneficiaries.verified }, /'amount' must be a decimal/],
		['an amount in words', event('evt_bad_4', 'ten'), /'amount' must be a decimal/],
		['an amount with three decimals', event('evt_bad_5', '10.005'), /'amount' must be a decimal with at most 2 decimals/],
		['an amount below 1.00', event('evt_bad_6', '0.50'), /'amount' must be at least 1\.00/],
		['an amount above the limit', event('evt_bad_7', '1000.01'), /'amount' is above this workflow's limit of 1000\.00 per event/],
		['an amount far above the limit, as a number', event('evt_bad_8', 99999), /'amount' is above this workflow's limit/],
		['a body that is not JSON', 'pay evt_bad_9 please', /'eventId' is missing/],
	])('a bad event (%s) is answered 400 with its problems: nothing is sent, nothing paid', async (_case, body, problem) => {
		const before = { ledger: await ledger(), requests: transferRequests().length };
		const answer = await deliver(body, KEY, typeof body === 'string' ? 'text/plain' : 'application/json');
		expect(answer.code).toBe(400);
		expect(answer.body).toMatchObject({ status: 'INVALID', message: expect.stringMatching(/^Nothing was paid: /) });
		expect((answer.body as { problems: string[] }).problems).toEqual(expect.arrayContaining([expect.stringMatching(problem)]));
		expect(transferRequests()).toHaveLength(before.requests);
		expect(await ledger()).toEqual(before.ledger);
	});

	test('a UUID event id pays once, under its 32 hex digits as the Transfer ID; delivered again, nothing more', async () => {
		const uuid = '5f0c6a0e-3b7d-4c1a-9e2f-8a4b6c2d1e0f';
		const transferId = '5f0c6a0e3b7d4c1a9e2f8a4b6c2d1e0f';
		const before = await ledger();
		expect(await deliver(event(uuid, '75.25'))).toMatchObject({ code: 200, body: { eventId: uuid, transferId, status: 'SUCCESS' } });
		expect(await deliver(event(uuid, '75.25'))).toMatchObject({ code: 200, body: { eventId: uuid, transferId, status: 'ALREADY_SUBMITTED' } });
		expect((await ledger()).slice(before.length).map(({ transferId: id, amount }) => [id, amount])).toEqual([[transferId, 75.25]]);
		expect(transferRequests().filter((request) => (request.body as Json).transferId === transferId)).toHaveLength(1);
	});
});

/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code runs in Node under jest, never inside n8n (it uses Node's own modules, timers, files and the environment); these rules guard the code n8n loads (nodes/, credentials/) */
/**
 * Issue #19 in real n8n: the service may read the incident query's times ("yyyy-mm-dd hh:mm:ss",
 * no zone) in a timezone other than the workflow's. Here the sandbox reads them in India's time
 * (+05:30, set over its HTTP control interface) and n8n runs with its default timezone
 * (America/New_York: GENERIC_TIMEZONE is not set), 10.5 hours behind in November. An incident
 * opened over the sandbox's control interface must start a run of the active workflow on the
 * trigger's next poll, not hours later.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { seed, startSandbox } from '../helpers/sandbox';
import type { Sandbox } from '../helpers/sandbox';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const n8n = require('../../scripts/n8n.js');

jest.setTimeout(10 * 60 * 1000);

type Json = Record<string, unknown>;

const workflow = {
	id: 'payoutsTzTrigger',
	name: 'E2E: new incidents, service in another timezone',
	nodes: [
		{
			id: 'tz-1',
			name: 'New Incidents',
			type: 'n8n-nodes-payouts.payoutsIncidentTrigger',
			typeVersion: 2,
			position: [0, 0],
			// Every minute: n8n 2.41 refuses to activate a polling trigger that polls more often. One
			// bank only, so that each poll is one request and no seeded incident widens it.
			parameters: { pollTimes: { item: [{ mode: 'everyMinute' }] }, events: ['new'], filters: { entityCode: 'TZBANK' }, options: {} },
			credentials: { payoutsApi: { id: n8n.CREDENTIAL_ID, name: 'Payouts Sandbox' } },
		},
		{ id: 'tz-2', name: 'Received', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [260, 0], parameters: {} },
	],
	connections: { 'New Incidents': { main: [[{ node: 'Received', type: 'main', index: 0 }]] } },
	// No timezone: the workflow uses n8n's default.
	settings: { executionOrder: 'v1' },
	active: false,
};

let sandbox: Sandbox;
let userFolder: string;
let server: { url: string; stop: () => Promise<void> } | undefined;
let rest: (method: string, route: string, body?: unknown) => Promise<unknown>;

beforeAll(async () => {
	await n8n.ensureRuntime();
	sandbox = await startSandbox({ port: 0 });
	// The service's timezone, set as a test or a demo would from outside: over HTTP.
	const configured = await fetch(`${sandbox.baseUrl}/__sandbox/config`, { method: 'POST', body: JSON.stringify({ timezone: 'Asia/Kolkata' }) });
	expect(((await configured.json()) as Json).timezone).toBe('Asia/Kolkata');
	userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'payouts-e2e-timezone-'));
	await n8n.installPackage(userFolder);
	const env = n8n.n8nEnv(userFolder, { port: await n8n.freePort(), brokerPort: await n8n.freePort() });
	// n8n's default timezone, as a fresh install has it.
	delete env.GENERIC_TIMEZONE;
	await n8n.importCredential(userFolder, env, sandbox, seed);
	await n8n.importWorkflows(userFolder, env, [workflow]);
	await n8n.publishWorkflow(env, workflow.id);
	const started = await n8n.startServer(env, path.join(userFolder, 'n8n.log'));
	server = started;
	rest = await n8n.restClient(started.url);
});

afterAll(async () => {
	await server?.stop();
	await sandbox?.close();
	if (userFolder) fs.rmSync(userFolder, { recursive: true, force: true });
});

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, seconds: number): Promise<T> {
	const deadline = Date.now() + seconds * 1000;
	for (;;) {
		const value = await probe();
		if (value !== undefined) return value;
		if (Date.now() > deadline) throw new Error(`waited ${seconds} s for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
}

/** The times of the trigger's polls: its listing requests, those a second or less apart being one poll. */
function polls(): number[] {
	const times = sandbox
		.requests()
		.filter((request) => request.path === '/payout/v1/incidents')
		.map((request) => request.time);
	return times.filter((time, index) => index === 0 || time - times[index - 1] > 1000);
}

async function runsOfWorkflow(): Promise<Json[]> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId: workflow.id }));
	return ((await rest('GET', `/executions?filter=${filter}&limit=20`)) as { results: Json[] }).results;
}

test("an incident opened now starts a run on the trigger's next poll, with the service in +05:30 and n8n in its default timezone", async () => {
	expect(((await rest('GET', '/settings')) as Json).timezone).toBe('America/New_York');
	// Activation polled once: what exists is history.
	await until("the trigger's first poll", () => (polls().length >= 1 ? true : undefined), 60);
	expect(await runsOfWorkflow()).toEqual([]);

	const response = await fetch(`${sandbox.baseUrl}/__sandbox/incidents`, { method: 'POST', body: JSON.stringify({ entityCode: 'TZBANK', mode: 'IMPS', impact: 'HIGH' }) });
	const incident = (await response.json()) as Json;
	const openedAt = Date.now();

	// The next poll comes at most a minute later; its run is recorded within seconds.
	await until('the next poll', () => (polls().some((time) => time > openedAt) ? true : undefined), 75);
	const [run] = await until('a run of the workflow', async () => {
		const runs = await runsOfWorkflow();
		return runs.length > 0 ? runs : undefined;
	}, 30);
	expect(polls().filter((time) => time > openedAt)).toHaveLength(1);
	expect(run).toMatchObject({ mode: 'trigger' });

	const saved = (await rest('GET', `/executions/${run.id}`)) as { data: string; status: string };
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const flatted = require(require.resolve('flatted', { paths: [n8n.RUNTIME_DIR] })) as { parse: (text: string) => unknown };
	const data = flatted.parse(saved.data) as { resultData: { runData: Record<string, Array<{ data: { main: Array<Array<{ json: Json }>> } }>> } };
	expect(saved.status).toBe('success');
	expect(data.resultData.runData['New Incidents'][0].data.main[0].map((item) => [item.json.id, item.json.event])).toEqual([[incident.id, 'new']]);
});

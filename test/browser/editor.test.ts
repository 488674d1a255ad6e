/**
 * The editor, in a real browser: a started n8n with the package installed the community-package
 * way, logged in through the sign-in form. Every example opens; our nodes render on the canvas with
 * their own SVG icons, and their parameter panels show their parameters and the sandbox
 * credential. Screenshots go to test-results/screenshots/, and with UPDATE_SCREENSHOTS=1
 * (`npm run screenshots`) also to docs/screenshots/ for the README.
 *
 * Needs Debian's chromium (/usr/bin/chromium): installed here with apt-get when missing; when it
 * cannot be installed the test is skipped with a loud message, except under CI, where it fails.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import type { Browser, Page } from 'playwright-core';
import { chromium } from 'playwright-core';

import { seed, startSandbox } from '../helpers/sandbox';
import type { Sandbox } from '../helpers/sandbox';
import { ensureChromium } from './chromium';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const n8n = require('../../scripts/n8n.js');

jest.setTimeout(20 * 60 * 1000);

const ROOT = path.join(__dirname, '..', '..');
const RESULTS = path.join(ROOT, 'test-results', 'screenshots');
const DOCS = path.join(ROOT, 'docs', 'screenshots');
const UPDATE = process.env.UPDATE_SCREENSHOTS === '1';

/** What each of our node types must show in its parameter panel (DESIGN.md's parameter names). */
const expectedParameters: Record<string, { operation?: string; parameters: string[] }> = {
	'n8n-nodes-payouts.payoutsTransfer': { operation: 'Standard Transfer', parameters: ['beneId', 'amount', 'transferId', 'transferMode'] },
	'n8n-nodes-payouts.payoutsIncident': { operation: 'Get Many', parameters: ['status'] },
	'n8n-nodes-payouts.payoutsPaylink': { operation: 'Get Status', parameters: ['paylinkId'] },
	'n8n-nodes-payouts.payoutsOAuth': { operation: 'Generate Token', parameters: ['authCode'] },
	'n8n-nodes-payouts.payoutsIncidentTrigger': { parameters: ['events'] },
};

const examples: Array<{ id: string; name: string; nodes: Array<{ name: string; type: string; parameters?: Record<string, unknown> }> }> = n8n.exampleWorkflows();

const chromiumPath = ensureChromium();
const describeWithBrowser = chromiumPath ? describe : describe.skip;

let sandbox: Sandbox;
let userFolder: string;
let server: { url: string; stop: () => Promise<void> };
let browser: Browser;
let page: Page;

async function shoot(name: string) {
	fs.mkdirSync(RESULTS, { recursive: true });
	const file = path.join(RESULTS, `${name}.png`);
	await page.screenshot({ path: file });
	if (UPDATE) {
		fs.mkdirSync(DOCS, { recursive: true });
		fs.copyFileSync(file, path.join(DOCS, `${name}.png`));
	}
}

describeWithBrowser('the n8n editor with n8n-nodes-payouts', () => {
	beforeAll(async () => {
		await n8n.ensureRuntime();
		sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
		userFolder = fs.mkdtempSync(path.join(os.tmpdir(), 'payouts-browser-'));
		await n8n.installPackage(userFolder);
		const port = await n8n.freePort();
		const env = n8n.n8nEnv(userFolder, { port, brokerPort: await n8n.freePort() });
		await n8n.importCredential(userFolder, env, sandbox, seed);
		await n8n.importWorkflows(userFolder, env, examples);
		server = await n8n.startServer(env, path.join(userFolder, 'n8n.log'));
		await n8n.ensureOwner(server.url);

		browser = await chromium.launch({
			executablePath: chromiumPath as string,
			args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
		});
		page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
		// The editor's bundle takes long to start on a busy 2-core machine.
		page.setDefaultTimeout(90000);
	});

	afterAll(async () => {
		await browser?.close();
		await server?.stop();
		await sandbox?.close();
		if (userFolder) fs.rmSync(userFolder, { recursive: true, force: true });
	});

	test('the owner signs in through the sign-in form', async () => {
		await page.goto(`${server.url}/signin`);
		await page.locator('input[name="emailOrLdapLoginId"]').fill(n8n.OWNER.email);
		await page.locator('input[name="password"]').fill(n8n.OWNER.password);
		await page.locator('[data-test-id="form-submit-button"]').click();
		await page.waitForURL(/\/home\//, { timeout: 60000 });
	});

	test.each(examples.map((workflow) => [workflow.name, workflow] as const))('%s: canvas, icons and parameter panels', async (_name, workflow) => {
		await page.goto(`${server.url}/workflow/${workflow.id}`);
		const canvasNodes = page.locator('[data-test-id="canvas-node"]');
		await canvasNodes.first().waitFor({ timeout: 60000 });
		expect(await canvasNodes.count()).toBe(workflow.nodes.length);
		await page.locator('[data-test-id="zoom-to-fit"]').click();
		await page.waitForTimeout(600);

		const ours = workflow.nodes.filter((node) => node.type.startsWith('n8n-nodes-payouts.'));
		expect(ours.length).toBeGreaterThan(0);
		for (const node of ours) {
			const onCanvas = page.locator(`[data-test-id="canvas-node"][data-node-name="${node.name}"]`);
			expect(await onCanvas.getAttribute('data-node-type')).toBe(node.type);
			// Our own SVG file icon, loaded: not a fallback letter or a Font Awesome glyph.
			const icon = onCanvas.locator('img');
			const src = await icon.getAttribute('src');
			const resource = node.type.split('.')[1];
			expect(src).toMatch(new RegExp(`^/icons/n8n-nodes-payouts/dist/nodes/[A-Za-z]+/${resource}\\.svg$`));
			expect(await icon.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
			const response = await page.request.get(`${server.url}${src}`);
			expect(response.status()).toBe(200);
			expect(response.headers()['content-type']).toContain('image/svg+xml');
		}

		// Run it from the editor, as a user would: "Execute workflow" (a webhook example then waits
		// for its test URL to be called, here with a fresh OAuth code).
		await page.locator('[data-test-id="execute-workflow-button"]').click();
		const webhook = workflow.nodes.find((node) => node.type === 'n8n-nodes-base.webhook') as { parameters?: { path?: string } } | undefined;
		if (webhook) {
			await page.locator('[data-test-id="stop-execution-waiting-for-webhook-button"]').waitFor();
			const response = await page.request.get(`${server.url}/webhook-test/${webhook.parameters?.path}?auth_code=${seed.authCodes[9]}`);
			expect(response.status()).toBe(200);
		}
		await page.getByText('Workflow executed successfully').waitFor({ timeout: 60000 });
		// An example started by our incident trigger runs from the editor with the latest incident
		// ("Fetch Test Event"); what follows depends on held rows, so only the trigger must succeed.
		const startedByTrigger = ours.some((node) => node.type === 'n8n-nodes-payouts.payoutsIncidentTrigger');
		for (const node of startedByTrigger ? ours.filter((candidate) => candidate.type.endsWith('Trigger')) : ours) {
			await page.locator(`[data-test-id="canvas-node"][data-node-name="${node.name}"] [data-test-id="canvas-node-status-success"]`).waitFor();
		}
		await page.addStyleTag({ content: '.el-notification { display: none !important; }' });
		await shoot(`${workflow.id}-canvas`);

		for (const node of ours) {
			await page.locator(`[data-test-id="canvas-node"][data-node-name="${node.name}"]`).dblclick();
			const ndv = page.locator('[data-test-id="ndv"]');
			await ndv.waitFor({ timeout: 30000 });
			const panel = ndv.locator('[data-test-id="node-parameters"]');
			await panel.waitFor();
			const expected = expectedParameters[node.type];
			expect(await ndv.locator('[data-test-id="node-title-container"]').innerText()).toContain(node.name);
			expect(await ndv.locator('[data-test-id="node-credentials-select"] input').inputValue()).toBe('Payouts Sandbox');
			if (expected.operation) expect(await ndv.locator('[data-test-id="parameter-input-operation"] input').inputValue()).toBe(expected.operation);
			for (const parameter of expected.parameters) await expect(ndv.locator(`[data-test-id="parameter-input-${parameter}"]`).isVisible()).resolves.toBe(true);
			// The panel's header shows our icon too.
			expect(await ndv.locator('header img').first().getAttribute('src')).toMatch(/^\/icons\/n8n-nodes-payouts\/.+\.svg$/);
			await shoot(`${workflow.id}-${node.type.split('.')[1]}-parameters`);
			await ndv.locator('[data-test-id="ndv-close-button"]').click();
			await ndv.waitFor({ state: 'hidden' });
		}
	});

	test('the node panel lists our nodes under their display names', async () => {
		const response = await page.request.get(`${server.url}/types/nodes.json`);
		const types: Array<{ name: string; displayName: string; icon?: unknown; iconUrl?: unknown }> = await response.json();
		const ours = types.filter((type) => type.name.startsWith('n8n-nodes-payouts.') && !type.name.endsWith('Tool'));
		expect(ours.map((type) => type.name).sort()).toEqual(
			['payoutsBeneficiary', 'payoutsIncident', 'payoutsIncidentTrigger', 'payoutsOAuth', 'payoutsPaylink', 'payoutsTransfer'].map((name) => `n8n-nodes-payouts.${name}`),
		);
		for (const type of ours) expect(JSON.stringify(type.iconUrl)).toMatch(/\.svg/);
	});

	test("the credential's Test: a valid token connects, a refused one fails, also when the service answers HTTP 200", async () => {
		// What the credential dialog's Test button sends, with the editor's own session.
		const testCredential = (accessToken: string) =>
			page.evaluate(
				async ({ accessToken, baseUrl }) => {
					const response = await fetch('/rest/credentials/test', {
						method: 'POST',
						headers: { 'content-type': 'application/json', 'browser-id': window.localStorage.getItem('n8n-browserId') ?? '' },
						body: JSON.stringify({ credentials: { id: 'payoutsSandbox01', name: 'Payouts Sandbox', type: 'payoutsApi', data: { baseUrl, accessToken } } }),
					});
					return ((await response.json()) as { data: { status: string; message: string } }).data;
				},
				{ accessToken, baseUrl: sandbox.baseUrl },
			);
		expect(await testCredential(seed.credentials.accessToken)).toEqual({ status: 'OK', message: 'Connection successful!' });
		expect((await testCredential(seed.tokens.expired)).status).toBe('Error');
		sandbox.configure({ httpStyle: 'always200' });
		expect(await testCredential(seed.tokens.expired)).toEqual({ status: 'Error', message: 'The service refused the access token' });
		sandbox.configure({ httpStyle: 'mirror' });
	});
});

if (!chromiumPath) {
	test('browser test skipped: Chromium is missing and could not be installed (see the message above)', () => {
		expect(process.env.CI).toBeFalsy();
	});
}

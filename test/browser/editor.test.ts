/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- test code runs in Node under jest, never inside n8n (it uses Node's own modules, timers, files and the environment); these rules guard the code n8n loads (nodes/, credentials/), and NodeApiError needs a node, which a test has not */
/**
 * The editor, in a real browser: a started n8n with the package installed the community-package
 * way, logged in through the sign-in form. Every example opens; our nodes render on the canvas with
 * their own SVG icons, and their parameter panels show their parameters and the sandbox
 * credential. Screenshots go to test-results/screenshots/, and with UPDATE_SCREENSHOTS=1
 * (`npm run screenshots`) also to docs/screenshots/ for the docs pages.
 *
 * Needs Debian's chromium (/usr/bin/chromium): installed here with apt-get when missing; when it
 * cannot be installed the test is skipped with a loud message, except under CI, where it fails.
 */
import fs from 'node:fs';
import path from 'node:path';

import type { Browser, Page } from 'playwright-core';
import { chromium } from 'playwright-core';

import { n8n, suiteN8n } from '../helpers/e2e';
import type { Rest, Server, SuiteN8n } from '../helpers/e2e';
import { seed } from '../../harness/sandbox';
import type { Sandbox } from '../../harness/sandbox';
import { ensureChromium } from './chromium';

jest.setTimeout(20 * 60 * 1000);

const ROOT = path.join(__dirname, '..', '..');
const RESULTS = path.join(ROOT, 'test-results', 'screenshots');
const DOCS = path.join(ROOT, 'docs', 'screenshots');
const UPDATE = process.env.UPDATE_SCREENSHOTS === '1';

/** What each of our node types must show in its parameter panel (DESIGN.md's parameter names). */
const expectedParameters: Record<string, { operation?: string; parameters: string[] }> = {
	'n8n-nodes-payouts.payoutsTransfer': {
		operation: 'Standard Transfer',
		parameters: ['beneId', 'amount', 'transferId', 'transferMode'],
	},
	'n8n-nodes-payouts.payoutsIncident': {
		operation: 'Get Many Incidents',
		parameters: ['status', 'simplify'],
	},
	'n8n-nodes-payouts.payoutsPaylink': {
		operation: 'Get Paylink Status',
		parameters: ['paylinkId'],
	},
	'n8n-nodes-payouts.payoutsOAuth': { operation: 'Generate Token', parameters: ['authCode'] },
	'n8n-nodes-payouts.payoutsIncidentTrigger': { parameters: ['events'] },
};
/** A Payouts Transfer node's panel shows its own operation's fields (the queue-mode template tops up). */
const transferPanels: Record<string, { operation: string; parameters: string[] }> = {
	standardTransfer: expectedParameters['n8n-nodes-payouts.payoutsTransfer'] as {
		operation: string;
		parameters: string[];
	},
	internalTransfer: { operation: 'Internal Transfer', parameters: ['amount', 'rechargeAccount'] },
};

const examples: Array<{
	id: string;
	name: string;
	nodes: Array<{ name: string; type: string; parameters?: Record<string, unknown> }>;
}> = n8n.exampleWorkflows();

/** Workflows a user starts from scratch in the editor, for the tests that type into fields. */
const CREDENTIAL = { payoutsApi: { id: 'payoutsSandbox01', name: 'Payouts Sandbox' } };
const start = {
	id: 't-0',
	name: 'Start',
	type: 'n8n-nodes-base.manualTrigger',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};
function scratch(id: string, nodes: Array<Record<string, unknown>>) {
	const chain = [start, ...nodes];
	const connections = Object.fromEntries(
		chain
			.slice(0, -1)
			.map((node, index) => [
				node.name,
				{ main: [[{ node: chain[index + 1].name, type: 'main', index: 0 }]] },
			]),
	);
	return {
		id,
		name: `Typing: ${id}`,
		nodes: chain,
		connections,
		settings: { executionOrder: 'v1' },
		active: false,
	};
}
const transferNode = (parameters: Record<string, unknown>) => ({
	id: 't-1',
	name: 'Pay',
	type: 'n8n-nodes-payouts.payoutsTransfer',
	typeVersion: 1,
	position: [260, 0],
	parameters,
	credentials: CREDENTIAL,
});
const scratchWorkflows = [
	scratch('typedStandard', [
		transferNode({
			operation: 'standardTransfer',
			beneId: seed.beneficiaries.verified,
			transferId: 'typed_browser_1',
			transferMode: 'banktransfer',
		}),
	]),
	scratch('typedExpression', [
		{
			id: 't-2',
			name: 'Row',
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			position: [130, 0],
			parameters: { mode: 'raw', jsonOutput: '{ "amount": "2500.75" }', options: {} },
		},
		{
			...transferNode({
				operation: 'standardTransfer',
				beneId: seed.beneficiaries.verified,
				transferId: 'typed_browser_2',
				transferMode: 'banktransfer',
			}),
			position: [390, 0],
		},
	]),
	scratch('guardEmpty', [
		transferNode({
			operation: 'standardTransfer',
			beneId: seed.beneficiaries.hdfcBank,
			amount: '10.00',
			transferId: 'typed_guard_1',
			transferMode: 'imps',
		}),
	]),
	scratch('cardNetworkB', [
		transferNode({
			operation: 'cardTransfer',
			token: seed.cards.success1,
			amount: '10.00',
			transferId: 'typed_card_b',
			cardType: 'CREDIT',
			additionalFields: { networkType: 'NETWORK_B', tokenExpiry: '2030-12' },
		}),
	]),
	scratch('cardNetworkA', [
		transferNode({
			operation: 'cardTransfer',
			token: seed.cards.success1,
			amount: '10.00',
			transferId: 'typed_card_a',
			cardType: 'CREDIT',
			additionalFields: { networkType: 'NETWORK_A' },
		}),
	]),
	{
		id: 'triggerNew',
		name: 'Typing: triggerNew',
		nodes: [
			{
				id: 'tr-1',
				name: 'Incident Trigger',
				type: 'n8n-nodes-payouts.payoutsIncidentTrigger',
				typeVersion: 2,
				position: [0, 0],
				parameters: { events: ['new'] },
				credentials: CREDENTIAL,
			},
		],
		connections: {},
		settings: { executionOrder: 'v1' },
		active: false,
	},
];

// The sender's script of the docs (docs/examples.md, "Signed events").
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { signEvent } = require('../../examples/sign-event.js') as {
	signEvent: (
		url: string,
		body: unknown,
		secret: string,
	) => { body: string; headers: Record<string, string> };
};

const chromiumPath = ensureChromium();
const describeWithBrowser = chromiumPath ? describe : describe.skip;

let suite: SuiteN8n;
let sandbox: Sandbox;
let server: Server;
let rest: Rest;
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
		// The owner account exists once the server is ready (startServer); the test signs in through the form.
		suite = await suiteN8n({
			name: 'browser',
			workflows: [...examples, ...scratchWorkflows],
			server: true,
		});
		({ sandbox } = suite);
		server = suite.server as Server;
		rest = suite.rest as Rest;

		browser = await chromium.launch({
			executablePath: chromiumPath as string,
			args: [
				'--headless',
				'--no-sandbox',
				'--disable-gpu',
				'--disable-background-networking',
				'--disable-component-update',
				'--disable-sync',
				'--no-first-run',
			],
		});
		page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
		// The editor's bundle takes long to start on a busy 2-core machine.
		page.setDefaultTimeout(90000);
	});

	afterAll(async () => {
		await browser?.close();
		await suite?.close();
	});

	test('the owner signs in through the sign-in form', async () => {
		// The account the form will use signs in over REST first: a refusal here is n8n's, not the editor's.
		await n8n.ensureOwner(server.url);
		await page.goto(`${server.url}/signin`);
		try {
			await page.locator('input[name="emailOrLdapLoginId"]').waitFor();
		} catch (error) {
			// Say what the editor shows instead, and what n8n says of its owner.
			fs.mkdirSync(RESULTS, { recursive: true });
			await page.screenshot({ path: path.join(RESULTS, 'debug-signin.png') });
			const settings = (await rest('GET', '/settings').catch((failure: Error) => ({
				error: failure.message,
			}))) as { userManagement?: unknown; error?: string };
			const shown = (
				await page
					.locator('body')
					.innerText()
					.catch(() => '')
			)
				.replace(/\s+/g, ' ')
				.slice(0, 400);
			throw new Error(
				`${(error as Error).message}\npage: ${page.url()}: ${shown}\nn8n's userManagement settings: ${JSON.stringify(settings.userManagement ?? settings)}`,
			);
		}
		await page.locator('input[name="emailOrLdapLoginId"]').fill(n8n.OWNER.email);
		await page.locator('input[name="password"]').fill(n8n.OWNER.password);
		await page.locator('[data-test-id="form-submit-button"]').click();
		await page.waitForURL(/\/home\//, { timeout: 60000 });
	});

	test.each(examples.map((workflow) => [workflow.name, workflow] as const))(
		'%s: canvas, icons and parameter panels',
		async (_name, workflow) => {
			await page.goto(`${server.url}/workflow/${workflow.id}`);
			const canvasNodes = page.locator('[data-test-id="canvas-node"]');
			await canvasNodes.first().waitFor({ timeout: 60000 });
			// Sticky notes are drawn on the canvas too, as notes, not as nodes.
			expect(await canvasNodes.count()).toBe(
				workflow.nodes.filter((node) => node.type !== 'n8n-nodes-base.stickyNote').length,
			);
			expect(await page.locator('[data-test-id="sticky"]').count()).toBe(
				workflow.nodes.length - (await canvasNodes.count()),
			);
			await page.locator('[data-test-id="zoom-to-fit"]').click();
			await page.waitForTimeout(600);

			const ours = workflow.nodes.filter((node) => node.type.startsWith('n8n-nodes-payouts.'));
			// The reconciliation template reads a run's output and the dashboard's export: it calls no service.
			if (workflow.id !== 'payoutsReconcile') expect(ours.length).toBeGreaterThan(0);
			for (const node of ours) {
				const onCanvas = page.locator(
					`[data-test-id="canvas-node"][data-node-name="${node.name}"]`,
				);
				expect(await onCanvas.getAttribute('data-node-type')).toBe(node.type);
				// Our own SVG file icon, loaded: not a fallback letter or a Font Awesome glyph.
				const icon = onCanvas.locator('img');
				const src = await icon.getAttribute('src');
				const resource = node.type.split('.')[1];
				expect(src).toMatch(
					new RegExp(`^/icons/n8n-nodes-payouts/dist/nodes/[A-Za-z]+/${resource}\\.svg$`),
				);
				expect(
					await icon.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0),
				).toBe(true);
				const response = await page.request.get(`${server.url}${src}`);
				expect(response.status()).toBe(200);
				expect(response.headers()['content-type']).toContain('image/svg+xml');
			}

			// Run it from the editor, as a user would: "Execute workflow" (a webhook example then waits
			// for its test URL to be called, here with a fresh OAuth code). The queue-mode template claims
			// each event in a Postgres table this n8n (SQLite) lacks: the claims suite runs it in queue
			// mode (test/e2e/queueClaims.test.ts); here the editor only draws it.
			const runsHere = !workflow.nodes.some((node) => node.type === 'n8n-nodes-base.postgres');
			// The OAuth example has two webhooks: the editor's run here follows a user's browser to the
			// callback (GET), started from that trigger's own button on the canvas, as a user picks it.
			const webhooks = workflow.nodes.filter((node) => node.type === 'n8n-nodes-base.webhook');
			const webhook = (webhooks.find((node) => node.parameters?.httpMethod === 'GET') ??
				webhooks[0]) as
				| { name: string; parameters?: { path?: string; httpMethod?: string } }
				| undefined;
			// A workflow with more than one trigger (the OAuth example's two webhooks; the event template's
			// webhook and its 15-minute check) runs from the webhook's own button on the canvas.
			const triggers = workflow.nodes.filter(
				(node) => node.type === 'n8n-nodes-base.webhook' || /trigger$/i.test(node.type),
			);
			if (runsHere && webhook && triggers.length > 1) {
				await page
					.locator(`[data-test-id="canvas-node"][data-node-name="${webhook.name}"]`)
					.hover();
				await page.locator(`[data-test-id="execute-workflow-button-${webhook.name}"]`).click();
			} else if (runsHere) await page.locator('[data-test-id="execute-workflow-button"]').click();
			if (webhook && runsHere) {
				await page.locator('[data-test-id="stop-execution-waiting-for-webhook-button"]').waitFor();
				// The OAuth callback is called by the browser with a code (a seeded one: a sign-in not started
				// here, so the token is exchanged and then not kept: 400); the payout event is POSTed by its sender, signed.
				const url = `${server.url}/webhook-test/${webhook.parameters?.path}`;
				const response =
					webhook.parameters?.httpMethod === 'POST'
						? await page.request.post(
								url,
								(({ body, headers }) => ({ data: body, headers }))(
									signEvent(
										url,
										{
											eventId: 'browser_event_1',
											beneId: seed.beneficiaries.verified,
											amount: '10.00',
										},
										n8n.EVENT_SIGNING.secret,
									),
								),
							)
						: await page.request.get(`${url}?auth_code=${seed.authCodes[9]}`);
				if (webhook.parameters?.httpMethod === 'POST') expect(response.status()).toBe(200);
				else
					expect([response.status(), (await response.json()).message]).toEqual([
						400,
						expect.stringMatching(/^This sign-in was not started here/),
					]);
			}
			if (runsHere) {
				await page.getByText('Workflow executed successfully').waitFor({ timeout: 60000 });
				// An example started by our incident trigger runs from the editor with the latest incident
				// ("Fetch Test Event"); what follows depends on held rows, so only the trigger must succeed.
				const startedByTrigger = ours.some(
					(node) => node.type === 'n8n-nodes-payouts.payoutsIncidentTrigger',
				);
				for (const node of startedByTrigger
					? ours.filter((candidate) => candidate.type.endsWith('Trigger'))
					: ours) {
					await page
						.locator(
							`[data-test-id="canvas-node"][data-node-name="${node.name}"] [data-test-id="canvas-node-status-success"]`,
						)
						.waitFor();
				}
			}
			await page.addStyleTag({ content: '.el-notification { display: none !important; }' });
			await shoot(`${workflow.id}-canvas`);

			for (const node of ours) {
				await page
					.locator(`[data-test-id="canvas-node"][data-node-name="${node.name}"]`)
					.dblclick();
				const ndv = page.locator('[data-test-id="ndv"]');
				await ndv.waitFor({ timeout: 30000 });
				const panel = ndv.locator('[data-test-id="node-parameters"]');
				await panel.waitFor();
				const operation = node.parameters?.operation;
				const expected =
					node.type === 'n8n-nodes-payouts.payoutsTransfer' && typeof operation === 'string'
						? transferPanels[operation]
						: expectedParameters[node.type];
				expect(await ndv.locator('[data-test-id="node-title-container"]').innerText()).toContain(
					node.name,
				);
				expect(
					await ndv.locator('[data-test-id="node-credentials-select"] input').inputValue(),
				).toBe('Payouts Sandbox');
				if (expected.operation)
					expect(
						await ndv.locator('[data-test-id="parameter-input-operation"] input').inputValue(),
					).toBe(expected.operation);
				for (const parameter of expected.parameters)
					await expect(
						ndv.locator(`[data-test-id="parameter-input-${parameter}"]`).isVisible(),
					).resolves.toBe(true);
				// The panel's header shows our icon too.
				expect(await ndv.locator('header img').first().getAttribute('src')).toMatch(
					/^\/icons\/n8n-nodes-payouts\/.+\.svg$/,
				);
				await shoot(`${workflow.id}-${node.type.split('.')[1]}-parameters`);
				await ndv.locator('[data-test-id="ndv-close-button"]').click();
				await ndv.waitFor({ state: 'hidden' });
			}
		},
	);

	test('the node panel lists our nodes under their display names', async () => {
		const response = await page.request.get(`${server.url}/types/nodes.json`);
		const types: Array<{ name: string; displayName: string; icon?: unknown; iconUrl?: unknown }> =
			await response.json();
		const ours = types.filter(
			(type) => type.name.startsWith('n8n-nodes-payouts.') && !type.name.endsWith('Tool'),
		);
		expect(ours.map((type) => type.name).sort()).toEqual(
			[
				'payoutsBeneficiary',
				'payoutsIncident',
				'payoutsIncidentTrigger',
				'payoutsOAuth',
				'payoutsPaylink',
				'payoutsTransfer',
			].map((name) => `n8n-nodes-payouts.${name}`),
		);
		for (const type of ours) expect(JSON.stringify(type.iconUrl)).toMatch(/\.svg/);

		// n8n adds "Custom API Call" (the HTTP Request node with the credential's bearer token) to
		// nodes of the payout API; never to Payouts OAuth, whose endpoint takes no bearer token.
		const operations = (name: string) =>
			(
				types.find((type) => type.name === `n8n-nodes-payouts.${name}`) as unknown as {
					properties: Array<{ name: string; options?: Array<{ name: string }> }>;
				}
			).properties
				.filter((property) => property.name === 'operation')
				.flatMap((property) => (property.options ?? []).map((option) => option.name));
		expect(operations('payoutsOAuth')).toEqual(['Generate Token']);
		expect(operations('payoutsTransfer')).toContain('Custom API Call');
	});

	// ---- Typing into the fields as a user does ----

	/**
	 * Before a test that looks at what the sandbox received: nothing an earlier test started is
	 * still running (an execution a timed-out test left is stopped and waited for), then the
	 * sandbox's seeded state.
	 */
	async function resetSandbox() {
		const stopped = await n8n.stopRunningExecutions(rest);
		if (stopped.length)
			process.stderr.write(
				`[browser test] stopped ${stopped.length} execution(s) an earlier test left running: ${JSON.stringify(stopped)}\n`,
			);
		sandbox.reset();
	}

	async function openNode(workflowId: string, nodeName: string) {
		await page.goto(`${server.url}/workflow/${workflowId}`);
		const onCanvas = page.locator(`[data-test-id="canvas-node"][data-node-name="${nodeName}"]`);
		await onCanvas.waitFor({ timeout: 60000 });
		await onCanvas.dblclick();
		const ndv = page.locator('[data-test-id="ndv"]');
		await ndv.locator('[data-test-id="node-parameters"]').waitFor();
		return ndv;
	}
	const fieldOf = (ndv: ReturnType<Page['locator']>, name: string) =>
		ndv.locator(`[data-test-id="parameter-input-${name}"]`).locator('input, textarea').first();

	/** Types into an empty field key by key, then leaves it (where a number field used to clamp and round). */
	async function typeInto(ndv: ReturnType<Page['locator']>, name: string, text: string) {
		const field = fieldOf(ndv, name);
		await field.click();
		await field.press('Control+a');
		await field.press('Backspace');
		await field.pressSequentially(text, { delay: 40 });
		await field.press('Tab');
		await page.waitForTimeout(300);
		expect(await fieldOf(ndv, name).inputValue()).toBe(text);
	}
	const executeStep = (ndv: ReturnType<Page['locator']>) =>
		ndv.locator('[data-test-id="node-execute-button"]').first().click();
	/** Waits for a locator; on a timeout, keeps a screenshot and what the panel and the sandbox show. */
	async function waitOrReport(locator: ReturnType<Page['locator']>, name: string, timeout = 60000) {
		try {
			await locator.waitFor({ timeout });
		} catch (error) {
			// For the one reading the failure, never for the docs.
			await page.screenshot({ path: path.join(RESULTS, `debug-${name}.png`) });
			const ndvText = await page
				.locator('[data-test-id="ndv"]')
				.innerText()
				.catch(() => '(no panel)');
			throw new Error(
				`${(error as Error).message}\npanel: ${ndvText.slice(0, 1500)}\nsandbox requests: ${JSON.stringify(sandbox.requests()).slice(0, 800)}`,
			);
		}
	}
	const closeNdv = async (ndv: ReturnType<Page['locator']>) => {
		await ndv.locator('[data-test-id="ndv-close-button"]').click();
		await ndv.waitFor({ state: 'hidden' });
	};

	test('typing: an empty Amount is flagged by the editor and the run is refused; nothing is sent', async () => {
		await resetSandbox();
		const ndv = await openNode('typedStandard', 'Pay');
		expect(await fieldOf(ndv, 'amount').inputValue()).toBe('');
		// The field is marked, and its warning says why.
		const issues = ndv
			.locator(
				'[data-test-id="parameter-input-amount"] [data-test-id="parameter-issues"], [data-test-id="parameter-issues"]',
			)
			.first();
		await issues.waitFor();
		await issues.hover();
		await waitOrReport(
			page.getByText('Parameter "Amount" is required.').first(),
			'empty-tooltip',
			15000,
		);
		await shoot('typing-amount-empty-flagged');
		await executeStep(ndv);
		// n8n's refusal: n8n 2.8 says "The workflow has issues and cannot be executed…",
		// 2.41 "The 'Pay' node has issues: …" (naming the node and the parameter).
		await waitOrReport(
			page
				.getByText(/The workflow has issues and cannot be executed|The 'Pay' node has issues/)
				.first(),
			'empty',
			30000,
		);
		expect(sandbox.requests()).toEqual([]);
		await closeNdv(ndv);
	});

	test('typing: 150000 stays 150000 and is refused with our message; nothing is sent', async () => {
		await resetSandbox();
		const ndv = await openNode('typedStandard', 'Pay');
		await typeInto(ndv, 'amount', '150000');
		await executeStep(ndv);
		await ndv.getByText("'Amount' must be at most 100000.00").first().waitFor({ timeout: 60000 });
		await shoot('typing-amount-150000-refused');
		expect(sandbox.requests()).toEqual([]);
		expect(sandbox.state().transfers).toEqual([]);
		await closeNdv(ndv);
	});

	test('typing: 1500.50 stays 1500.50 and arrives as 1500.50', async () => {
		await resetSandbox();
		const ndv = await openNode('typedStandard', 'Pay');
		await typeInto(ndv, 'amount', '1500.50');
		await executeStep(ndv);
		await waitOrReport(ndv.getByText('Transfer completed successfully').first(), 'paid');
		await shoot('typing-amount-1500.50-paid');
		const requests = sandbox.requests();
		expect(requests).toHaveLength(1);
		expect(requests[0].body).toMatchObject({ amount: 1500.5, transferId: 'typed_browser_1' });
		const transfers = sandbox.state().transfers as Array<{ amount: number; transferId: string }>;
		expect(
			transfers.map(({ amount, transferId }) => [Math.round(amount * 100), transferId]),
		).toEqual([[150050, 'typed_browser_1']]);
		await closeNdv(ndv);
	});

	test("typing: an expression for Amount ({{ $json.amount }}) pays the previous node's 2500.75 exactly", async () => {
		await resetSandbox();
		const ndv = await openNode('typedExpression', 'Pay');
		// As pasted into the empty field: the editor turns text with {{ }} into an expression.
		await fieldOf(ndv, 'amount').fill('{{ $json.amount }}');
		await ndv.locator('[data-test-id="node-parameters"]').click({ position: { x: 5, y: 5 } });
		await executeStep(ndv);
		await waitOrReport(ndv.getByText('Transfer completed successfully').first(), 'expression');
		await shoot('typing-amount-expression-paid');
		expect(sandbox.requests().map((request) => request.body)).toEqual([
			expect.objectContaining({ amount: 2500.75, transferId: 'typed_browser_2' }),
		]);
		await closeNdv(ndv);
	});

	test('typing: Token Expiry is plain text, shown only for Network B', async () => {
		let ndv = await openNode('cardNetworkB', 'Pay');
		const expiry = fieldOf(ndv, 'tokenExpiry');
		expect(await expiry.getAttribute('type')).not.toBe('password');
		expect(await expiry.inputValue()).toBe('2030-12');
		await typeInto(ndv, 'tokenExpiry', '2031-01');
		await shoot('typing-card-token-expiry');
		await closeNdv(ndv);

		ndv = await openNode('cardNetworkA', 'Pay');
		await ndv.locator('[data-test-id="parameter-input-networkType"]').waitFor();
		expect(await ndv.locator('[data-test-id="parameter-input-tokenExpiry"]').count()).toBe(0);
		await closeNdv(ndv);
	});

	test('typing: Options → Incident Guard added and its settings left empty guards with the defaults: the row at a bank with an open incident on its mode is held, nothing is sent', async () => {
		await resetSandbox();
		const ndv = await openNode('guardEmpty', 'Pay');
		// Options is the panel's last collection (after Additional Fields): its "Add option" picker.
		await ndv
			.locator('[data-test-id="node-parameters"] [data-test-id="collection-parameter-add"]')
			.last()
			.click();
		await page
			.locator('[data-test-id="collection-parameter-option"]', { hasText: 'Incident Guard' })
			.first()
			.click();
		// Added as the editor adds it: its settings group not opened, nothing set.
		await waitOrReport(ndv.getByText('Add Incident Guard').first(), 'guard-added', 15000);
		await closeNdv(ndv);
		await page.keyboard.press('Control+s');
		await page.waitForTimeout(1500);
		// What n8n saved: the option, present and empty.
		const saved = (await rest('GET', '/workflows/guardEmpty')) as {
			nodes: Array<{ name: string; parameters: { options?: Record<string, unknown> } }>;
		};
		expect(saved.nodes.find((node) => node.name === 'Pay')?.parameters.options).toEqual({
			incidentGuard: {},
		});
		const again = await openNode('guardEmpty', 'Pay');
		await executeStep(again);
		await waitOrReport(again.getByText('HELD').first(), 'guard-held');
		await shoot('typing-incident-guard-empty-held');
		// The incidents were listed (the guard ran), and no transfer was sent.
		expect(sandbox.requests().some((request) => request.path === '/payout/v1/incidents')).toBe(
			true,
		);
		expect(
			sandbox.requests().filter((request) => request.path === '/payout/v1.2/requestTransfer'),
		).toEqual([]);
		expect(sandbox.state().transfers).toEqual([]);
		await closeNdv(again);
	});

	test("typing: the trigger's Fetch Test Event with Trigger On 'New Incident' gives an open incident, and its subtitle reads New Incident", async () => {
		await resetSandbox();
		sandbox.addIncident({ mode: 'UPI', entityCode: 'OPENBANK1', entityName: 'Open Bank' });
		const later = sandbox.addIncident({
			mode: 'NEFT',
			entityCode: 'DONEBANK1',
			entityName: 'Done Bank',
		});
		sandbox.resolveIncident(later.id);
		await page.goto(`${server.url}/workflow/triggerNew`);
		const onCanvas = page.locator(
			'[data-test-id="canvas-node"][data-node-name="Incident Trigger"]',
		);
		await onCanvas.waitFor({ timeout: 60000 });
		expect(await onCanvas.innerText()).toContain('New Incident');
		await onCanvas.dblclick();
		const ndv = page.locator('[data-test-id="ndv"]');
		await ndv.locator('[data-test-id="node-parameters"]').waitFor();
		await executeStep(ndv);
		await waitOrReport(ndv.getByText('OPENBANK1').first(), 'trigger');
		expect(await ndv.innerText()).not.toContain('DONEBANK1');
		await shoot('typing-trigger-fetch-test-event');
		await closeNdv(ndv);
	});

	// ---- A new user's first payout: import, credential, Dry Run, run, read the routing ----

	test('first payout: import the CSV example, set the credential, Dry Run sends nothing, the run routes every row by status on the canvas', async () => {
		await resetSandbox();
		const step = (name: string) => shoot(`first-payout-${name}`);
		// 1. Import the example file into a new workflow, as Workflows → Import from File does.
		await page.goto(`${server.url}/workflow/new`);
		await page
			.locator('[data-test-id="workflow-import-input"]')
			.setInputFiles(path.join(ROOT, 'examples', 'csv-batch-payouts.json'));
		const payNode = page.locator('[data-test-id="canvas-node"][data-node-name="Pay Beneficiary"]');
		await payNode.waitFor({ timeout: 60000 });
		await page.locator('[data-test-id="zoom-to-fit"]').click();
		// Saved, as a user saves it (a credential made from an unsaved workflow has no project yet).
		await page.keyboard.press('Control+s');
		await page.waitForURL(/\/workflow\/(?!new)[^/?]+/, { timeout: 30000 });
		await step('1-imported');

		// 2. The credential: a new one, with the account's Base URL and Access Token; Save runs its Test.
		await payNode.dblclick();
		const ndv = page.locator('[data-test-id="ndv"]');
		await ndv.locator('[data-test-id="node-parameters"]').waitFor();
		await ndv.locator('[data-test-id="node-credentials-select"]').click();
		await page.locator('[data-test-id="node-credentials-select-item-new"]').click();
		const dialog = page.locator('[data-test-id="credential-edit-dialog"]');
		await dialog.waitFor();
		await dialog.locator('[data-test-id="parameter-input-baseUrl"] input').fill(sandbox.baseUrl);
		await dialog
			.locator('[data-test-id="parameter-input-accessToken"] input')
			.fill(seed.credentials.accessToken);
		await step('2-credential');
		// The dialog's header (with Save) is drawn outside the element that carries the dialog's test id.
		// Save runs the credential's Test: the dialog closes when it passes (a refusal keeps it open
		// with the service's words: the credential test below reads them).
		await page.locator('[data-test-id="credential-save-button"]').click();
		await dialog.waitFor({ state: 'hidden', timeout: 60000 });
		// n8n puts the saved credential into the select a moment after the dialog closes (until
		// then it shows the one it chose when the panel opened): a loaded machine shows the gap.
		const credentialSelect = ndv.locator('[data-test-id="node-credentials-select"] input');
		for (
			let tries = 0;
			tries < 50 && (await credentialSelect.inputValue()) !== 'Payouts account';
			tries++
		)
			await page.waitForTimeout(200);
		expect(await credentialSelect.inputValue()).toBe('Payouts account');

		// 3. Dry Run: every row checked, the request shown, nothing sent.
		// Options is the panel's last collection (after Additional Fields): its "Add option" picker.
		await ndv
			.locator('[data-test-id="node-parameters"] [data-test-id="collection-parameter-add"]')
			.last()
			.click();
		await page
			.locator('[data-test-id="collection-parameter-option"]', { hasText: 'Dry Run' })
			.first()
			.click();
		const dryRunSwitch = ndv
			.locator('[data-test-id="parameter-input-dryRun"]')
			.locator('.el-switch, [role="switch"]')
			.first();
		await dryRunSwitch.click();
		await closeNdv(ndv);
		await page.locator('[data-test-id="execute-workflow-button"]').click();
		await page.getByText('Workflow executed successfully').waitFor({ timeout: 60000 });
		expect(sandbox.requests().filter((request) => request.method === 'POST')).toEqual([]);
		await payNode.dblclick();
		await waitOrReport(ndv.getByText('would send').first(), 'first-payout-dry-run');
		await step('3-dry-run');

		// 4. The real run: Dry Run off, Execute workflow; the Switch routes each row by its status.
		await dryRunSwitch.click();
		await closeNdv(ndv);
		await page.locator('[data-test-id="execute-workflow-button"]').click();
		await page.getByText('Workflow executed successfully').waitFor({ timeout: 60000 });
		await page.addStyleTag({ content: '.el-notification { display: none !important; }' });
		// The canvas draws each edge's item count once the run's data has reached the editor.
		await page.waitForFunction(
			() =>
				Array.from(
					document.querySelectorAll(
						'[data-test-id="edge-label"][data-source-node-name="Route by Status"]',
					),
				).filter((label) => /\d+ items?/.test(label.textContent ?? '')).length >= 4,
			undefined,
			{ timeout: 60000 },
		);
		await step('4-routed');
		// The edges' item counts (drawn on the canvas; their text is read as the page holds it).
		const routed = async (target: string) =>
			(
				(await page
					.locator(
						`[data-test-id="edge-label"][data-source-node-name="Route by Status"][data-target-node-name="${target}"]`,
					)
					.textContent()) ?? ''
			).trim();
		expect({
			paid: await routed('Paid'),
			pending: await routed('Pending'),
			check: await routed('Needs a Check'),
			notSent: await routed('Not Sent'),
		}).toEqual({ paid: '2 items', pending: '1 item', check: '1 item', notSent: '1 item' });
		// What the canvas says is what the service booked.
		const booked = (sandbox.state().transfers as Array<{ transferId: string }>)
			.map((transfer) => transfer.transferId)
			.sort();
		expect(booked).toEqual(expect.arrayContaining(['nov_payout_0001', 'nov_payout_0003']));
		expect(booked).not.toContain('nov_payout_0002');
	});

	test('a second import of a webhook template from a file publishes beside the first: the editor gives each import a path of its own', async () => {
		const paths: string[] = [];
		for (const file of ['event-payout.json', 'oauth-callback.json']) {
			for (const copy of [1, 2]) {
				// Workflows → Import from File, into a new workflow, saved: as a user imports a template twice.
				await page.goto(`${server.url}/workflow/new`);
				await page
					.locator('[data-test-id="workflow-import-input"]')
					.setInputFiles(path.join(ROOT, 'examples', file));
				await page.locator('[data-test-id="canvas-node"]').first().waitFor({ timeout: 60000 });
				await page.keyboard.press('Control+s');
				await page.waitForURL(/\/workflow\/(?!new)[^/?]+/, { timeout: 30000 });
				const id = /\/workflow\/([^/?]+)/.exec(page.url())?.[1] as string;
				// The editor names the new workflow's id in its URL before its save has reached n8n.
				type Saved = {
					versionId: string;
					nodes: Array<{ type: string; webhookId?: string; parameters: { path?: string } }>;
				};
				let saved: Saved | undefined;
				for (let tries = 0; tries < 60 && !saved; tries++) {
					saved = (await rest('GET', `/workflows/${id}`).catch(() => undefined)) as
						| Saved
						| undefined;
					if (!saved) await page.waitForTimeout(500);
				}
				if (!saved)
					throw new Error(`the editor's import of ${file} was not saved as workflow ${id}`);
				// Published as the editor's toggle does: a clash of webhook paths would refuse it.
				await rest('POST', `/workflows/${id}/activate`, { versionId: saved.versionId });
				for (const node of saved.nodes.filter((entry) => entry.type === 'n8n-nodes-base.webhook')) {
					expect([file, copy, node.parameters.path]).toEqual([file, copy, node.webhookId]);
					paths.push(String(node.parameters.path));
				}
			}
		}
		expect(paths).toHaveLength(6);
		expect(new Set(paths).size).toBe(6);
		for (const webhookPath of paths) expect(webhookPath).toMatch(/^[0-9a-f-]{36}$/);
	});

	test("the credential's Test: a valid token connects, a refused one fails, also when the service answers HTTP 200", async () => {
		// What the credential dialog's Test button sends, with the editor's own session.
		const testCredential = (accessToken: string) =>
			page.evaluate(
				async ({ accessToken, baseUrl }) => {
					const response = await fetch('/rest/credentials/test', {
						method: 'POST',
						headers: {
							'content-type': 'application/json',
							'browser-id': window.localStorage.getItem('n8n-browserId') ?? '',
						},
						body: JSON.stringify({
							credentials: {
								id: 'payoutsSandbox01',
								name: 'Payouts Sandbox',
								type: 'payoutsApi',
								data: { baseUrl, accessToken },
							},
						}),
					});
					return ((await response.json()) as { data: { status: string; message: string } }).data;
				},
				{ accessToken, baseUrl: sandbox.baseUrl },
			);
		expect(await testCredential(seed.credentials.accessToken)).toEqual({
			status: 'OK',
			message: 'Connection tested: the service accepted the access token',
		});
		// The service's own words, and what to do about them.
		const refused = {
			status: 'Error',
			message: expect.stringMatching(
				/^The service answered 403 "Token is not valid": The access token is unknown or expired/,
			),
		};
		expect(await testCredential(seed.tokens.expired)).toEqual(refused);
		sandbox.configure({ httpStyle: 'always200' });
		expect(await testCredential(seed.tokens.expired)).toEqual(refused);
		sandbox.configure({ httpStyle: 'mirror' });
	});
});

if (!chromiumPath) {
	test('browser test skipped: Chromium is missing and could not be installed (see the message above)', () => {
		expect(process.env.CI).toBeFalsy();
	});
}

/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code runs in Node under jest, never inside n8n (it uses Node's own modules, timers, files and the environment); these rules guard the code n8n loads (nodes/, credentials/) */
/**
 * The documentation holds together. The Docs link of every node works: n8n appends its tracking
 * query (?utm_source=...) to a codex documentation URL, which breaks an anchor (the query lands
 * after the #), so each node points at a page of its own under docs/nodes/. The README is a front
 * page and the reference lives in docs/: every link between them (relative, or this repository's
 * GitHub address) reaches an existing file and, with a #anchor, a heading of that file; and no
 * heading of the README as it was before the split (issue 18) is lost.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.join(__dirname, '..', '..');
const REPOSITORY = 'https://github.com/n8n-nodes-payouts/n8n-nodes-payouts/blob/main/';

const codexFiles = readdirSync(path.join(root, 'nodes')).flatMap((folder) =>
	readdirSync(path.join(root, 'nodes', folder))
		.filter((file) => file.endsWith('.node.json'))
		.map((file) => path.join(root, 'nodes', folder, file)),
);

/** README.md and every Markdown page under docs/, as absolute paths. */
function markdownUnder(folder: string): string[] {
	return readdirSync(folder).flatMap((name) => {
		const file = path.join(folder, name);
		if (statSync(file).isDirectory()) return markdownUnder(file);
		return name.endsWith('.md') ? [file] : [];
	});
}
const pages = [path.join(root, 'README.md'), ...markdownUnder(path.join(root, 'docs'))];
const relative = (file: string) => path.relative(root, file).split(path.sep).join('/');

/** GitHub's anchor of a Markdown heading. */
const slug = (heading: string) =>
	heading
		.toLowerCase()
		.replace(/[^\p{L}\p{N} -]/gu, '')
		.replace(/ /g, '-');

/** The page's lines outside fenced code blocks (a `#` or `[x](y)` there is code, not Markdown). */
function prose(file: string, text = readFileSync(file, 'utf8')): string[] {
	let fenced = false;
	return text
		.split('\n')
		.filter((line) => {
			if (/^\s*```/.test(line)) {
				fenced = !fenced;
				return false;
			}
			return !fenced;
		});
}

const headingsOf = (file: string) => prose(file).flatMap((line) => /^#{1,6} (.+?)\s*#*\s*$/.exec(line)?.[1] ?? []);

/** The anchors GitHub gives a page's headings: a repeated heading gets -1, -2, ... */
function anchorsOf(file: string): Set<string> {
	const seen = new Map<string, number>();
	const anchors = new Set<string>();
	for (const heading of headingsOf(file)) {
		const base = slug(heading);
		const count = seen.get(base) ?? 0;
		seen.set(base, count + 1);
		anchors.add(count === 0 ? base : `${base}-${count}`);
	}
	return anchors;
}

/** Every Markdown link and image of a page, outside code: its target as written. */
function linksOf(file: string, text?: string): string[] {
	return prose(file, text).flatMap((line) => [...line.replace(/`[^`]*`/g, '').matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1]));
}

/** What a link points at in this repository, or undefined for a link elsewhere. */
function resolve(from: string, target: string): { file: string; anchor?: string } | undefined {
	let address = target;
	if (address.startsWith(REPOSITORY)) address = path.relative(path.dirname(from), path.join(root, address.slice(REPOSITORY.length)));
	else if (/^[a-z][a-z0-9+.-]*:/i.test(address)) return undefined; // https:, mailto: ...
	const [pathPart, anchor] = address.split('#', 2);
	const file = pathPart === '' ? from : path.resolve(path.dirname(from), decodeURIComponent(pathPart));
	return { file, anchor: anchor === undefined || anchor === '' ? undefined : decodeURIComponent(anchor) };
}

/** What is wrong with a page's links: one line per broken link. */
function brokenLinks(file: string, text?: string): string[] {
	const broken: string[] = [];
	for (const target of linksOf(file, text)) {
		const link = resolve(file, target);
		if (!link) continue;
		if (!existsSync(link.file)) broken.push(`${target}: no file ${relative(link.file)}`);
		else if (link.anchor !== undefined) {
			if (!link.file.endsWith('.md')) broken.push(`${target}: an anchor into a file that is not Markdown`);
			else if (!anchorsOf(link.file).has(link.anchor)) broken.push(`${target}: ${relative(link.file)} has no heading #${link.anchor}`);
		}
	}
	return broken;
}

test('every node has a codex file', () => {
	expect(codexFiles).toHaveLength(6);
});

test.each(codexFiles.map((file) => [path.basename(file), file]))("%s: the Docs link is a page of this repository, without a '#'", (_name, file) => {
	const codex = JSON.parse(readFileSync(file, 'utf8')) as { resources: { primaryDocumentation: Array<{ url: string }> } };
	const [{ url }] = codex.resources.primaryDocumentation;
	expect(url).not.toContain('#');
	// What n8n opens: the URL with its query appended, which a plain page ignores.
	const opened = new URL(`${url}?utm_source=n8n_app&utm_medium=node_settings_modal-credential_link`);
	expect(opened.hash).toBe('');
	expect(url.startsWith(`${REPOSITORY}docs/nodes/`)).toBe(true);
	const page = path.join(root, url.slice(REPOSITORY.length));
	expect(existsSync(page)).toBe(true);
	expect(brokenLinks(page)).toEqual([]);
});

test('the pages checked are the README and every page under docs/, each with a top heading', () => {
	expect(pages.map(relative)).toEqual(expect.arrayContaining(['README.md', 'docs/safety.md', 'docs/errors.md', 'docs/sandbox.md', 'docs/running.md', 'docs/performance.md', 'docs/testing.md', 'docs/examples.md', 'docs/nodes/payouts-transfer.md']));
	for (const file of pages) expect([relative(file), prose(file).find((line) => line.trim() !== '')?.startsWith('# ')]).toEqual([relative(file), true]);
});

test.each(pages.map((file) => [relative(file), file]))('%s: every relative link reaches a file, and every #anchor a heading of it', (_name, file) => {
	expect(brokenLinks(file)).toEqual([]);
});

test('every page under docs/ is reachable from the README, directly or through other pages', () => {
	const reached = new Set<string>([path.join(root, 'README.md')]);
	const queue = [...reached];
	while (queue.length > 0) {
		const from = queue.shift() as string;
		for (const target of linksOf(from)) {
			const link = resolve(from, target);
			if (!link || !existsSync(link.file)) continue;
			const files = statSync(link.file).isDirectory() ? markdownUnder(link.file) : [link.file];
			for (const file of files.filter((name) => name.endsWith('.md') && !reached.has(name))) {
				reached.add(file);
				queue.push(file);
			}
		}
	}
	expect(pages.filter((file) => !reached.has(file)).map(relative)).toEqual([]);
});

test('the link checker finds broken links (so its silence means something)', () => {
	const readme = path.join(root, 'README.md');
	expect(resolve(readme, 'https://example.com/x')).toBeUndefined();
	expect(resolve(readme, `${REPOSITORY}docs/safety.md#safety`)).toEqual({ file: path.join(root, 'docs', 'safety.md'), anchor: 'safety' });
	expect(resolve(path.join(root, 'docs', 'nodes', 'payouts-oauth.md'), '../errors.md')).toEqual({ file: path.join(root, 'docs', 'errors.md'), anchor: undefined });
	expect(anchorsOf(path.join(root, 'docs', 'running.md')).has('queue-mode-npm-run-startqueue')).toBe(true);
	expect(slug('Incident Guard (Standard Transfer → Options → Incident Guard)')).toBe('incident-guard-standard-transfer--options--incident-guard');
	// Read as if it were docs/nodes/x.md: each of these links is broken in its own way.
	const page = [
		'[gone](../nowhere.md) [anchor](../safety.md#no-such-heading) [self](#nor-this)',
		`[absolute](${REPOSITORY}README.md#not-a-heading) ![image](../screenshots/missing.png)`,
		'`[in code](../nowhere.md)` [fine](../safety.md#safety) [elsewhere](https://example.com/#x)',
		'```', '[fenced](../nowhere.md)', '```',
	].join('\n');
	expect(brokenLinks(path.join(root, 'docs', 'nodes', 'x.md'), page)).toEqual([
		'../nowhere.md: no file docs/nowhere.md',
		'../safety.md#no-such-heading: docs/safety.md has no heading #no-such-heading',
		'#nor-this: no file docs/nodes/x.md',
		`${REPOSITORY}README.md#not-a-heading: README.md has no heading #not-a-heading`,
		'../screenshots/missing.png: no file docs/screenshots/missing.png',
	]);
});

test('the README is a front page: at most 260 lines', () => {
	expect(readFileSync(path.join(root, 'README.md'), 'utf8').trimEnd().split('\n').length).toBeLessThanOrEqual(260);
});

test('the README begins with the two quick-start commands', () => {
	const commands = readFileSync(path.join(root, 'README.md'), 'utf8').match(/```sh\n([^`]*)```/g) ?? [];
	expect(commands.slice(0, 2)).toEqual(['```sh\nnpm install && npm start\n```', '```sh\nnpm install && npm test\n```']);
});

/**
 * Every heading of the README before it became a front page (issue 18): none may be lost. Issue 26
 * put the README in n8n-nodes-starter's order; the headings it renamed are listed under their new
 * names (Quick start: Try it; What this package is: Operations; Install in n8n: Installation;
 * Nodes and parameters: the node pages; Options (every node): Options of the read nodes and the
 * transfer page's Options).
 */
const HEADINGS_BEFORE_THE_SPLIT = [
	'n8n-nodes-payouts',
	'Try it',
	'Operations',
	'Installation',
	'Credentials',
	'Payouts Transfer',
	'What each status means',
	'Before your first payout',
	'Payouts driven by events',
	'7. One payout per event (`examples/event-payout.json`)',
	'Incident Guard (Standard Transfer → Options → Incident Guard)',
	'Payouts Beneficiary',
	'Payouts Incident',
	'Payouts Paylink',
	'Payouts OAuth',
	'Options of the read nodes',
	'Options',
	'Errors and hints',
	'Safety',
	'AI agents',
	'Payouts Incident Trigger',
	'Performance',
	'Sandbox',
	'Starting it (three ways)',
	'Seeded data (`seed`, restored by every reset)',
	'Rules and behaviour',
	"The sandbox's own error responses (the document has no row for these)",
	'HTTP styles',
	'Fault injection',
	'Inspection interface',
	'Trigger table',
	'Examples',
	'1. Scheduled incident check → notification message (`examples/incident-check.json`)',
	'2. Paylink status → notification message (`examples/paylink-status.json`)',
	'3. Batch payouts from a CSV file (`examples/csv-batch-payouts.json`)',
	'4. OAuth callback (`examples/oauth-callback.json`)',
	'5. Guarded CSV batch, held rows kept (`examples/incident-guarded-batch.json`) and 6. Release held payouts when the incident is resolved (`examples/incident-release-held.json`)',
	'Running in n8n',
	'Queue mode (`npm run start:queue`)',
	'Running the package in your own queue-mode n8n',
	'Tests in real n8n',
	'Tested n8n versions',
	'CI, publishing and licence',
];

test('every heading of the README before the split is a heading of the README or of a page under docs/', () => {
	const headings = new Set(pages.flatMap(headingsOf));
	expect(HEADINGS_BEFORE_THE_SPLIT.filter((heading) => !headings.has(heading))).toEqual([]);
});

/**
 * The examples are what users copy (issue 35): every webhook that can move money authenticates its
 * caller with n8n's own Webhook authentication; every example explains itself on the canvas, and
 * docs/examples.md has a section for it with the sticky notes' words.
 */
type ExampleNode = { name: string; type: string; parameters?: Record<string, unknown>; credentials?: Record<string, unknown> };
type Example = { id: string; name: string; nodes: ExampleNode[]; file: string };
const examples: Example[] = readdirSync(path.join(root, 'examples'))
	.filter((file) => file.endsWith('.json'))
	.sort()
	.map((file) => ({ ...(JSON.parse(readFileSync(path.join(root, 'examples', file), 'utf8')) as Omit<Example, 'file'>), file }));
const examplesPage = readFileSync(path.join(root, 'docs', 'examples.md'), 'utf8');

/** Which credential each of n8n's Webhook authentications reads. */
const WEBHOOK_AUTHENTICATIONS: Record<string, string> = { headerAuth: 'httpHeaderAuth', jwtAuth: 'jwtAuth', basicAuth: 'httpBasicAuth' };
/**
 * Webhooks a user's browser calls by following a redirect: it can send no header or JWT (and Basic
 * Auth would ask every user for a password), so they have none, on purpose, and docs/examples.md
 * says why. Allowed only for a GET that answers through Respond to Webhook (never "the last node's
 * output"), in a workflow that moves no money and never answers with an access token.
 */
const BROWSER_REDIRECTS: Record<string, string> = { payoutsOAuthCallback: 'OAuth Redirect URL' };

/** What is wrong with a workflow's webhooks: one line per webhook without authentication. */
function unauthenticatedWebhooks(workflow: Pick<Example, 'id' | 'nodes'>): string[] {
	const problems: string[] = [];
	for (const node of workflow.nodes.filter((entry) => entry.type === 'n8n-nodes-base.webhook')) {
		const parameters = node.parameters ?? {};
		const authentication = String(parameters.authentication ?? 'none');
		const credential = WEBHOOK_AUTHENTICATIONS[authentication];
		if (credential) {
			if (!node.credentials?.[credential]) problems.push(`${workflow.id}/${node.name}: ${authentication} without a '${credential}' credential`);
			continue;
		}
		if (BROWSER_REDIRECTS[workflow.id] !== node.name) {
			problems.push(`${workflow.id}/${node.name}: no authentication (${authentication})`);
			continue;
		}
		const answers = workflow.nodes.filter((entry) => entry.type === 'n8n-nodes-base.respondToWebhook');
		if (authentication !== 'none' || (parameters.httpMethod ?? 'GET') !== 'GET' || parameters.responseMode !== 'responseNode' || answers.length === 0) problems.push(`${workflow.id}/${node.name}: a browser redirect must be a GET answered by Respond to Webhook, with authentication 'none' said outright`);
		if (workflow.nodes.some((entry) => entry.type === 'n8n-nodes-payouts.payoutsTransfer')) problems.push(`${workflow.id}/${node.name}: a browser redirect without authentication in a workflow that moves money`);
		if (answers.some((entry) => /access_token/.test(JSON.stringify(entry.parameters)))) problems.push(`${workflow.id}/${node.name}: answers the browser with the access token`);
	}
	return problems;
}

/** The part of docs/examples.md under the heading that names `file`, to the next heading of its level. */
function sectionOf(file: string): string {
	const lines = prose(path.join(root, 'docs', 'examples.md'), examplesPage);
	const start = lines.findIndex((line) => /^## /.test(line) && line.includes(`examples/${file}`));
	if (start < 0) return '';
	const end = lines.findIndex((line, index) => index > start && /^## /.test(line));
	return lines.slice(start, end < 0 ? undefined : end).join('\n');
}

/** The blockquotes of a text, each without its "> ". */
function blockquotes(text: string): string[] {
	const quotes: string[] = [];
	let current: string[] | undefined;
	for (const line of text.split('\n')) {
		if (/^>/.test(line)) (current ??= []).push(line.replace(/^> ?/, ''));
		else if (current) {
			quotes.push(current.join('\n'));
			current = undefined;
		}
	}
	if (current) quotes.push(current.join('\n'));
	return quotes;
}

/** A sticky note's words as docs/examples.md quotes them: its "## Title" line in bold, then a blank line. */
const quotedSticky = (content: string) => content.replace(/^## (.+)\n/, '**$1**\n\n');

test('the examples checked are every file under examples/', () => {
	expect(examples.map((example) => example.file)).toEqual(expect.arrayContaining(['event-payout.json', 'oauth-callback.json', 'reconcile-dashboard.json']));
	expect(examples.length).toBe(readdirSync(path.join(root, 'examples')).length);
});

test("no example's webhook lacks authentication: n8n's Header Auth, JWT or Basic Auth with its credential, or a browser redirect that moves no money and never answers with the token", () => {
	expect(examples.flatMap(unauthenticatedWebhooks)).toEqual([]);
	// Every webhook that starts a payout has Header Auth or JWT.
	for (const example of examples.filter((entry) => entry.nodes.some((node) => node.type === 'n8n-nodes-payouts.payoutsTransfer'))) {
		for (const webhook of example.nodes.filter((node) => node.type === 'n8n-nodes-base.webhook')) expect([example.id, webhook.parameters?.authentication]).toEqual([example.id, expect.stringMatching(/^(headerAuth|jwtAuth)$/)]);
	}
});

test('the webhook check finds what it is for (so its silence means something)', () => {
	const hook = (parameters: Record<string, unknown>, credentials?: Record<string, unknown>): ExampleNode => ({ name: 'Hook', type: 'n8n-nodes-base.webhook', parameters, credentials });
	const pay: ExampleNode = { name: 'Pay', type: 'n8n-nodes-payouts.payoutsTransfer' };
	const answer = (body: string): ExampleNode => ({ name: 'Answer', type: 'n8n-nodes-base.respondToWebhook', parameters: { responseBody: body } });
	expect(unauthenticatedWebhooks({ id: 'x', nodes: [hook({ httpMethod: 'POST' }), pay] })).toEqual(['x/Hook: no authentication (none)']);
	expect(unauthenticatedWebhooks({ id: 'x', nodes: [hook({ authentication: 'headerAuth' })] })).toEqual(["x/Hook: headerAuth without a 'httpHeaderAuth' credential"]);
	expect(unauthenticatedWebhooks({ id: 'x', nodes: [hook({ authentication: 'jwtAuth' }, { jwtAuth: { id: '1' } })] })).toEqual([]);
	const redirect = { ...hook({ authentication: 'none', responseMode: 'responseNode' }), name: 'OAuth Redirect URL' };
	expect(unauthenticatedWebhooks({ id: 'payoutsOAuthCallback', nodes: [redirect, answer('={{ $json.message }}')] })).toEqual([]);
	expect(unauthenticatedWebhooks({ id: 'payoutsOAuthCallback', nodes: [redirect, answer('={{ $json.access_token }}'), pay] })).toEqual([
		'payoutsOAuthCallback/OAuth Redirect URL: a browser redirect without authentication in a workflow that moves money',
		'payoutsOAuthCallback/OAuth Redirect URL: answers the browser with the access token',
	]);
	expect(unauthenticatedWebhooks({ id: 'payoutsOAuthCallback', nodes: [{ ...redirect, parameters: { responseMode: 'lastNode' } }] })).toEqual([
		"payoutsOAuthCallback/OAuth Redirect URL: a browser redirect must be a GET answered by Respond to Webhook, with authentication 'none' said outright",
	]);
});

test.each(examples.map((example) => [example.file, example] as const))('%s: sticky notes on the canvas, and a section of docs/examples.md that quotes them', (file, example) => {
	const stickies = example.nodes.filter((node) => node.type === 'n8n-nodes-base.stickyNote').map((node) => String(node.parameters?.content));
	expect(stickies.length).toBeGreaterThanOrEqual(2);
	for (const content of stickies) expect(content).toMatch(/^## .+\n/);
	const section = sectionOf(file);
	expect(section).not.toBe('');
	const quoted = blockquotes(section);
	expect(stickies.map(quotedSticky).filter((words) => !quoted.includes(words))).toEqual([]);
});

test("the webhook examples' key, as npm start creates it, is the one docs/examples.md names as a demo to change", () => {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { EVENT_SENDER } = require('../../scripts/n8n.js') as { EVENT_SENDER: { id: string; name: string; header: string; value: string } };
	for (const words of [EVENT_SENDER.name, EVENT_SENDER.header, EVENT_SENDER.value]) expect(examplesPage).toContain(words);
	const event = examples.find((example) => example.id === 'payoutsEventPayout');
	expect(event?.nodes.find((node) => node.type === 'n8n-nodes-base.webhook')?.credentials).toEqual({ httpHeaderAuth: { id: EVENT_SENDER.id, name: EVENT_SENDER.name } });
});

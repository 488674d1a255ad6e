/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code runs in Node under jest, never inside n8n (it uses Node's own modules, timers, files and the environment); these rules guard the code n8n loads (nodes/, credentials/) */
/**
 * The documentation holds together. The Docs link of every node works: n8n appends its tracking
 * query (?utm_source=...) to a codex documentation URL, which breaks an anchor (the query lands
 * after the #), so each node points at a page of its own under docs/nodes/. The README is a front
 * page and the reference lives in docs/: every link between them (relative, or this repository's
 * GitHub address) reaches an existing file and, with a #anchor, a heading of that file; and no
 * heading of the README as it was before the split is lost.
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
	return text.split('\n').filter((line) => {
		if (/^\s*```/.test(line)) {
			fenced = !fenced;
			return false;
		}
		return !fenced;
	});
}

const headingsOf = (file: string) =>
	prose(file).flatMap((line) => /^#{1,6} (.+?)\s*#*\s*$/.exec(line)?.[1] ?? []);

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
	return prose(file, text).flatMap((line) =>
		[...line.replace(/`[^`]*`/g, '').matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map(
			(match) => match[1],
		),
	);
}

/** What a link points at in this repository, or undefined for a link elsewhere. */
function resolve(from: string, target: string): { file: string; anchor?: string } | undefined {
	let address = target;
	if (address.startsWith(REPOSITORY))
		address = path.relative(path.dirname(from), path.join(root, address.slice(REPOSITORY.length)));
	else if (/^[a-z][a-z0-9+.-]*:/i.test(address)) return undefined; // https:, mailto: ...
	const [pathPart, anchor] = address.split('#', 2);
	const file =
		pathPart === '' ? from : path.resolve(path.dirname(from), decodeURIComponent(pathPart));
	return {
		file,
		anchor: anchor === undefined || anchor === '' ? undefined : decodeURIComponent(anchor),
	};
}

/** What is wrong with a page's links: one line per broken link. */
function brokenLinks(file: string, text?: string): string[] {
	const broken: string[] = [];
	for (const target of linksOf(file, text)) {
		const link = resolve(file, target);
		if (!link) continue;
		if (!existsSync(link.file)) broken.push(`${target}: no file ${relative(link.file)}`);
		else if (link.anchor !== undefined) {
			if (!link.file.endsWith('.md'))
				broken.push(`${target}: an anchor into a file that is not Markdown`);
			else if (!anchorsOf(link.file).has(link.anchor))
				broken.push(`${target}: ${relative(link.file)} has no heading #${link.anchor}`);
		}
	}
	return broken;
}

test('every node has a codex file', () => {
	expect(codexFiles).toHaveLength(6);
});

test.each(codexFiles.map((file) => [path.basename(file), file]))(
	"%s: the Docs link is a page of this repository, without a '#'",
	(_name, file) => {
		const codex = JSON.parse(readFileSync(file, 'utf8')) as {
			resources: { primaryDocumentation: Array<{ url: string }> };
		};
		const [{ url }] = codex.resources.primaryDocumentation;
		expect(url).not.toContain('#');
		// What n8n opens: the URL with its query appended, which a plain page ignores.
		const opened = new URL(
			`${url}?utm_source=n8n_app&utm_medium=node_settings_modal-credential_link`,
		);
		expect(opened.hash).toBe('');
		expect(url.startsWith(`${REPOSITORY}docs/nodes/`)).toBe(true);
		const page = path.join(root, url.slice(REPOSITORY.length));
		expect(existsSync(page)).toBe(true);
		expect(brokenLinks(page)).toEqual([]);
	},
);

test('the pages checked are the README and every page under docs/, each with a top heading', () => {
	expect(pages.map(relative)).toEqual(
		expect.arrayContaining([
			'README.md',
			'docs/safety.md',
			'docs/errors.md',
			'docs/sandbox.md',
			'docs/running.md',
			'docs/performance.md',
			'docs/testing.md',
			'docs/examples.md',
			'docs/nodes/payouts-transfer.md',
		]),
	);
	for (const file of pages)
		expect([
			relative(file),
			prose(file)
				.find((line) => line.trim() !== '')
				?.startsWith('# '),
		]).toEqual([relative(file), true]);
});

test.each(pages.map((file) => [relative(file), file]))(
	'%s: every relative link reaches a file, and every #anchor a heading of it',
	(_name, file) => {
		expect(brokenLinks(file)).toEqual([]);
	},
);

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
	expect(resolve(readme, `${REPOSITORY}docs/safety.md#safety`)).toEqual({
		file: path.join(root, 'docs', 'safety.md'),
		anchor: 'safety',
	});
	expect(resolve(path.join(root, 'docs', 'nodes', 'payouts-oauth.md'), '../errors.md')).toEqual({
		file: path.join(root, 'docs', 'errors.md'),
		anchor: undefined,
	});
	expect(
		anchorsOf(path.join(root, 'docs', 'running.md')).has('queue-mode-npm-run-startqueue'),
	).toBe(true);
	expect(slug('Incident Guard (Standard Transfer → Options → Incident Guard)')).toBe(
		'incident-guard-standard-transfer--options--incident-guard',
	);
	// Read as if it were docs/nodes/x.md: each of these links is broken in its own way.
	const page = [
		'[gone](../nowhere.md) [anchor](../safety.md#no-such-heading) [self](#nor-this)',
		`[absolute](${REPOSITORY}README.md#not-a-heading) ![image](../screenshots/missing.png)`,
		'`[in code](../nowhere.md)` [fine](../safety.md#safety) [elsewhere](https://example.com/#x)',
		'```',
		'[fenced](../nowhere.md)',
		'```',
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
	expect(
		readFileSync(path.join(root, 'README.md'), 'utf8').trimEnd().split('\n').length,
	).toBeLessThanOrEqual(260);
});

/** The shell commands of a page's code blocks, in order, each block's lines without their indentation. */
function shellBlocks(text: string): string[] {
	return [...text.matchAll(/^( *)```sh\n([\s\S]*?)^ *```/gm)].map((match) =>
		match[2]
			.split('\n')
			.map((line) => line.trim())
			.filter(Boolean)
			.join('\n'),
	);
}

test("the README opens with a newcomer's first hour: the clone, npm install && npm start, and npm install && npm test, near the top", () => {
	const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
	const { url } = (
		JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
			repository: { url: string };
		}
	).repository;
	expect(shellBlocks(readme).slice(0, 3)).toEqual([
		`git clone ${url} && cd n8n-nodes-payouts`,
		'npm install && npm start',
		'npm install && npm test',
	]);
	const lines = readme.split('\n');
	expect(lines.findIndex((line) => line.trim() === 'npm install && npm test')).toBeLessThan(70);
});

/** The numbered steps of a section (a Markdown list at the start of a line, "1." to "n."). */
const stepsOf = (section: string) => section.split('\n').filter((line) => /^\d+\. /.test(line));
/** The part of a page under a "## " heading, to the next one. */
function sectionUnder(text: string, heading: string): string {
	const start = text.indexOf(`\n## ${heading}\n`);
	if (start < 0) return '';
	const end = text.indexOf('\n## ', start + 1);
	return text.slice(start, end < 0 ? undefined : end);
}

test("the README's first payout is at most 6 steps on one page, with the browser walk's screenshots", () => {
	const tryIt = sectionUnder(readFileSync(path.join(root, 'README.md'), 'utf8'), 'Try it');
	const steps = stepsOf(tryIt);
	expect(steps.length).toBeGreaterThanOrEqual(4);
	expect(steps.length).toBeLessThanOrEqual(6);
	expect(steps.map((step) => /^(\d+)\./.exec(step)?.[1])).toEqual(
		steps.map((_, index) => String(index + 1)),
	);
	// The browser test's "first payout" walks these steps and names its screenshots first-payout-<step>.
	const walk = readFileSync(path.join(root, 'test', 'browser', 'editor.test.ts'), 'utf8');
	const shot = [...walk.matchAll(/await step\('([^']+)'\)/g)].map(
		(match) => `docs/screenshots/first-payout-${match[1]}.png`,
	);
	expect(shot.length).toBeGreaterThan(0);
	expect(shot.filter((file) => !tryIt.includes(`(${file})`))).toEqual([]);
	expect(tryIt).toContain('examples/csv-batch-payouts.json');
});

/**
 * Every heading of the README before it became a front page: none may be lost. The README
 * now follows n8n-nodes-starter's order; the headings renamed for it are listed under their new
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
	// Renamed: users have the service's documentation, not "the document".
	"The sandbox's own error responses (the service's documentation has no row for these)",
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
 * The examples are what users copy: every webhook that can move money authenticates its
 * caller with n8n's own Webhook authentication; every example explains itself on the canvas, and
 * docs/examples.md has a section for it with the sticky notes' words.
 */
type ExampleNode = {
	name: string;
	type: string;
	parameters?: Record<string, unknown>;
	credentials?: Record<string, unknown>;
};
type Example = { id: string; name: string; nodes: ExampleNode[]; file: string };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const harness = require('../../harness') as {
	EXAMPLE_IDS: Record<string, string>;
	EVENT_SIGNING: { name: string; secret: string };
	APP_SIGNING: { name: string; secret: string };
	signingCredential: (which: unknown) => {
		name: string;
		type: string;
		data: Record<string, string>;
	};
};
/** The example files as shipped (they carry no id), each with the id the harness gives it. */
const shipped = readdirSync(path.join(root, 'examples'))
	.filter((file) => file.endsWith('.json'))
	.sort()
	.map((file) => ({
		file,
		json: JSON.parse(readFileSync(path.join(root, 'examples', file), 'utf8')) as Record<
			string,
			unknown
		> & { nodes: ExampleNode[] },
	}));
const examples: Example[] = shipped.map(({ file, json }) => ({
	...(json as unknown as Omit<Example, 'file' | 'id'>),
	id: harness.EXAMPLE_IDS[file],
	file,
}));
const examplesPage = readFileSync(path.join(root, 'docs', 'examples.md'), 'utf8');

/** Which credential each of n8n's Webhook authentications reads. */
const WEBHOOK_AUTHENTICATIONS: Record<string, string> = {
	headerAuth: 'httpHeaderAuth',
	jwtAuth: 'jwtAuth',
	basicAuth: 'httpBasicAuth',
};
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
			if (!node.credentials?.[credential])
				problems.push(
					`${workflow.id}/${node.name}: ${authentication} without a '${credential}' credential`,
				);
			continue;
		}
		if (BROWSER_REDIRECTS[workflow.id] !== node.name) {
			problems.push(`${workflow.id}/${node.name}: no authentication (${authentication})`);
			continue;
		}
		const answers = workflow.nodes.filter(
			(entry) => entry.type === 'n8n-nodes-base.respondToWebhook',
		);
		if (
			authentication !== 'none' ||
			(parameters.httpMethod ?? 'GET') !== 'GET' ||
			parameters.responseMode !== 'responseNode' ||
			answers.length === 0
		)
			problems.push(
				`${workflow.id}/${node.name}: a browser redirect must be a GET answered by Respond to Webhook, with authentication 'none' said outright`,
			);
		if (workflow.nodes.some((entry) => entry.type === 'n8n-nodes-payouts.payoutsTransfer'))
			problems.push(
				`${workflow.id}/${node.name}: a browser redirect without authentication in a workflow that moves money`,
			);
		if (answers.some((entry) => /access_token/.test(JSON.stringify(entry.parameters))))
			problems.push(`${workflow.id}/${node.name}: answers the browser with the access token`);
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
	expect(examples.map((example) => example.file)).toEqual(
		expect.arrayContaining([
			'event-payout.json',
			'oauth-callback.json',
			'reconcile-dashboard.json',
		]),
	);
	// Besides the workflows, examples/ holds only the claims table of the queue-mode template and the sender's script.
	expect(
		readdirSync(path.join(root, 'examples'))
			.filter((file) => !file.endsWith('.json'))
			.sort(),
	).toEqual(['queue-claims.sql', 'sign-event.js']);
});

test('the examples import into any n8n: no workflow id, no credential id (n8n finds each credential by its name); the harness gives each an id of its own', () => {
	for (const { file, json } of shipped) {
		expect([file, 'id' in json, 'active' in json]).toEqual([file, false, false]);
		for (const node of json.nodes)
			for (const reference of Object.values(node.credentials ?? {}))
				expect([file, node.name, reference]).toEqual([
					file,
					node.name,
					{ id: null, name: expect.any(String) },
				]);
	}
	expect(Object.keys(harness.EXAMPLE_IDS).sort()).toEqual(shipped.map(({ file }) => file));
	expect(new Set(Object.values(harness.EXAMPLE_IDS)).size).toBe(shipped.length);
});

test('the examples leave each webhook its own path on import: none carries a path or a webhook id (the editor gives each import a fresh one); the harness gives each a readable one', () => {
	const webhooks = shipped.flatMap(({ file, json }) =>
		json.nodes
			.filter((node) => node.type === 'n8n-nodes-base.webhook')
			.map((node) => ({ file, node: node as ExampleNode & { webhookId?: string } })),
	);
	expect(webhooks.length).toBeGreaterThanOrEqual(4);
	for (const { file, node } of webhooks)
		expect([file, node.name, node.parameters?.path, node.webhookId]).toEqual([
			file,
			node.name,
			'',
			undefined,
		]);
	// npm start and the tests import with n8n's CLI, which keeps the file as it is: the harness gives the paths the docs use.
	const paths = webhooks.map(
		({ file, node }) =>
			(harness as unknown as { EXAMPLE_WEBHOOK_PATHS: Record<string, Record<string, string>> })
				.EXAMPLE_WEBHOOK_PATHS[file]?.[node.name],
	);
	expect(paths.every((entry) => typeof entry === 'string')).toBe(true);
	expect(new Set(paths).size).toBe(paths.length);
	for (const entry of paths) expect(examplesPage).toContain(`/webhook/${entry}`);
});

test("no example's webhook lacks authentication: n8n's Header Auth, JWT or Basic Auth with its credential, or a browser redirect that moves no money and never answers with the token", () => {
	expect(examples.flatMap(unauthenticatedWebhooks)).toEqual([]);
	// Every webhook that starts a payout takes signed events only: n8n's JWT Auth, and no way to the payouts node but through the check of the body's digest and the signature's age.
	for (const example of examples.filter((entry) =>
		entry.nodes.some((node) => node.type === 'n8n-nodes-payouts.payoutsTransfer'),
	)) {
		for (const webhook of example.nodes.filter((node) => node.type === 'n8n-nodes-base.webhook'))
			expect([example.id, webhook.parameters?.authentication]).toEqual([example.id, 'jwtAuth']);
		expect([
			example.id,
			unsignedWayToPay(example as Example & { connections: Connections }),
		]).toEqual([example.id, []]);
	}
});

type Connections = Record<string, { main?: Array<Array<{ node: string }> | null> }>;
/** The signature check: an IF whose condition compares the token's body digest, its audience (this webhook) and its age. */
const isSignatureCheck = (node: ExampleNode | undefined) =>
	node?.type === 'n8n-nodes-base.if' &&
	/jwtPayload\?\.body_sha256 === \$json\.bodySha256/.test(JSON.stringify(node.parameters)) &&
	/jwtPayload\?\.aud === String\(\$json\.webhookUrl\)/.test(JSON.stringify(node.parameters)) &&
	/jwtPayload\.iat >= \$now\.toSeconds\(\) - 300/.test(JSON.stringify(node.parameters));
/** The payouts nodes a webhook reaches without passing a signature check's true output (after the raw body's digest). */
function unsignedWayToPay(
	workflow: Pick<Example, 'nodes'> & { connections: Connections },
): string[] {
	const byName = new Map(workflow.nodes.map((node) => [node.name, node]));
	const reached = new Set<string>();
	const queue = workflow.nodes
		.filter((node) => node.type === 'n8n-nodes-base.webhook')
		.map((node) => node.name);
	let digested = false;
	while (queue.length > 0) {
		const name = queue.shift() as string;
		if (reached.has(name)) continue;
		reached.add(name);
		const node = byName.get(name);
		if (
			node?.type === 'n8n-nodes-base.crypto' &&
			node.parameters?.action === 'hash' &&
			node.parameters?.binaryData === true
		)
			digested = true;
		const outputs = workflow.connections[name]?.main ?? [];
		// A signature check after the body's digest lets through only its true output (0).
		for (const [index, targets] of outputs.entries())
			if (!(isSignatureCheck(node) && digested && index === 0))
				for (const target of targets ?? []) queue.push(target.node);
	}
	return [...reached].filter(
		(name) => byName.get(name)?.type === 'n8n-nodes-payouts.payoutsTransfer',
	);
}

test('the signed-events check finds a way to pay around the signature (so its silence means something)', () => {
	const event = examples.find((example) => example.id === 'payoutsEventPayout') as Example & {
		connections: Connections;
	};
	expect(unsignedWayToPay(event)).toEqual([]);
	// The false branch wired to the payout, or the check removed, or its audience left out: a way to pay unsigned.
	const check = 'Signed for This Webhook, Just Now?';
	const connections = {
		...event.connections,
		[check]: { main: [[{ node: 'Limits' }], [{ node: 'Pay Payee' }]] },
	};
	expect(unsignedWayToPay({ ...event, connections })).toEqual(['Pay Payee']);
	const changed = (parameters: (given: Record<string, unknown>) => Record<string, unknown>) => ({
		...event,
		nodes: event.nodes.map((node) =>
			node.name === check ? { ...node, parameters: parameters(node.parameters ?? {}) } : node,
		),
	});
	expect(unsignedWayToPay(changed(() => ({})))).toEqual(['Pay Payee']);
	const withoutAudience = changed((given) =>
		JSON.parse(JSON.stringify(given).replace(/\$json\.jwtPayload\?\.aud === [^&]+&& /, '')),
	);
	expect(JSON.stringify(withoutAudience)).not.toContain('jwtPayload?.aud');
	expect(unsignedWayToPay(withoutAudience)).toEqual(['Pay Payee']);
});

test('the webhook check finds what it is for (so its silence means something)', () => {
	const hook = (
		parameters: Record<string, unknown>,
		credentials?: Record<string, unknown>,
	): ExampleNode => ({ name: 'Hook', type: 'n8n-nodes-base.webhook', parameters, credentials });
	const pay: ExampleNode = { name: 'Pay', type: 'n8n-nodes-payouts.payoutsTransfer' };
	const answer = (body: string): ExampleNode => ({
		name: 'Answer',
		type: 'n8n-nodes-base.respondToWebhook',
		parameters: { responseBody: body },
	});
	expect(unauthenticatedWebhooks({ id: 'x', nodes: [hook({ httpMethod: 'POST' }), pay] })).toEqual([
		'x/Hook: no authentication (none)',
	]);
	expect(
		unauthenticatedWebhooks({ id: 'x', nodes: [hook({ authentication: 'headerAuth' })] }),
	).toEqual(["x/Hook: headerAuth without a 'httpHeaderAuth' credential"]);
	expect(
		unauthenticatedWebhooks({
			id: 'x',
			nodes: [hook({ authentication: 'jwtAuth' }, { jwtAuth: { id: '1' } })],
		}),
	).toEqual([]);
	const redirect = {
		...hook({ authentication: 'none', responseMode: 'responseNode' }),
		name: 'OAuth Redirect URL',
	};
	expect(
		unauthenticatedWebhooks({
			id: 'payoutsOAuthCallback',
			nodes: [redirect, answer('={{ $json.message }}')],
		}),
	).toEqual([]);
	expect(
		unauthenticatedWebhooks({
			id: 'payoutsOAuthCallback',
			nodes: [redirect, answer('={{ $json.access_token }}'), pay],
		}),
	).toEqual([
		'payoutsOAuthCallback/OAuth Redirect URL: a browser redirect without authentication in a workflow that moves money',
		'payoutsOAuthCallback/OAuth Redirect URL: answers the browser with the access token',
	]);
	expect(
		unauthenticatedWebhooks({
			id: 'payoutsOAuthCallback',
			nodes: [{ ...redirect, parameters: { responseMode: 'lastNode' } }],
		}),
	).toEqual([
		"payoutsOAuthCallback/OAuth Redirect URL: a browser redirect must be a GET answered by Respond to Webhook, with authentication 'none' said outright",
	]);
});

test.each(examples.map((example) => [example.file, example] as const))(
	'%s: sticky notes on the canvas, and a section of docs/examples.md that quotes them',
	(file, example) => {
		const stickies = example.nodes
			.filter((node) => node.type === 'n8n-nodes-base.stickyNote')
			.map((node) => String(node.parameters?.content));
		expect(stickies.length).toBeGreaterThanOrEqual(2);
		for (const content of stickies) expect(content).toMatch(/^## .+\n/);
		const section = sectionOf(file);
		expect(section).not.toBe('');
		const quoted = blockquotes(section);
		expect(stickies.map(quotedSticky).filter((words) => !quoted.includes(words))).toEqual([]);
	},
);

test('the signing credentials, as npm start creates them, are the ones docs/examples.md names, with demo secrets to change; the event webhooks find theirs by name', () => {
	for (const signing of [harness.EVENT_SIGNING, harness.APP_SIGNING]) {
		const credential = harness.signingCredential(signing);
		expect(credential).toMatchObject({
			name: signing.name,
			type: 'jwtAuth',
			data: { keyType: 'passphrase', algorithm: 'HS256', secret: signing.secret },
		});
		for (const words of [signing.name, signing.secret]) expect(examplesPage).toContain(words);
	}
	for (const id of ['payoutsEventPayout', 'payoutsQueueClaim']) {
		const webhook = examples
			.find((example) => example.id === id)
			?.nodes.find((node) => node.type === 'n8n-nodes-base.webhook');
		expect(webhook?.credentials).toEqual({
			jwtAuth: { id: null, name: harness.EVENT_SIGNING.name },
		});
		expect(webhook?.parameters?.options).toEqual({ rawBody: true });
	}
});

/**
 * Pages for users, pages for contributors. The user pages (the README, docs/ but for
 * the contributors' internals, testing and test log, and the node pages) carry no word of the
 * node's mechanism or of this project's history: those live in docs/internals.md.
 */
const CONTRIBUTOR_PAGES = ['docs/internals.md', 'docs/testing.md', 'docs/test-log.md'];
const userPages = pages.filter((file) => !CONTRIBUTOR_PAGES.includes(relative(file)));

/** Words of the node's mechanism, of an author's files and of this project's machines: never on a user page. */
const MECHANISM_WORDS: Array<[string, RegExp]> = [
	['checkProcessedAndRecord', /checkProcessedAndRecord/],
	['marks', /\bmarks?\b/i],
	['journal', /\bjournals?\b/i],
	['lanes', /\blanes?\b/i],
	['settling window', /settling windows?/i],
	['claim', /\bclaim(s|ed|ing)?\b/i],
	['tokens of the record', /\bnonce\b|token:</i],
	['"the interface does not say"', /interface does not say/i],
	[
		'the interface document',
		/\binterface document\b|payouts-service-interface\.md|\bthe document\b/i,
	],
	['these machines', /these machines|not tested here/i],
];

/** A commit hash in prose (code spans aside): 7 to 40 hex digits with a letter and a digit. */
const COMMIT = /\b(?=[0-9a-f]{7,40}\b)(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b/;

/**
 * A claim on a user page is the user's own: the Postgres claims table of queue mode, its
 * page, template and steps, and the option that relies on it. Those words are not the node's.
 */
const USERS_CLAIM_WORDS =
	/Postgres\s+claims?|claims?\s+table|payouts\.claims|Claim\s+Held\s+by\s+an\s+Earlier\s+Step|Claim\s+the\s+Event|Won\s+the\s+Claim|Read\s+the\s+Claim|Answer\s+From\s+the\s+Claim|queue-claim[\w.#-]*|Queue\s+mode\s+claims|Payouts\s+Claims\s+Database|claims\s+in\s+doubt|`claim: held by an earlier step[^`]*`/gi;

/** The lines about the user's claims table only: its page, and the section of its template in docs/examples.md. */
function usersClaimLines(file: string, lines: string[]): Set<number> {
	if (relative(file) === 'docs/queue-claims.md') return new Set(lines.keys());
	if (relative(file) !== 'docs/examples.md') return new Set();
	const start = lines.findIndex(
		(line) => /^## /.test(line) && line.includes('examples/queue-claim-payout.json'),
	);
	const end = lines.findIndex((line, index) => index > start && /^## /.test(line));
	return new Set(start < 0 ? [] : [...lines.keys()].slice(start, end < 0 ? undefined : end));
}

/**
 * docs/errors.md's "Every message" section quotes the nodes' messages as the code writes them
 * (test/package/messages.test.ts holds it to the code): its code spans are the code's words, not
 * the page's. Blanked out there, everywhere else kept.
 */
function quotingNodeMessages(file: string, lines: string[]): string[] {
	if (relative(file) !== 'docs/errors.md') return lines;
	let inside = false;
	return lines.map((line) => {
		if (/^## /.test(line)) inside = line === '## Every message, and what to do';
		return inside ? line.replace(/`[^`]*`/g, (span) => ' '.repeat(span.length)) : line;
	});
}

/** What a page says that a user page must not: one line per word found, with its line number. */
function mechanismWords(file: string, text?: string): string[] {
	const found: string[] = [];
	const lines = quotingNodeMessages(file, prose(file, text));
	const aboutUsersClaims = usersClaimLines(file, lines);
	// The user's claim words blanked out, also where a line break falls inside them.
	const withoutUsersClaims = lines
		.join('\n')
		.replace(USERS_CLAIM_WORDS, (words) => words.replace(/[^\n]/g, ' '))
		.split('\n');
	lines.forEach((raw, index) => {
		const line = aboutUsersClaims.has(index)
			? raw.replace(/\bclaim/gi, '')
			: withoutUsersClaims[index];
		for (const [name, pattern] of MECHANISM_WORDS)
			if (pattern.test(line)) found.push(`${relative(file)}:${index + 1}: ${name}`);
		if (COMMIT.test(line.replace(/`[^`]*`/g, '').replace(/\]\([^)]*\)/g, ']')))
			found.push(`${relative(file)}:${index + 1}: a commit hash`);
	});
	return found;
}

test("the user pages are the README, docs/ but for the contributors' pages, and the node pages", () => {
	expect(userPages.map(relative)).toEqual(
		expect.arrayContaining([
			'README.md',
			'docs/safety.md',
			'docs/security.md',
			'docs/examples.md',
			'docs/nodes/payouts-transfer.md',
		]),
	);
	for (const page of CONTRIBUTOR_PAGES) expect(pages.map(relative)).toContain(page);
});

test("no user page names the mechanism, an author's file, these machines or a commit", () => {
	expect(userPages.flatMap((file) => mechanismWords(file))).toEqual([]);
});

test('the mechanism-word check finds what it is for (so its silence means something)', () => {
	const page = path.join(root, 'docs', 'x.md');
	const text = [
		'Each claim is written as marks in the journal; the lanes wait a settling window.',
		'`checkProcessedAndRecord` and `token:<nonce>`. The interface does not say so, nor the document.',
		'Not tested here: these machines have no Docker. Fixed in (cdeff39).',
		'Remarks, card tokens, a marked execution, `5f0c6a0e3b7d4c1a` and [a link](../x.md#abc1234) are fine.',
		"A Postgres claim, the claims table and Claim Held by an Earlier Step are the user's; the node claims its rows.",
		'Its claims',
		"table is the user's too.",
	].join('\n');
	expect(mechanismWords(page, text)).toEqual([
		'docs/x.md:1: marks',
		'docs/x.md:1: journal',
		'docs/x.md:1: lanes',
		'docs/x.md:1: settling window',
		'docs/x.md:1: claim',
		'docs/x.md:2: checkProcessedAndRecord',
		'docs/x.md:2: tokens of the record',
		'docs/x.md:2: "the interface does not say"',
		'docs/x.md:2: the interface document',
		'docs/x.md:3: these machines',
		'docs/x.md:3: a commit hash',
		'docs/x.md:5: claim',
	]);
});

/**
 * Each promise with its limits is stated once: whole in docs/safety.md, short in the
 * README, and nowhere else (other pages link to them). Each is recognised by the words that say it.
 */
const PROMISES: Array<[string, RegExp]> = [
	['what the promise holds against', /whatever n8n does around/gi],
	['reported paid only on evidence', /only on the evidence/gi],
	[
		'queue mode needs the Postgres claim',
		/two workers can each find a top-up new and both pay it/gi,
	],
	['regular mode needs no assumption', /without any assumption/gi],
	['the reach of top-ups', /about\s+25,000\s+(top-ups|of\s+them)/gi],
	['the reach of card and standard transfers', /about\s+50,000\s+card\s+or\s+standard/gi],
];

/** How often a page states each promise. */
function promisesIn(file: string, text?: string): Record<string, number> {
	const body = prose(file, text).join('\n');
	return Object.fromEntries(
		PROMISES.map(([name, pattern]) => [name, body.match(pattern)?.length ?? 0]),
	);
}

test('each promise is stated once: whole in docs/safety.md, at most once in the README, on no other user page', () => {
	const once = Object.fromEntries(PROMISES.map(([name]) => [name, 1]));
	expect(promisesIn(path.join(root, 'docs', 'safety.md'))).toEqual(once);
	const readme = promisesIn(path.join(root, 'README.md'));
	expect(Object.entries(readme).filter(([, count]) => count > 1)).toEqual([]);
	const elsewhere = userPages
		.filter((file) => !['README.md', 'docs/safety.md'].includes(relative(file)))
		.flatMap((file) =>
			Object.entries(promisesIn(file))
				.filter(([, count]) => count > 0)
				.map(([name]) => `${relative(file)}: ${name}`),
		);
	expect(elsewhere).toEqual([]);
	// The README links to the whole statement.
	expect(linksOf(path.join(root, 'README.md'))).toContain('docs/safety.md');
});

test('the promise check finds a second statement (so its silence means something)', () => {
	const page = path.join(root, 'docs', 'x.md');
	expect(
		promisesIn(
			page,
			'In queue mode two workers can each find a top-up new and both pay it.\n\nAgain: two workers can each find a top-up new and both pay it, for about 25,000 top-ups.',
		),
	).toMatchObject({
		'queue mode needs the Postgres claim': 2,
		'the reach of top-ups': 1,
		'regular mode needs no assumption': 0,
	});
});

/**
 * Every screenshot is used: each file under docs/screenshots/ is shown or linked on a
 * page, and each the browser test takes of an example (its canvas, and the panel of each of our
 * node types in it) exists. The exceptions wait for the lead to take them again with the browser
 * suite (`npm run screenshots`): stale ones (the example changed since) are kept unlinked, and new
 * ones are not taken yet. Each exception must still be one: the check says when to drop it.
 */
const SCREENSHOTS = path.join(root, 'docs', 'screenshots');
const RETAKES_PENDING: string[] = [];
const NEVER_TAKEN: string[] = [];

/** The screenshots a page shows or links, by name without .png. */
const screenshotsLinkedFrom = (file: string) =>
	linksOf(file)
		.map((target) => resolve(file, target)?.file)
		.filter(
			(target): target is string =>
				target !== undefined && path.dirname(target) === SCREENSHOTS && target.endsWith('.png'),
		)
		.map((target) => path.basename(target, '.png'));

/** What the browser test shoots of each example: `<id>-canvas`, and `<id>-<node type>-parameters` per node type of ours. */
const expectedScreenshots = examples.flatMap((example) => [
	`${example.id}-canvas`,
	...[
		...new Set(
			example.nodes
				.filter((node) => node.type.startsWith('n8n-nodes-payouts.'))
				.map((node) => node.type.split('.')[1]),
		),
	].map((type) => `${example.id}-${type}-parameters`),
]);

test('every screenshot is shown or linked on a page, but for those waiting to be taken again', () => {
	const linked = new Set(pages.flatMap(screenshotsLinkedFrom));
	const files = readdirSync(SCREENSHOTS)
		.filter((file) => file.endsWith('.png'))
		.map((file) => path.basename(file, '.png'));
	expect(files.filter((name) => !linked.has(name) && !RETAKES_PENDING.includes(name))).toEqual([]);
	// An exception that is linked, or missing, is no exception any more: drop it from the list.
	expect(RETAKES_PENDING.filter((name) => linked.has(name) || !files.includes(name))).toEqual([]);
});

test('every screenshot the browser test takes of the examples exists, but for those not taken yet', () => {
	const files = new Set(readdirSync(SCREENSHOTS).map((file) => path.basename(file, '.png')));
	expect(
		expectedScreenshots.filter((name) => !files.has(name) && !NEVER_TAKEN.includes(name)),
	).toEqual([]);
	// Taken at last: link it, and drop it from NEVER_TAKEN.
	expect(
		NEVER_TAKEN.filter((name) => files.has(name) || !expectedScreenshots.includes(name)),
	).toEqual([]);
});

/**
 * Editor texts are short: every description n8n shows (a node's, a parameter's, an
 * option's, a credential field's) is at most about 200 characters; the rest is in the docs.
 */
const MAX_DESCRIPTION = 200;
const descriptionSources = (): Array<{ name: string; description: unknown }> => [
	...codexFiles.map((file) => {
		const folder = path.dirname(file);
		const source = path.join(folder, `${path.basename(folder)}.node.ts`);
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const exported = require(source) as Record<string, new () => { description: unknown }>;
		const NodeClass = exported[path.basename(folder)];
		return { name: path.basename(folder), description: new NodeClass().description };
	}),
	...readdirSync(path.join(root, 'credentials'))
		.filter((file) => file.endsWith('.credentials.ts'))
		.map((file) => {
			// eslint-disable-next-line @typescript-eslint/no-require-imports
			const exported = require(path.join(root, 'credentials', file)) as Record<
				string,
				new () => { properties: unknown }
			>;
			const CredentialClass = Object.values(exported)[0];
			return { name: file, description: { properties: new CredentialClass().properties } };
		}),
];

/** Every description under a node's or credential's description, with where it is. */
function descriptionsIn(where: string, value: unknown): Array<[string, string]> {
	if (Array.isArray(value)) return value.flatMap((entry) => descriptionsIn(where, entry));
	if (!value || typeof value !== 'object') return [];
	const entry = value as Record<string, unknown>;
	const name = entry.name ?? entry.displayName;
	const here = name === undefined ? where : `${where}/${String(name)}`;
	const own: Array<[string, string]> =
		typeof entry.description === 'string' ? [[here, entry.description]] : [];
	return [
		...own,
		...['properties', 'options', 'values'].flatMap((key) => descriptionsIn(here, entry[key])),
	];
}

function tooLong(sources: Array<{ name: string; description: unknown }>): string[] {
	return sources
		.flatMap(({ name, description }) => descriptionsIn(name, description))
		.filter(([, text]) => text.length > MAX_DESCRIPTION)
		.map(([where, text]) => `${where}: ${text.length} characters`);
}

test(`every description the editor shows is at most ${MAX_DESCRIPTION} characters`, () => {
	const sources = descriptionSources();
	expect(sources.length).toBe(codexFiles.length + 1);
	expect(
		sources.flatMap(({ name, description }) => descriptionsIn(name, description)).length,
	).toBeGreaterThan(50);
	expect(tooLong(sources)).toEqual([]);
});

test('the description check finds a long one, also in a collection inside a collection (so its silence means something)', () => {
	const nested = {
		properties: [
			{
				name: 'options',
				options: [{ name: 'guard', values: [{ name: 'deep', description: 'x'.repeat(201) }] }],
			},
		],
	};
	expect(tooLong([{ name: 'Node', description: nested }])).toEqual([
		'Node/options/guard/deep: 201 characters',
	]);
});

/**
 * docs/internals.md is the map a newcomer reads first: every path it names (a code span with a
 * folder or a file name in it) is there, and it holds no figure, date or commit id, which go
 * stale (those live in docs/test-log.md and docs/performance.md).
 */
const INTERNALS = path.join(root, 'docs', 'internals.md');
const PATH_SPAN = /`((?:[\w.<>*-]+\/)+[\w.*-]*|[\w-]+\.(?:ts|js|mjs|json|md))`/g;

/**
 * The paths a page names, from the repository's root; in a table row that starts with a folder,
 * a bare file name is that folder's.
 */
function namedPaths(text: string): string[] {
	return text.split('\n').flatMap((line) => {
		const folder = /^\s*\| `([^`]+\/)` \|/.exec(line)?.[1] ?? '';
		return [...line.matchAll(PATH_SPAN)].map(([, written]) =>
			written.includes('/') ? written : folder + written,
		);
	});
}

/** A path as written, with `<Resource>` and `*` standing for any name: does one exist? */
function pathExists(written: string): boolean {
	const parts = written.replace(/\/$/, '').split('/');
	let candidates = [root];
	for (const part of parts) {
		const pattern = new RegExp(`^${part.replace(/[.]/g, '\\.').replace(/<\w+>|\*/g, '[^/]+')}$`);
		candidates = candidates.flatMap((folder) =>
			existsSync(folder) && statSync(folder).isDirectory()
				? readdirSync(folder)
						.filter((name) => pattern.test(name))
						.map((name) => path.join(folder, name))
				: [],
		);
	}
	return candidates.length > 0;
}

test('every path docs/internals.md names exists', () => {
	const named = namedPaths(readFileSync(INTERNALS, 'utf8'));
	expect(named.length).toBeGreaterThan(40);
	expect(named.filter((written) => !pathExists(written))).toEqual([]);
});

test('the path check finds a path that is not there (so its silence means something)', () => {
	const named = namedPaths(
		[
			'`nodes/<Resource>/`, `operations/*.ts`, `nodes/shared/record/journal.ts`, `claim`',
			'| `nodes/shared/run/` | `lanes.ts`, `journal.ts` |',
			'`test/simulator/store.ts`, `run.ts`',
		].join('\n'),
	);
	expect(named).toEqual([
		'nodes/<Resource>/',
		'operations/*.ts',
		'nodes/shared/record/journal.ts',
		'nodes/shared/run/',
		'nodes/shared/run/lanes.ts',
		'nodes/shared/run/journal.ts',
		'test/simulator/store.ts',
		'run.ts',
	]);
	expect(named.filter((written) => !pathExists(written))).toEqual([
		'operations/*.ts',
		'nodes/shared/record/journal.ts',
		'nodes/shared/run/journal.ts',
		'test/simulator/store.ts',
		'run.ts',
	]);
});

/** A number standing alone (not inside a word such as md5 or n8n), a date, or a commit id. */
function figuresIn(lines: string[]): string[] {
	return lines.flatMap((line, index) => {
		const bare = line
			.replace(/^\s*\d+\. /, '')
			.replace(/`[^`]*`/g, '')
			.replace(/\]\([^)]*\)/g, ']');
		return /(?<![\w.])\d/.test(bare) || COMMIT.test(bare) ? [`${index + 1}: ${line.trim()}`] : [];
	});
}

test('docs/internals.md holds no figure, date or commit id', () => {
	expect(figuresIn(prose(INTERNALS))).toEqual([]);
	expect(
		figuresIn(['about 0.62 of its rate', 'on 2026-11-28', 'broke it on 65f3c3a', 'n8n and md5']),
	).toEqual(['1: about 0.62 of its rate', '2: on 2026-11-28', '3: broke it on 65f3c3a']);
});

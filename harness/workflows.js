'use strict';
/**
 * What a user folder holds besides the package: the credentials the examples refer to, the example
 * workflows and other workflows imported and published with n8n's CLI.
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const { ROOT } = require('./common');
const { n8nCli } = require('./server');

const CREDENTIAL_ID = 'payoutsSandbox01';

/** The credential a user creates for the sandbox, in n8n's import format. */
function sandboxCredential(sandbox, seed, id = CREDENTIAL_ID) {
	return {
		id,
		name: 'Payouts Sandbox',
		type: 'payoutsApi',
		data: {
			baseUrl: sandbox.baseUrl,
			verificationUrl: sandbox.verificationUrl,
			...seed.credentials,
		},
	};
}

/**
 * The event templates' signing secret (docs/examples.md, "Signed events"): n8n's own JWT Auth
 * credential (`jwtAuth`, HS256 with a passphrase), which the Webhook node checks before anything
 * runs; the sender signs with examples/sign-event.js. The secret is a demo, public in the docs:
 * change it before a workflow that uses it is reachable by anyone else.
 */
const EVENT_SIGNING = {
	id: 'payoutsEventSigning1',
	name: 'Payouts Event Signing',
	secret: 'demo-signing-secret-change-me',
};
/** The same for the OAuth example's "Start a Sign-In" webhook, which only your app may call (docs/examples.md, section 4). */
const APP_SIGNING = {
	id: 'payoutsAppSigning01',
	name: 'Payouts App Signing',
	secret: 'demo-app-secret-change-me',
};

/** A signing credential (EVENT_SIGNING, APP_SIGNING), in n8n's import format. */
function signingCredential({ id, name, secret } = EVENT_SIGNING) {
	return { id, name, type: 'jwtAuth', data: { keyType: 'passphrase', secret, algorithm: 'HS256' } };
}

/**
 * Imports the credentials the examples refer to by name: "Payouts Sandbox" (with `reuse`, an
 * import of the same data is not repeated: each CLI command costs seconds) and, once per user
 * folder, "Payouts Event Signing" and "Payouts App Signing" (never again: a secret the user changed
 * from the demo one is kept, also when the sandbox's address changes). Gives what it imported:
 * `{ sandbox, eventSigning, appSigning }`.
 */
async function importCredential(userFolder, env, sandbox, seed, { reuse = false } = {}) {
	const credential = sandboxCredential(sandbox, seed);
	const marker = path.join(userFolder, '.payouts-credential-imported');
	const signingMarker = path.join(userFolder, '.payouts-event-signing-imported');
	const appMarker = path.join(userFolder, '.payouts-app-signing-imported');
	const content = JSON.stringify(credential);
	const imported = {
		sandbox: !(reuse && fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === content),
		eventSigning: !fs.existsSync(signingMarker),
		appSigning: !fs.existsSync(appMarker),
	};
	const credentials = [
		...(imported.sandbox ? [credential] : []),
		...(imported.eventSigning ? [signingCredential(EVENT_SIGNING)] : []),
		...(imported.appSigning ? [signingCredential(APP_SIGNING)] : []),
	];
	if (!credentials.length) return imported;
	const file = path.join(userFolder, 'payouts-credential.json');
	fs.writeFileSync(file, JSON.stringify(credentials));
	try {
		const result = await n8nCli(['import:credentials', `--input=${file}`], env);
		if (result.code !== 0)
			throw new Error(`importing the credentials failed:\n${result.stdout}${result.stderr}`);
	} finally {
		fs.rmSync(file, { force: true });
	}
	if (imported.sandbox) fs.writeFileSync(marker, content);
	if (imported.eventSigning) fs.writeFileSync(signingMarker, EVENT_SIGNING.id);
	if (imported.appSigning) fs.writeFileSync(appMarker, APP_SIGNING.id);
	return imported;
}

/** Imports credentials (n8n's import format: id, name, type, data) with the n8n CLI. */
async function importCredentials(userFolder, env, credentials) {
	const file = path.join(userFolder, 'payouts-credentials-extra.json');
	fs.writeFileSync(file, JSON.stringify(credentials));
	try {
		const result = await n8nCli(['import:credentials', `--input=${file}`], env);
		if (result.code !== 0)
			throw new Error(`importing credentials failed:\n${result.stdout}${result.stderr}`);
	} finally {
		fs.rmSync(file, { force: true });
	}
}

/**
 * The ids this harness gives the examples (the tests publish and run them by id, the browser test
 * names its screenshots after them). The files carry none, so that they import into any n8n
 * without overwriting a workflow of the same id (the editor's Import from File gives a new one,
 * `npm start` a fresh one), and n8n finds each credential by its name.
 */
const EXAMPLE_IDS = {
	'csv-batch-payouts.json': 'payoutsCsvBatch',
	'event-payout.json': 'payoutsEventPayout',
	'incident-check.json': 'payoutsIncidentCheck',
	'incident-guarded-batch.json': 'payoutsGuardedBatch',
	'incident-release-held.json': 'payoutsReleaseHeld',
	'oauth-callback.json': 'payoutsOAuthCallback',
	'paylink-status.json': 'payoutsPaylinkStatus',
	'queue-claim-payout.json': 'payoutsQueueClaim',
	'reconcile-dashboard.json': 'payoutsReconcile',
};

/**
 * The paths `npm start` and the tests give the examples' webhooks. The files leave each webhook's
 * path empty, so that every import gets its own: the editor's Import from File makes one of a fresh
 * id, and a second import of a template publishes beside the first. n8n's CLI import keeps the file
 * as it is, so this harness gives each webhook a readable path of its own, the one the docs' commands use.
 */
const EXAMPLE_WEBHOOK_PATHS = {
	'event-payout.json': { 'Payout Event': 'payouts-event' },
	'queue-claim-payout.json': { 'Top-Up Event': 'payouts-claimed-topup' },
	'oauth-callback.json': {
		'Start a Sign-In': 'payouts-oauth-start',
		'OAuth Redirect URL': 'payouts-oauth-callback',
	},
};

/** An example as `npm start` imports it: each webhook whose path the file leaves empty gets its EXAMPLE_WEBHOOK_PATHS path. */
function withWebhookPaths(file, workflow) {
	return {
		...workflow,
		nodes: workflow.nodes.map((node) => {
			if (node.type !== 'n8n-nodes-base.webhook' || node.parameters?.path) return node;
			const webhookPath = EXAMPLE_WEBHOOK_PATHS[file]?.[node.name];
			if (!webhookPath)
				throw new Error(
					`examples/${file}: webhook '${node.name}' has no path in EXAMPLE_WEBHOOK_PATHS (harness/workflows.js): give it one`,
				);
			return {
				...node,
				webhookId: `${webhookPath}-0001`,
				parameters: { ...node.parameters, path: webhookPath },
			};
		}),
	};
}

/** The example workflows as n8n's import format, each with the harness's id (EXAMPLE_IDS), its webhooks' paths (EXAMPLE_WEBHOOK_PATHS) and its `file`. */
function exampleWorkflows() {
	const dir = path.join(ROOT, 'examples');
	return fs
		.readdirSync(dir)
		.filter((file) => file.endsWith('.json'))
		.sort()
		.map((file) => {
			if (!EXAMPLE_IDS[file])
				throw new Error(
					`examples/${file} has no id in EXAMPLE_IDS (harness/workflows.js): give it one`,
				);
			return {
				id: EXAMPLE_IDS[file],
				...withWebhookPaths(file, JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'))),
				file,
			};
		});
}

/** A fresh workflow id as n8n makes them (16 letters and digits): one no n8n already holds. */
function freshWorkflowId() {
	const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
	return [...crypto.randomBytes(16)].map((byte) => alphabet[byte % alphabet.length]).join('');
}

/**
 * Workflows as n8n imports them, without the harness's `file`. n8n's CLI needs an id (the editor's
 * Import from File gives one itself): each keeps its own, or with `withoutIds` gets a fresh one, so
 * that no workflow the n8n already holds is overwritten.
 */
async function importWorkflows(userFolder, env, workflows, { withoutIds = false } = {}) {
	const file = path.join(userFolder, 'payouts-workflows.json');
	fs.writeFileSync(
		file,
		JSON.stringify(
			workflows.map(({ file: _file, id, ...workflow }) => ({
				id: withoutIds || id === undefined ? freshWorkflowId() : id,
				...workflow,
			})),
		),
	);
	try {
		const result = await n8nCli(['import:workflow', `--input=${file}`], env);
		if (result.code !== 0 || /error/i.test(result.stderr))
			throw new Error(`importing workflows failed:\n${result.stdout}${result.stderr}`);
	} finally {
		fs.rmSync(file, { force: true });
	}
}

/** The names of the workflows an n8n holds (`n8n list:workflow`). */
async function workflowNames(env) {
	const result = await n8nCli(['list:workflow'], env);
	if (result.code !== 0)
		throw new Error(`listing the workflows failed:\n${result.stdout}${result.stderr}`);
	return new Set(
		result.stdout
			.split('\n')
			.map((line) => /^[A-Za-z0-9]+\|(.+)$/.exec(line.trim())?.[1])
			.filter(Boolean),
	);
}

/**
 * `npm start`'s import of the examples into a user folder (also `npm run start:queue`'s): each
 * example once (a user's changes to it survive the next start), under a fresh id (so no workflow
 * of this n8n is overwritten), and none whose name the n8n already holds (an n8n
 * that has them already: its copies are kept). An example changed in this checkout since it was
 * imported (a safety fix, say) is not imported over the user's copy: said once, with how to get
 * the new one. Gives `{ imported, kept, changed }` (file names).
 */
async function importExamplesOnce(userFolder, env) {
	const examples = exampleWorkflows();
	const hashOf = (workflow) =>
		crypto.createHash('sha256').update(JSON.stringify(workflow)).digest('hex');
	const marker = path.join(userFolder, '.examples-imported.json');
	// Before the examples lost their ids, the marker listed the ids imported.
	const legacy = path.join(userFolder, '.examples-imported');
	const legacyIds = fs.existsSync(legacy) ? fs.readFileSync(legacy, 'utf8').split(',') : [];
	const known = fs.existsSync(marker)
		? JSON.parse(fs.readFileSync(marker, 'utf8'))
		: Object.fromEntries(
				examples
					.filter((workflow) => legacyIds.includes(workflow.id))
					.map((workflow) => [workflow.file, '']),
			);
	const wanted = examples.filter((workflow) => !(workflow.file in known));
	const present = wanted.length ? await workflowNames(env) : new Set();
	const kept = wanted.filter((workflow) => present.has(workflow.name));
	const missing = wanted.filter((workflow) => !present.has(workflow.name));
	if (missing.length) await importWorkflows(userFolder, env, missing, { withoutIds: true });
	const changed = examples
		.filter(
			(workflow) => known[workflow.file] !== undefined && known[workflow.file] !== hashOf(workflow),
		)
		.map((workflow) => workflow.file);
	fs.writeFileSync(
		marker,
		JSON.stringify(
			Object.fromEntries(
				examples.map((workflow) => [
					workflow.file,
					workflow.file in known ? known[workflow.file] || hashOf(workflow) : hashOf(workflow),
				]),
			),
		),
	);
	return {
		imported: missing.map((workflow) => workflow.file),
		kept: kept.map((workflow) => workflow.file),
		changed,
	};
}

/** Makes an imported workflow active (published) with n8n's CLI before n8n starts, as a user leaves it. */
async function publishWorkflow(env, id) {
	let result = await n8nCli(['publish:workflow', `--id=${id}`], env);
	// n8n 1.x has no publishing: a workflow is activated there (the matrix's 1.123.81).
	if (
		result.code !== 0 &&
		/Command "publish:workflow" not found/.test(result.stdout + result.stderr)
	)
		result = await n8nCli(['update:workflow', `--id=${id}`, '--active=true'], env);
	if (result.code !== 0)
		throw new Error(`publishing workflow ${id} failed:\n${result.stdout}${result.stderr}`);
}

module.exports = {
	CREDENTIAL_ID,
	sandboxCredential,
	EVENT_SIGNING,
	APP_SIGNING,
	signingCredential,
	importCredential,
	importCredentials,
	EXAMPLE_IDS,
	EXAMPLE_WEBHOOK_PATHS,
	withWebhookPaths,
	exampleWorkflows,
	importWorkflows,
	importExamplesOnce,
	workflowNames,
	publishWorkflow,
};

#!/usr/bin/env node
'use strict';
/**
 * `npm start`: real n8n with this package, against the local sandbox.
 * Ensures the selected n8n and its Node (installed once into cache folders), builds and installs the package the
 * way n8n installs community packages, starts the sandbox, creates the "Payouts Sandbox"
 * credential, imports the examples, creates the owner account and prints the editor's address and
 * login. Ctrl-C stops n8n and the sandbox.
 *
 * Which n8n: `npm start -- --n8n <version>` or N8N_VERSION=<version> (one of
 * harness/n8n-runtime/versions.json; default: the newest there).
 * Which zone the sandbox reads incident windows in (the service's is not documented):
 * `npm start -- --sandbox-timezone Asia/Kolkata` or SANDBOX_TIMEZONE=Asia/Kolkata (default UTC).
 * Environment: N8N_VERSION, N8N_PORT (5678), PAYOUTS_SANDBOX_PORT (5680), SANDBOX_TIMEZONE (UTC), PAYOUTS_N8N_USER_FOLDER
 * (.cache/n8n-user-<version> in this checkout), PAYOUTS_CACHE_DIR (~/.cache/n8n-nodes-payouts),
 * N8N_RUNTIME_DIR (<cache>/n8n-<version>).
 */
const fs = require('node:fs');
const path = require('node:path');

// `--n8n <version>` / `--n8n=<version>` picks the n8n version, before harness/runtime.js reads it.
const flag = process.argv.findIndex((arg) => arg === '--n8n' || arg.startsWith('--n8n='));
if (flag >= 0)
	process.env.N8N_VERSION = process.argv[flag].includes('=')
		? process.argv[flag].split('=')[1]
		: process.argv[flag + 1];
// `--sandbox-timezone <zone>` / `--sandbox-timezone=<zone>`, else SANDBOX_TIMEZONE, else UTC.
const zoneFlag = process.argv.findIndex(
	(arg) => arg === '--sandbox-timezone' || arg.startsWith('--sandbox-timezone='),
);
const SANDBOX_TIMEZONE =
	(zoneFlag >= 0
		? process.argv[zoneFlag].includes('=')
			? process.argv[zoneFlag].split('=')[1]
			: process.argv[zoneFlag + 1]
		: process.env.SANDBOX_TIMEZONE) || 'UTC';

let n8n;
try {
	n8n = require('../harness');
} catch (error) {
	console.error(`[n8n-nodes-payouts] npm start failed: ${error.message}`);
	process.exit(1);
}
const { startSandbox, seed } = require('../sandbox');

// One user folder per n8n version: n8n migrates its database forward only, so an older n8n must
// not open a newer one's.
const USER_FOLDER = path.resolve(
	process.env.PAYOUTS_N8N_USER_FOLDER ??
		path.join(n8n.ROOT, '.cache', `n8n-user-${n8n.N8N_VERSION}`),
);
const seconds = (since) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

let server;
let sandbox;
let stopping = false;
async function stop(code = 0) {
	if (stopping) return;
	stopping = true;
	n8n.log('Stopping n8n and the sandbox…');
	await server?.stop();
	await sandbox?.close();
	n8n.log('Stopped.');
	process.exit(code);
}

async function main() {
	const started = Date.now();
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => stop(0));
	// Never leave n8n behind: if this process goes (even uncleanly), n8n goes with it.
	process.on('exit', () => server?.child.kill('SIGKILL'));
	// `npm start` runs this under `sh -c`; if npm is killed, the shell may die without passing the
	// signal on: then this process is orphaned, and stops (run `node scripts/start.js` to detach).
	if (process.env.npm_lifecycle_event === 'start') {
		const parent = process.ppid;
		setInterval(() => {
			if (process.ppid !== parent) stop(0);
		}, 1000).unref();
	}

	const runtime = await n8n.ensureRuntime();

	n8n.log(
		'Installing the package into n8n as a community package (build, npm pack, unpack, npm install)…',
	);
	fs.mkdirSync(USER_FOLDER, { recursive: true });
	const { reused } = await n8n.installPackage(USER_FOLDER, { reuse: true });
	n8n.log(
		reused
			? 'The package is unchanged since the last start: the installed copy is reused.'
			: 'Package built and installed.',
	);

	const sandboxPort = await n8n.freePort(Number(process.env.PAYOUTS_SANDBOX_PORT ?? 5680));
	sandbox = await startSandbox({
		port: sandboxPort,
		host: '127.0.0.1',
		httpStyle: 'mirror',
		timezone: SANDBOX_TIMEZONE,
	});
	const port = await n8n.freePort(Number(process.env.N8N_PORT ?? 5678));
	const brokerPort = await n8n.freePort(port === 5678 ? 5679 : 0);
	const env = n8n.n8nEnv(USER_FOLDER, { port, brokerPort });

	const imported = await n8n.importCredential(USER_FOLDER, env, sandbox, seed, { reuse: true });
	if (imported.sandbox) n8n.log(`Credential "Payouts Sandbox" points at ${sandbox.baseUrl}.`);
	for (const [created, { name }] of [
		[imported.eventSigning, n8n.EVENT_SIGNING],
		[imported.appSigning, n8n.APP_SIGNING],
	]) {
		if (created)
			n8n.log(
				`Credential "${name}" (JWT Auth) created with the demo secret of docs/examples.md: change it before anyone else can reach its webhook.`,
			);
	}

	// The examples are imported once, under fresh ids (nothing of this n8n is overwritten), so that a
	// user's changes to them survive the next start; one whose name this n8n already holds is kept.
	const examples = await n8n.importExamplesOnce(USER_FOLDER, env);
	if (examples.imported.length)
		n8n.log(`Imported ${examples.imported.length} example workflow(s).`);
	if (examples.kept.length)
		n8n.log(
			`This n8n already has ${examples.kept.join(', ')} (a workflow of the same name): kept as it is.`,
		);
	if (examples.changed.length) {
		n8n.log(
			`Example workflow(s) ${examples.changed.join(', ')} may differ from the copies imported into ${USER_FOLDER} earlier; your copies are kept. To get the new ones: Workflows → Import from File (examples/), or delete that folder for a fresh start.`,
		);
	}

	n8n.log(`Starting n8n ${runtime.version} on Node ${runtime.nodeVersion}…`);
	const logFile = path.join(USER_FOLDER, 'n8n.log');
	server = await n8n.startServer(env, logFile);
	server.child.on('exit', (code) => {
		if (!stopping) {
			n8n.log(`n8n stopped unexpectedly (exit code ${code}); its log is ${logFile}`);
			stop(1);
		}
	});
	await n8n.ensureOwner(server.url);

	console.log(`
n8n ${runtime.version} (Node ${runtime.nodeVersion}) is running with n8n-nodes-payouts, against the local payouts sandbox (up in ${seconds(started)}).

  Editor:    ${server.url}
  Login:     ${n8n.OWNER.email} / ${n8n.OWNER.password}
  Sandbox:   ${sandbox.baseUrl}  (credential "Payouts Sandbox"; what it received: ${sandbox.baseUrl}/__sandbox/requests;
             incident windows read in ${SANDBOX_TIMEZONE}: --sandbox-timezone or SANDBOX_TIMEZONE)
  Examples:  Overview → the workflows named "Payouts: …" (from examples/)
  Webhooks:  ${Object.values(n8n.EXAMPLE_WEBHOOK_PATHS)
		.flatMap((paths) => Object.values(paths))
		.map((webhookPath) => `${server.url}/webhook/${webhookPath}`)
		.join(',\n             ')}
             (each answers once its workflow is published; senders sign for these URLs: docs/examples.md)
  n8n log:   ${logFile}
  Versions:  ${n8n.VERSIONS.versions.map((entry) => entry.n8n).join(', ')}  (npm start -- --n8n <version>)

Press Ctrl-C to stop n8n and the sandbox.`);
}

main().catch(async (error) => {
	console.error(`[n8n-nodes-payouts] npm start failed: ${error.message}`);
	await stop(1);
});

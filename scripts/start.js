#!/usr/bin/env node
'use strict';
/**
 * `npm start`: real n8n with this package, against the local sandbox.
 * Builds and installs the package the way n8n installs community packages, starts the sandbox,
 * creates the "Payouts Sandbox" credential, imports the examples, creates the owner account and
 * prints the editor's address and login. Ctrl-C stops n8n and the sandbox.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const n8n = require('./n8n');
const { startSandbox, seed } = require('../sandbox');

const N8N_PORT = Number(process.env.N8N_PORT ?? 5678);
const SANDBOX_PORT = Number(process.env.PAYOUTS_SANDBOX_PORT ?? 5680);
const USER_FOLDER = process.env.PAYOUTS_N8N_USER_FOLDER ?? path.join(n8n.ROOT, '.cache', 'n8n-user');
const OWNER = { email: 'demo@example.com', firstName: 'Demo', lastName: 'User', password: 'Payouts-Demo-1' };
const EXAMPLES = path.join(n8n.ROOT, 'examples');

async function waitForHealth(url, child, seconds = 180) {
	for (let waited = 0; waited < seconds * 2; waited++) {
		if (child.exitCode !== null) throw new Error(`n8n exited with code ${child.exitCode}`);
		try {
			const response = await fetch(`${url}/healthz`);
			if (response.ok) return;
		} catch {
			// not up yet
		}
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
	throw new Error(`n8n did not answer ${url}/healthz within ${seconds} s`);
}

async function ensureOwner(url) {
	// /healthz answers before the REST API is mounted: wait while it says 404.
	for (let attempt = 0; attempt < 120; attempt++) {
		const response = await fetch(`${url}/rest/owner/setup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(OWNER) });
		// A second start finds the owner already there: n8n answers 400, and the login stays the same.
		if (response.ok || response.status === 400) return;
		if (response.status !== 404) throw new Error(`owner set-up failed: HTTP ${response.status}`);
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
	throw new Error('owner set-up failed: the REST API did not come up');
}

async function main() {
	n8n.log('Building the package and installing it into n8n the way n8n installs community packages…');
	n8n.ensureRuntime();
	fs.mkdirSync(USER_FOLDER, { recursive: true });
	n8n.installPackage(USER_FOLDER);

	const sandbox = await startSandbox({ port: SANDBOX_PORT }).catch(() => startSandbox({ port: 0 }));
	const env = n8n.n8nEnv(USER_FOLDER, { port: N8N_PORT, brokerPort: N8N_PORT + 1000 });

	const credentialsFile = path.join(USER_FOLDER, 'payouts-credential.json');
	fs.writeFileSync(credentialsFile, JSON.stringify([n8n.sandboxCredential(sandbox, seed)]));
	const imported = await n8n.n8nCli(['import:credentials', `--input=${credentialsFile}`], env);
	if (imported.code !== 0) throw new Error(`importing the credential failed:\n${imported.stderr}`);
	fs.rmSync(credentialsFile);

	// The examples are imported once, so that a user's changes to them survive the next start.
	const marker = path.join(USER_FOLDER, '.examples-imported');
	if (!fs.existsSync(marker)) {
		const workflows = fs.readdirSync(EXAMPLES).filter((file) => file.endsWith('.json')).map((file) => JSON.parse(fs.readFileSync(path.join(EXAMPLES, file), 'utf8')));
		const file = path.join(USER_FOLDER, 'examples.json');
		fs.writeFileSync(file, JSON.stringify(workflows));
		const result = await n8n.n8nCli(['import:workflow', `--input=${file}`], env);
		if (result.code !== 0) throw new Error(`importing the examples failed:\n${result.stderr}`);
		fs.writeFileSync(marker, new Date().toISOString());
	}

	n8n.log(`Starting n8n ${n8n.N8N_VERSION}…`);
	const child = spawn(n8n.N8N_BIN, ['start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
	const logFile = fs.createWriteStream(path.join(USER_FOLDER, 'n8n.log'));
	child.stdout.pipe(logFile);
	child.stderr.pipe(logFile);

	let stopping = false;
	const stop = async (code = 0) => {
		if (stopping) return;
		stopping = true;
		n8n.log('Stopping n8n and the sandbox…');
		child.kill('SIGTERM');
		await Promise.race([new Promise((resolve) => child.once('exit', resolve)), new Promise((resolve) => setTimeout(resolve, 10000))]);
		if (child.exitCode === null) child.kill('SIGKILL');
		await sandbox.close();
		process.exit(code);
	};
	process.on('SIGINT', () => stop(0));
	process.on('SIGTERM', () => stop(0));
	child.on('exit', (code) => {
		if (!stopping) {
			n8n.log(`n8n stopped unexpectedly (exit code ${code}); its log is ${path.join(USER_FOLDER, 'n8n.log')}`);
			stop(1);
		}
	});

	const url = `http://127.0.0.1:${N8N_PORT}`;
	try {
		await waitForHealth(url, child);
		await ensureOwner(url);
	} catch (error) {
		n8n.log(`${error.message}; n8n's log is ${path.join(USER_FOLDER, 'n8n.log')}`);
		await stop(1);
	}
	console.log(`
n8n ${n8n.N8N_VERSION} is running with n8n-nodes-payouts, against the local payouts sandbox.

  Editor:    ${url}
  Login:     ${OWNER.email} / ${OWNER.password}
  Sandbox:   ${sandbox.baseUrl} (credential "Payouts Sandbox"; requests at ${sandbox.baseUrl}/__sandbox/requests)
  Examples:  Workflows → "Payouts: …" (imported from examples/)
  n8n log:   ${path.join(USER_FOLDER, 'n8n.log')}

Press Ctrl-C to stop n8n and the sandbox.`);
}

main().catch((error) => {
	console.error(`[n8n-nodes-payouts] npm start failed: ${error.message}`);
	process.exit(1);
});

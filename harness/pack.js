'use strict';
/**
 * This package built, packed as it would be published, and installed into an n8n user folder the
 * way n8n's community-package installer does it.
 */
const { execFileSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { ROOT, PACKAGE_NAME, run } = require('./common');
const { withLock } = require('./locks');

/** A hash of everything the packed package is made of, to skip rebuilding an unchanged package. */
function sourceHash() {
	const hash = crypto.createHash('sha256');
	const walk = (dir) => {
		if (!fs.existsSync(dir)) return;
		for (const entry of fs
			.readdirSync(dir, { withFileTypes: true })
			.sort((a, b) => a.name.localeCompare(b.name))) {
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
	for (const file of [
		'package.json',
		'index.js',
		'tsconfig.json',
		'tsconfig.build.json',
		'gulpfile.js',
	]) {
		if (fs.existsSync(path.join(ROOT, file))) hash.update(fs.readFileSync(path.join(ROOT, file)));
	}
	return hash.digest('hex');
}

/**
 * One build of this checkout's dist/ at a time: `npm run build` rewrites dist/ in place, so a pack
 * must not read it while another build (a package test, a parallel suite) writes it.
 */
async function withBuildLock(action) {
	const lockDir = path.join(
		os.tmpdir(),
		`n8n-nodes-payouts-build-${crypto.createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}.lock`,
	);
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
	const tarballIn = (dir) =>
		fs.existsSync(dir) ? fs.readdirSync(dir).find((file) => file.endsWith('.tgz')) : undefined;
	const tarball = await withBuildLock(async () => {
		const found = tarballIn(cached);
		if (found) {
			const now = new Date();
			fs.utimesSync(cached, now, now);
			return path.join(cached, found);
		}
		await run('npm', ['run', '--silent', 'build'], {
			cwd: ROOT,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		fs.mkdirSync(PACK_CACHE, { recursive: true });
		const staging = fs.mkdtempSync(path.join(PACK_CACHE, '.staging-'));
		await run('npm', ['pack', '--silent', '--pack-destination', staging], {
			cwd: ROOT,
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		if (!tarballIn(staging)) throw new Error(`npm pack left no tarball in ${staging}`);
		fs.rmSync(cached, { recursive: true, force: true });
		fs.renameSync(staging, cached);
		for (const entry of fs.readdirSync(PACK_CACHE)) {
			const dir = path.join(PACK_CACHE, entry);
			if (entry !== hash && Date.now() - fs.statSync(dir).mtimeMs > 24 * 3600 * 1000)
				fs.rmSync(dir, { recursive: true, force: true });
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
	if (
		reuse &&
		fs.existsSync(path.join(target, 'package.json')) &&
		fs.existsSync(marker) &&
		fs.readFileSync(marker, 'utf8') === hash
	) {
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
		for (const field of ['devDependencies', 'peerDependencies', 'optionalDependencies'])
			delete manifest[field];
		fs.writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));
		await run(
			'npm',
			[
				'install',
				'--audit=false',
				'--fund=false',
				'--bin-links=false',
				'--install-strategy=shallow',
				'--ignore-scripts=true',
				'--package-lock=false',
			],
			{
				cwd: target,
				stdio: ['ignore', 'pipe', 'pipe'],
			},
		);
	} finally {
		fs.rmSync(work, { recursive: true, force: true });
	}
	// n8n's own record of installed community packages lives in nodes/package.json.
	const nodesManifest = path.join(nodesDir, 'package.json');
	const installed = fs.existsSync(nodesManifest)
		? JSON.parse(fs.readFileSync(nodesManifest, 'utf8'))
		: { name: 'installed-nodes', private: true, dependencies: {} };
	installed.dependencies = { ...installed.dependencies, [PACKAGE_NAME]: manifest.version };
	fs.writeFileSync(nodesManifest, JSON.stringify(installed, null, 2));
	fs.writeFileSync(marker, hash);
	return { target, reused: false };
}

module.exports = { installPackage, packPackage, withBuildLock };

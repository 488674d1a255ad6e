#!/usr/bin/env node
'use strict';
/**
 * `npm run test:matrix [-- <version> ...]`: the end-to-end suite (versions.json's `matrixTests`:
 * test/e2e) on every n8n of
 * harness/n8n-runtime/versions.json (or on the versions named), one after another, each on its own
 * pinned Node (PAYOUTS_NODE=pinned); a version missing from the cache is installed first. Writes the results to
 * harness/n8n-runtime/tested-versions.json (a row per version; rows of versions not run are kept),
 * rewrites the "Tested n8n versions" table of docs/testing.md from it (scripts/print-tested-versions.js) and
 * exits 1 when a version failed.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

// Each version on exactly its pinned Node, even where the machine's would do: tested-versions.json
// then records the pins, as a package test holds it to versions.json.
process.env.PAYOUTS_NODE ??= 'pinned';
const n8n = require('../harness');
const { RESULTS_FILE, writePage } = require('./print-tested-versions');

const minutes = (seconds) =>
	seconds >= 60 ? `${Math.floor(seconds / 60)} min ${seconds % 60} s` : `${seconds} s`;

/** The tests of versions.json's `matrixTests` (the e2e suite) under jest, on this machine's Node, with n8n `version` as the runtime. */
function runSuite(version) {
	const report = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'payouts-matrix-')), 'jest.json');
	const env = { ...process.env, N8N_VERSION: version };
	delete env.N8N_RUNTIME_DIR; // names one version's folder, not every version's
	const jest = path.join(n8n.ROOT, 'node_modules', 'jest', 'bin', 'jest.js');
	return new Promise((resolve) => {
		const child = spawn(
			process.execPath,
			[jest, ...n8n.VERSIONS.matrixTests, '--runInBand', '--json', `--outputFile=${report}`],
			{ cwd: n8n.ROOT, env, stdio: ['ignore', 'inherit', 'inherit'] },
		);
		child.on('close', (code) => {
			let result = { passed: 0, failed: 0 };
			try {
				const json = JSON.parse(fs.readFileSync(report, 'utf8'));
				result = {
					passed: json.numPassedTests,
					failed: json.numFailedTests + json.numRuntimeErrorTestSuites,
				};
			} catch {
				result.failed = 1; // jest itself failed (no report)
			}
			fs.rmSync(path.dirname(report), { recursive: true, force: true });
			resolve({ ...result, ok: code === 0 && result.failed === 0 });
		});
	});
}

async function main() {
	const wanted = process.argv.slice(2);
	const versions = wanted.length
		? wanted.map((version) => n8n.runtimeFor(version).version)
		: n8n.VERSIONS.versions.map((entry) => entry.n8n);
	const previous = fs.existsSync(RESULTS_FILE)
		? JSON.parse(fs.readFileSync(RESULTS_FILE, 'utf8')).runs
		: [];
	const runs = new Map(previous.map((row) => [row.n8n, row]));
	let failures = 0;
	for (const version of versions) {
		const runtime = n8n.runtimeFor(version);
		n8n.log(`=== n8n ${version} on Node ${runtime.nodeVersion} (${runtime.role})`);
		const installStarted = Date.now();
		let installSeconds = null;
		const row = {
			n8n: version,
			node: runtime.nodeVersion,
			role: runtime.role,
			passed: 0,
			failed: 0,
			seconds: 0,
			date: new Date().toISOString().slice(0, 10),
		};
		try {
			const wasReady = fs.existsSync(path.join(runtime.dir, '.installed'));
			await n8n.ensureRuntime(version);
			if (!wasReady) installSeconds = Math.round((Date.now() - installStarted) / 1000);
		} catch (error) {
			n8n.log(`n8n ${version} did not install: ${error.message}`);
			runs.set(version, { ...row, installFailed: true, failed: 1 });
			failures++;
			continue;
		}
		const started = Date.now();
		const result = await runSuite(version);
		row.passed = result.passed;
		row.failed = result.failed;
		row.seconds = Math.round((Date.now() - started) / 1000);
		if (installSeconds !== null) row.installSeconds = installSeconds;
		runs.set(version, row);
		if (!result.ok) failures++;
		n8n.log(
			`=== n8n ${version}: ${row.passed} passed, ${row.failed} failed, ${minutes(row.seconds)}${installSeconds !== null ? ` (installed first in ${minutes(installSeconds)})` : ''}`,
		);
	}
	// The table's order; versions no longer in the table are dropped.
	const ordered = n8n.VERSIONS.versions.map((entry) => runs.get(entry.n8n)).filter(Boolean);
	fs.writeFileSync(
		RESULTS_FILE,
		`${JSON.stringify({ suite: n8n.VERSIONS.matrixTests.join(' '), runs: ordered }, null, 2)}\n`,
	);
	writePage();
	n8n.log(
		`Results in ${path.relative(n8n.ROOT, RESULTS_FILE)}; docs/testing.md "Tested n8n versions" updated.`,
	);
	process.exit(failures ? 1 : 0);
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});

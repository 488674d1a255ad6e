/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code runs in Node under jest, never inside n8n (it uses Node's own modules, timers, files and the environment); these rules guard the code n8n loads (nodes/, credentials/) */
/**
 * The package as n8n and its reviewers see it: the official community lint, n8n's package
 * scanner, and the package.json rules for community nodes.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';

import packageJson from '../../package.json';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { withBuildLock } = require('../../harness') as {
	withBuildLock: <T>(action: () => Promise<T>) => Promise<T>;
};

const run = promisify(execFile);
const root = `${__dirname}/../..`;
// jest sets NODE_ENV=test, which switches n8n's lint plugin into its own self-test mode.
const env = { ...process.env, NODE_ENV: 'production' };

jest.setTimeout(180_000);

test("n8n's own lint passes: `n8n-node lint` (strict: the template's eslint.config.mjs, every .ts file, tests and bench included), and without warnings", async () => {
	// Exits non-zero on any error, or when eslint.config.mjs differs from n8n's template.
	await run('npx', ['n8n-node', 'lint'], { cwd: root, env });
	// The same eslint run n8n-node makes, with warnings counted too.
	const { stdout } = await run('npx', ['eslint', '--max-warnings', '0', '.'], { cwd: root, env });
	expect(stdout.trim()).toBe('');
});

test("the code is formatted as prettier formats it (`npm run format`; the settings of n8n's node starter)", async () => {
	// Exits non-zero and names each file that prettier would change.
	await run('npx', ['prettier', '--check', '.'], { cwd: root, env });
});

test("n8n's community package scanner passes the sources and the packed tarball", async () => {
	// It builds dist/ and packs it: never while an end-to-end suite packs (npm test runs suites side by side).
	const { stdout } = await withBuildLock(() =>
		run('node', ['scripts/scan-package.mjs'], { cwd: root, env }),
	);
	expect(stdout).toContain('passed: scan of the sources');
	expect(stdout).toContain('passed: scan of the packed package');
});

test('package.json follows the community node rules: no runtime dependencies, n8n-workflow as the only peer', () => {
	expect((packageJson as { dependencies?: object }).dependencies ?? {}).toEqual({});
	expect(packageJson.peerDependencies).toEqual({ 'n8n-workflow': '*' });
	expect(packageJson.files).toEqual(['dist']);
	expect(packageJson.keywords).toContain('n8n-community-node-package');
	expect(packageJson.n8n).toMatchObject({ n8nNodesApiVersion: 1, strict: true });
	// zod comes from n8n at run time: pin the line n8n ships (3.25) for development.
	expect(packageJson.devDependencies.zod).toMatch(/^3\.25\./);
});

test("docs/errors.md's error table is the one the nodes use (scripts/print-error-table.js)", async () => {
	await withBuildLock(() => run('npm', ['run', '--silent', 'build'], { cwd: root, env }));
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { table } = require('../../scripts/print-error-table.js') as { table: () => string };
	const page = readFileSync(`${root}/docs/errors.md`, 'utf8');
	const printed = page
		.split('<!-- error-table:start -->\n')[1]
		?.split('\n<!-- error-table:end -->')[0];
	expect(printed).toBe(table());
});

test("docs/testing.md's tested n8n versions are the last matrix run's, one row per version we run (scripts/print-tested-versions.js)", () => {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const printer = require('../../scripts/print-tested-versions.js') as {
		PAGE: string;
		RESULTS_FILE: string;
		table: () => string;
		pageTable: () => string | undefined;
	};
	expect(printer.PAGE.endsWith('/docs/testing.md')).toBe(true);
	expect(printer.pageTable()).toBe(printer.table());
	const versions = JSON.parse(
		readFileSync(`${root}/harness/n8n-runtime/versions.json`, 'utf8'),
	) as { default: string; versions: Array<{ n8n: string; node: string }> };
	const { runs } = JSON.parse(readFileSync(printer.RESULTS_FILE, 'utf8')) as {
		runs: Array<{ n8n: string; node: string }>;
	};
	expect(runs.map((run) => [run.n8n, run.node])).toEqual(
		versions.versions.map((entry) => [entry.n8n, entry.node]),
	);
	expect(versions.versions.map((entry) => entry.n8n)).toContain(versions.default);
});

test('engines.node is the lowest Node that a tested n8n runs on', () => {
	const versions = JSON.parse(
		readFileSync(`${root}/harness/n8n-runtime/versions.json`, 'utf8'),
	) as { versions: Array<{ node: string }> };
	const lowest = versions.versions
		.map((entry) => entry.node.split('.').map(Number))
		.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2])[0];
	expect(packageJson.engines.node).toBe(`>=${lowest[0]}.${lowest[1]}`);
});

/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- test code runs in Node under jest, never inside n8n (it uses Node's own modules, child processes, files and the environment); these rules guard the code n8n loads (nodes/, credentials/) */
/**
 * Jest's global set-up (jest.config.js): what the end-to-end and browser suites need and that takes
 * long is started before the first test, so that it runs while the unit, sandbox, engine and
 * package suites do, instead of inside the first suite that needs it.
 *
 * - The n8n runtime (n8n and its Node, harness/runtime.js `ensureRuntime`) installs in the background,
 *   in jest's own process; a suite's `ensureRuntime()` waits for it (the install's lock).
 * - The package is built and packed once (harness/pack.js `packPackage`, by source hash), also in
 *   the background; every suite installs that tarball.
 * - Debian's chromium, postgresql and redis-server, when a selected suite needs them and they are
 *   missing, are installed now (as root, with apt-get), before any suite starts, so that no two
 *   suites run apt-get at once.
 *
 * Only for the suites selected: `npx jest test/engine` installs nothing.
 * globalTeardown.ts waits for the background work, so that a failed install is reported.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const n8n = require('../../harness');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const queue = require('../../scripts/queue.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { needsN8n, runsRealN8n } = require('./needsN8n') as {
	needsN8n: (file: string) => boolean;
	runsRealN8n: (file: string) => boolean;
};

type Background = { what: string; promise: Promise<unknown>; error?: Error };

const ROOT = path.join(__dirname, '..', '..');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The test files this run will execute: jest's own selection (path pattern, ignore patterns) over test/**\/*.test.ts. */
function selectedTestFiles(
	globalConfig: { testPathPattern?: string },
	projectConfig: { testPathIgnorePatterns?: string[] },
): string[] {
	const files: string[] = [];
	const walk = (dir: string) => {
		for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
			const full = path.join(dir, entry.name);
			if (entry.isDirectory()) walk(full);
			else if (entry.name.endsWith('.test.ts')) files.push(full);
		}
	};
	walk(path.join(ROOT, 'test'));
	const pattern = globalConfig.testPathPattern
		? new RegExp(globalConfig.testPathPattern, 'i')
		: undefined;
	const ignored = (projectConfig.testPathIgnorePatterns ?? []).map(
		(ignore) => new RegExp(ignore.replace('<rootDir>', ROOT)),
	);
	return files.filter(
		(file) => (!pattern || pattern.test(file)) && !ignored.some((ignore) => ignore.test(file)),
	);
}

function log(message: string) {
	process.stderr.write(`[n8n-nodes-payouts] ${message}\n`);
}

/** apt-get, without blocking this process (the background installs keep reading their output). */
function aptGet(args: string[]): Promise<void> {
	return new Promise((resolve, reject) => {
		const child = spawn('apt-get', args, {
			env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
			stdio: ['ignore', 'ignore', 'pipe'],
		});
		let stderr = '';
		child.stderr.on('data', (chunk) => (stderr += chunk));
		child.on('error', reject);
		child.on('close', (code) =>
			code === 0
				? resolve()
				: reject(
						new Error(`apt-get ${args.join(' ')} exited with code ${code}: ${stderr.slice(-1500)}`),
					),
		);
	});
}

/** Installs the Debian packages the selected suites need and the machine lacks (as root; otherwise the suites skip loudly, as before). */
async function installDebianPackages(packages: string[]) {
	const root = typeof process.getuid === 'function' && process.getuid() === 0;
	if (!packages.length || !root || !fs.existsSync('/usr/bin/apt-get')) return;
	const started = Date.now();
	log(
		`Installing ${packages.join(', ')} from Debian packages (apt-get) for the browser and queue-mode suites…`,
	);
	try {
		await aptGet(['update']);
		await aptGet(['install', '-y', '--no-install-recommends', ...packages]);
		log(`Installed ${packages.join(', ')} in ${Math.round((Date.now() - started) / 1000)} s.`);
	} catch (error) {
		// The suites say what is missing, and skip (or fail under CI).
		log(`Installing ${packages.join(', ')} failed: ${(error as Error).message.split('\n')[0]}`);
	}
}

export default async function globalSetup(
	globalConfig: { testPathPattern?: string },
	projectConfig: { testPathIgnorePatterns?: string[] },
) {
	const files = selectedTestFiles(globalConfig, projectConfig);
	const source = (file: string) => fs.readFileSync(file, 'utf8');
	// The suites that need n8n installed (real n8n, or n8n's own Retry code): test/helpers/needsN8n.js.
	if (!files.some(needsN8n)) return;
	const realN8n = files.some(runsRealN8n);
	const background: Background[] = [];
	(globalThis as { payoutsBackground?: Background[] }).payoutsBackground = background;
	const inBackground = (what: string, work: () => Promise<unknown>) => {
		const entry: Background = { what, promise: Promise.resolve() };
		entry.promise = work().catch((error: Error) => {
			entry.error = error;
			log(`${what} failed (the suites that need it will say so): ${error.message.split('\n')[0]}`);
		});
		background.push(entry);
	};
	if (!n8n.runtimeReady())
		log(
			`n8n ${n8n.N8N_VERSION} is not installed yet: installing it in the background while the first suites run (about 3 to 9 minutes, once per machine).`,
		);
	inBackground(`installing n8n ${n8n.N8N_VERSION}`, () => n8n.ensureRuntime());
	if (realN8n)
		inBackground('building and packing the package', async () => {
			const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'payouts-prepack-'));
			try {
				await n8n.packPackage(scratch);
			} finally {
				fs.rmSync(scratch, { recursive: true, force: true });
			}
		});
	const missing: string[] = [];
	if (files.some((file) => source(file).includes("'playwright-core'")) && !fs.existsSync(CHROMIUM))
		missing.push('chromium');
	if (files.some((file) => /scripts\/queue(\.js)?'/.test(source(file))))
		missing.push(...queue.missingQueueTools());
	await installDebianPackages(missing);
}

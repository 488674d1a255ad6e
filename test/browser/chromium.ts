/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- test code runs in Node under jest, never inside n8n (it uses Node's own modules, timers, files and the environment); these rules guard the code n8n loads (nodes/, credentials/) */
/**
 * Debian's chromium for the browser test: /usr/bin/chromium (or CHROMIUM_PATH). When it is
 * missing, it is installed with apt-get (about 35 s) when this process may do so; otherwise the
 * caller skips, loudly, and CI fails.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

function banner(lines: string[]) {
	const rule = '!'.repeat(78);
	process.stderr.write(`\n${rule}\n${lines.map((line) => `!! ${line}`).join('\n')}\n${rule}\n\n`);
}

export function ensureChromium(): string | undefined {
	if (fs.existsSync(CHROMIUM)) return CHROMIUM;
	const root = typeof process.getuid === 'function' && process.getuid() === 0;
	const apt = fs.existsSync('/usr/bin/apt-get');
	if (root && apt) {
		process.stderr.write(
			'[browser test] Chromium is missing: installing Debian chromium with apt-get (about a minute)…\n',
		);
		try {
			const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
			execFileSync('apt-get', ['update'], { stdio: ['ignore', 'ignore', 'inherit'], env });
			execFileSync(
				'apt-get',
				['-o', 'DPkg::Lock::Timeout=600', 'install', '-y', '--no-install-recommends', 'chromium'],
				{ stdio: ['ignore', 'ignore', 'inherit'], env },
			);
		} catch (error) {
			banner([`Installing chromium failed: ${(error as Error).message.split('\n')[0]}`]);
		}
		if (fs.existsSync(CHROMIUM)) return CHROMIUM;
	}
	banner([
		'BROWSER TEST SKIPPED: Chromium is not installed and could not be installed here',
		`(${root ? '' : 'not root; '}${apt ? '' : 'no apt-get; '}looked for ${CHROMIUM}).`,
		'Install it with `sudo apt-get install -y chromium` (or set CHROMIUM_PATH) and run `npm test` again.',
		'Under CI this is a failure.',
	]);
	return undefined;
}

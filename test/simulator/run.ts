/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- test code runs in Node under jest, never inside n8n: it runs the simulator's command line as a child process */
/**
 * The simulator's command line (cli.ts) run from a jest suite, in a child process of its own: it
 * replaces that process's timers, clock and randomness with seeded ones, which jest's own must
 * not meet.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';

import type { Summary } from './cli';

const ROOT = path.resolve(__dirname, '..', '..');

/** The random schedules `npm test` runs of the whole world (simulator.test.ts); the long runs are in docs/testing.md. */
export const SCHEDULES_IN_NPM_TEST = 400;

/** Runs the simulator's command line; its summary, and what it printed for a failure. */
export async function simulate(...args: string[]): Promise<Summary & { printed: string }> {
	return await new Promise((resolve, reject) => {
		execFile(
			process.execPath,
			['--import', 'tsx', path.join(__dirname, 'cli.ts'), ...args, '--json'],
			{ cwd: ROOT, maxBuffer: 256 * 1024 * 1024 },
			(error, stdout, stderr) => {
				const last = stdout.trim().split('\n').pop() ?? '';
				try {
					resolve({ ...(JSON.parse(last) as Summary), printed: stdout.slice(0, 20000) });
				} catch {
					reject(
						new Error(
							`the simulator ended without its summary (${error?.message ?? 'no error'}): ${stderr.slice(-3000)}${stdout.slice(-3000)}`,
						),
					);
				}
			},
		);
	});
}

/** The schedules that broke a promise, as the simulator printed them. */
export const brokenOf = (summary: Summary & { printed: string }) =>
	summary.failed.length === 0 ? [] : [summary.printed];

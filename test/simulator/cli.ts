/* eslint-disable @n8n/community-nodes/no-restricted-globals -- the simulator's command line runs in Node, never inside n8n */
/**
 * `npm run simulate -- --schedules N --seed S [--processes P] [--break-timing] [--verbose]`:
 * runs N seeded schedules from seed S on (schedule.ts) and prints each failing schedule's seed,
 * what broke and its steps. Exit code 1 when a schedule broke a promise.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { reports, traceStoreSteps } from './reports';
import { TOLERATED_ACROSS_PROCESSES } from './invariants';
import { runSchedule } from './schedule';
import type { ScheduleOptions } from './schedule';
import { useCodeFrom } from './world';

function argument(name: string): string | undefined {
	const at = process.argv.indexOf(`--${name}`);
	return at >= 0 ? process.argv[at + 1] : undefined;
}

async function main() {
	const schedules = Number(argument('schedules') ?? 200);
	const first = Number(argument('seed') ?? 1);
	const options: ScheduleOptions = { breakTiming: process.argv.includes('--break-timing'), trace: process.argv.includes('--trace') };
	if (argument('processes')) options.processes = Number(argument('processes'));
	if (argument('operation')) options.operation = argument('operation') as ScheduleOptions['operation'];
	const verbose = process.argv.includes('--verbose');
	if (process.argv.includes('--trace')) traceStoreSteps();
	const code = argument('code');
	if (code) useCodeFrom(extract(code));
	const report = argument('report');
	const run = report ? async (seed: number) => ({ ...(await reports[Number(report)].run(seed)), config: `report ${report}: ${reports[Number(report)].title}`, timingBroken: false }) : async (seed: number) => await runSchedule(seed, options);
	if (report && !reports[Number(report)]) throw new Error(`No report ${report}: 1 to ${Object.keys(reports).length}`);
	const started = Date.now();
	const broken = new Map<string, number[]>();
	let failed = 0;
	for (let seed = first; seed < first + schedules; seed++) {
		const result = await run(seed);
		const failures = result.violations.filter((violation) => !(TOLERATED_ACROSS_PROCESSES.includes(violation.invariant) && result.world.processes.size > 1));
		if (failures.length === 0 && !verbose) {
			for (const violation of result.violations) broken.set(violation.invariant, [...(broken.get(violation.invariant) ?? []), seed]);
			continue;
		}
		if (failures.length > 0) failed++;
		for (const violation of result.violations) broken.set(violation.invariant, [...(broken.get(violation.invariant) ?? []), seed]);
		if (failed <= 5 || verbose) {
			console.log(`\nseed ${seed} (${result.config}): ${result.violations.length ? result.violations.map((violation) => `${violation.invariant}: ${violation.detail}`).join('\n  ') : 'all promises kept'}`);
			for (const step of result.world.steps) console.log(`  ${String(step.at - 1_700_000_000_000).padStart(6)} ms  ${step.what}`);
		}
	}
	const seconds = ((Date.now() - started) / 1000).toFixed(1);
	console.log(`\n${schedules} schedules from seed ${first} in ${seconds} s: ${failed} broke a promise`);
	for (const [invariant, seeds] of broken) console.log(`  ${invariant}${TOLERATED_ACROSS_PROCESSES.includes(invariant as never) ? ' (tolerated across processes)' : ''}: ${seeds.length} (seeds ${seeds.slice(0, 12).join(', ')}${seeds.length > 12 ? ', …' : ''})`);
	process.exitCode = failed > 0 ? 1 : 0;
}

/** The node's code of a git revision, in a folder of its own (for a run against an earlier record). */
function extract(revision: string): string {
	const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'payouts-sim-code-'));
	const archive = execFileSync('git', ['archive', revision, 'nodes', 'credentials'], { cwd: path.resolve(__dirname, '..', '..'), maxBuffer: 64 * 1024 * 1024 });
	execFileSync('tar', ['-x', '-C', folder], { input: archive });
	console.log(`the node's code of ${revision}, from ${folder}`);
	return folder;
}

main().catch((error) => {
	console.error(error);
	process.exitCode = 2;
});

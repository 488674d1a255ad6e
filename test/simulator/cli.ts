/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions, no-console -- the simulator's command line runs in Node, never inside n8n: it reads its arguments, extracts an earlier revision's code with git and prints what it found */
/**
 * `npm run simulate -- --schedules N --seed S [--processes P] [--operation standardTransfer]
 * [--break-timing] [--report R] [--code REV] [--trace] [--verbose] [--json]`: runs N seeded
 * schedules from seed S (schedule.ts), or report R's script (reports.ts) with N seeds, on this
 * checkout's node code or on git revision REV's, and prints each failing schedule's seed, what
 * broke and its steps (`--trace`: every database step too). A schedule replays exactly from its
 * seed. Exit code 1 when a schedule broke a promise; `--json` ends with a summary line of JSON.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { breaksPromise, TOLERATED_ACROSS_PROCESSES, TOLERATED_WITH_CAUSE } from './invariants';
import type { Violation } from './invariants';
import { reports, traceStoreSteps } from './reports';
import { runSchedule } from './schedule';
import type { ScheduleOptions } from './schedule';
import { useCodeFrom } from './world';

/** What a run of the simulator found, for people (printed) and for the test (`--json`). */
export interface Summary {
	schedules: number;
	seconds: number;
	/** Schedules that broke a promise (tolerated kinds across processes do not count). */
	failed: Array<{ seed: number; config: string; processes: number; timingBroken: boolean; violations: Violation[] }>;
	/** Violations by kind, tolerated ones included: how many, and in which seeds. */
	byInvariant: Record<string, number[]>;
	/** The violations counted with their cause (not failures), as printed. */
	counted: Array<{ seed: number; details: string[] }>;
}

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
	if (options.trace) traceStoreSteps();
	const code = argument('code');
	if (code) useCodeFrom(extract(code));
	const report = argument('report');
	if (report && !reports[Number(report)]) throw new Error(`No report ${report}: 1 to ${Object.keys(reports).length}`);
	const run = report
		? async (seed: number) => ({ ...(await reports[Number(report)].run(seed)), config: `report ${report}: ${reports[Number(report)].title}`, timingBroken: false })
		: async (seed: number) => await runSchedule(seed, options);

	const started = Date.now();
	const summary: Summary = { schedules, seconds: 0, failed: [], byInvariant: {}, counted: [] };
	for (let seed = first; seed < first + schedules; seed++) {
		const result = await run(seed);
		const processes = result.world.processCount;
		const failures = result.violations.filter((violation) => breaksPromise(violation, processes));
		for (const violation of result.violations) (summary.byInvariant[violation.invariant] ??= []).push(seed);
		const counted = result.violations.filter((violation) => TOLERATED_WITH_CAUSE.includes(violation.invariant));
		if (counted.length > 0) summary.counted.push({ seed, details: counted.map((violation) => violation.detail) });
		if (failures.length > 0) summary.failed.push({ seed, config: result.config, processes, timingBroken: result.timingBroken, violations: result.violations });
		if ((failures.length > 0 && summary.failed.length <= 5) || verbose) {
			console.log(`\nseed ${seed} (${result.config}): ${result.violations.length ? result.violations.map((violation) => `${violation.invariant}: ${violation.detail}`).join('\n  ') : 'all promises kept'}`);
			for (const step of result.world.steps) console.log(`  ${String(step.at - 1_700_000_000_000).padStart(6)} ms  ${step.what}`);
		}
	}
	summary.seconds = Math.round((Date.now() - started) / 100) / 10;
	console.log(`\n${schedules} schedules from seed ${first} in ${summary.seconds} s: ${summary.failed.length} broke a promise`);
	for (const [invariant, seeds] of Object.entries(summary.byInvariant)) {
		const tolerated = TOLERATED_WITH_CAUSE.includes(invariant as Violation['invariant']) ? ' (counted with its cause)' : TOLERATED_ACROSS_PROCESSES.includes(invariant as Violation['invariant']) ? ' (tolerated across processes)' : '';
		console.log(`  ${invariant}${tolerated}: ${seeds.length} (seeds ${seeds.slice(0, 12).join(', ')}${seeds.length > 12 ? ', …' : ''})`);
	}
	if (process.argv.includes('--json')) console.log(JSON.stringify(summary));
	process.exitCode = summary.failed.length > 0 ? 1 : 0;
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

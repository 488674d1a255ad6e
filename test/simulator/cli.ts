/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions, no-console -- the simulator's command line runs in Node, never inside n8n: it reads its arguments, extracts an earlier revision's code with git and prints what it found */
/**
 * `npm run simulate -- --schedules N --seed S [--processes P] [--operation O] [--report R]
 * [--code REV] [--path P] [--trace] [--verbose] [--json]`: runs N random schedules (schedule.ts,
 * fast-check from seed S), or report R's script (reports.ts) with N seeds (R may name several, comma-separated), on this checkout's
 * package code or on git revision REV's. A schedule that breaks a promise is shrunk to its shortest
 * form and printed with every step; `--seed S --path P` (both printed) replays it. Exit code 1 when
 * a schedule broke a promise; `--json` ends with a summary line of JSON. `N8N_ENGINE_FROM=<an
 * installed n8n>` runs that n8n's engine (test/helpers/engineFrom.js).
 */
import './engine';

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import fc from 'fast-check';

import { loadN8nCode } from '../../harness/n8nRetry';
import { breaksPromise, kills, NAMED_EXCEPTIONS } from './invariants';
import type { Violation } from './invariants';
import { reports, traceStoreSteps } from './reports';
import { runSchedule, scheduleArbitrary } from './schedule';
import type { ScheduleOptions } from './schedule';
import { useCodeFrom } from './world';
import type { World } from './world';

/** What a run of the simulator found, for people (printed) and for the tests (`--json`). */
export interface Summary {
	schedules: number;
	seconds: number;
	/** Schedules that broke a promise: fast-check's seed and path to replay the shortest one, and what it broke. */
	failed: Array<{
		seed: number;
		path?: string;
		report?: string;
		config: string;
		violations: Violation[];
	}>;
	/** With `--report`: how many seeds each report ran. */
	runsOf: Record<string, number>;
	/** Violations by kind, named exceptions included: how many schedules had one. */
	byInvariant: Record<string, number>;
	/** The named exceptions' details, as counted. */
	counted: string[];
	/** Kills of n8n in all schedules, and the most payouts one execution a kill ended left in doubt. */
	kills: number;
	mostLeftByAKill: number;
}

function argument(name: string): string | undefined {
	const at = process.argv.indexOf(`--${name}`);
	return at >= 0 ? process.argv[at + 1] : undefined;
}

function printWorld(
	world: World,
	violations: Violation[],
	config: string,
	decisions: string[] = [],
) {
	console.log(
		`\n${config}\n  ${violations.length ? violations.map((violation) => `${violation.invariant}: ${violation.detail}`).join('\n  ') : 'all promises kept'}`,
	);
	for (const step of world.steps)
		console.log(`  ${String(step.at - 1_700_000_000_000).padStart(7)} ms  ${step.what}`);
	for (const decision of decisions) console.log(`  user: ${decision}`);
}

async function main() {
	// n8n's own Retry code, loaded (and n8n installed, if need be) before a world's virtual clock owns the timers.
	await loadN8nCode();
	const schedules = Number(argument('schedules') ?? 200);
	const seed = Number(argument('seed') ?? 1);
	const options: ScheduleOptions = {};
	if (argument('processes')) options.processes = Number(argument('processes'));
	if (argument('operation'))
		options.operation = argument('operation') as ScheduleOptions['operation'];
	const trace = process.argv.includes('--trace');
	if (trace) traceStoreSteps();
	const verbose = process.argv.includes('--verbose');
	const code = argument('code');
	if (code) useCodeFrom(extract(code));
	const started = Date.now();
	const summary: Summary = {
		schedules,
		seconds: 0,
		failed: [],
		runsOf: {},
		byInvariant: {},
		counted: [],
		kills: 0,
		mostLeftByAKill: 0,
	};
	const countKills = (world: World) => {
		const found = kills(world);
		summary.kills += found.kills;
		summary.mostLeftByAKill = Math.max(summary.mostLeftByAKill, ...found.leftPerKilledExecution);
	};
	const count = (violations: Violation[]) => {
		for (const kind of new Set(violations.map((violation) => violation.invariant)))
			summary.byInvariant[kind] = (summary.byInvariant[kind] ?? 0) + 1;
		summary.counted.push(
			...violations
				.filter((violation) => NAMED_EXCEPTIONS.includes(violation.invariant))
				.map((violation) => `${violation.invariant}: ${violation.detail}`),
		);
	};

	const report = argument('report');
	if (report) {
		// Several reports, comma-separated, run in this one process: n8n's code loads once.
		for (const name of report.split(',')) {
			const script = reports[name];
			if (!script) throw new Error(`No report ${name}: ${Object.keys(reports).join(', ')}`);
			summary.runsOf[name] = 0;
			for (let run = seed; run < seed + schedules; run++) {
				const result = await script.run(run);
				summary.runsOf[name] += 1;
				count(result.violations);
				countKills(result.world);
				const broken = result.violations.filter(breaksPromise);
				if (broken.length > 0)
					summary.failed.push({
						seed: run,
						report: name,
						config: `report ${name}: ${script.title}`,
						violations: result.violations,
					});
				if ((broken.length > 0 && summary.failed.length <= 3) || verbose)
					printWorld(
						result.world,
						result.violations,
						`report ${name} seed ${run}: ${script.title}`,
						result.decisions,
					);
			}
		}
	} else {
		const property = fc.asyncProperty(scheduleArbitrary(options), async (schedule) => {
			const result = await runSchedule(schedule, { trace });
			count(result.violations);
			countKills(result.world);
			if (verbose)
				printWorld(result.world, result.violations, result.config, result.user.decisions);
			const broken = result.violations.filter(breaksPromise);
			if (broken.length > 0)
				throw new Error(
					broken.map((violation) => `${violation.invariant}: ${violation.detail}`).join('\n'),
				);
		});
		const replay = argument('path');
		const found = await fc.check(property, {
			seed,
			numRuns: schedules,
			...(replay ? { path: replay } : {}),
			endOnFailure: false,
		});
		if (found.failed && found.counterexample) {
			const [schedule] = found.counterexample;
			const result = await runSchedule(schedule, { trace });
			summary.failed.push({
				seed: found.seed,
				path: found.counterexamplePath ?? undefined,
				config: result.config,
				violations: result.violations,
			});
			printWorld(
				result.world,
				result.violations,
				`seed ${found.seed}, path ${found.counterexamplePath} (replay: npm run simulate -- --seed ${found.seed} --path ${found.counterexamplePath} --schedules 1), shrunk ${found.numShrinks} times: ${result.config}`,
				result.user.decisions,
			);
		}
	}
	summary.seconds = Math.round((Date.now() - started) / 100) / 10;
	console.log(
		`\n${schedules} ${report ? `runs of report ${report}` : 'schedules'} from seed ${seed} in ${summary.seconds} s: ${summary.failed.length > 0 ? 'a promise broken' : 'no promise broken'}`,
	);
	if (summary.kills > 0)
		console.log(
			`  n8n killed ${summary.kills} times; the most payouts one killed execution left in doubt: ${summary.mostLeftByAKill}`,
		);
	for (const [invariant, times] of Object.entries(summary.byInvariant))
		console.log(
			`  ${invariant}${NAMED_EXCEPTIONS.includes(invariant as Violation['invariant']) ? ' (named exception, counted)' : ''}: in ${times} schedule(s)`,
		);
	if (process.argv.includes('--json')) console.log(JSON.stringify(summary));
	process.exitCode = summary.failed.length > 0 ? 1 : 0;
}

/** The package's code of a git revision, in a folder of its own (for a run against an earlier revision). */
function extract(revision: string): string {
	const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'payouts-sim-code-'));
	const archive = execFileSync('git', ['archive', revision, 'nodes', 'credentials'], {
		cwd: path.resolve(__dirname, '..', '..'),
		maxBuffer: 64 * 1024 * 1024,
	});
	execFileSync('tar', ['-x', '-C', folder], { input: archive });
	console.log(`the package's code of ${revision}, from ${folder}`);
	return folder;
}

main().catch((error) => {
	console.error(error);
	process.exitCode = 2;
});

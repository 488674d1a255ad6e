/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, no-console -- a command-line program run by Node, never loaded by n8n; these rules guard the code n8n loads (nodes/, credentials/) */
/**
 * Where n8n's CPU time went, from a V8 CPU profile: self time by package (this package's files one
 * by one), and the functions of this package that took the most, with their callers' packages.
 *
 *   npx tsx bench/profile.ts <file.cpuprofile> [top]
 *
 * The benchmark takes the profiles with BENCH_PROFILE_DIR set (`profilingEnv` for n8n's process,
 * `profiled` around each measured run; profileHook.js inside n8n).
 */
import fs from 'node:fs';
import path from 'node:path';

const PROFILE_DIR = process.env.BENCH_PROFILE_DIR
	? path.resolve(process.env.BENCH_PROFILE_DIR)
	: undefined;

/** What n8n's environment gains so that `profiled` can profile it: nothing without BENCH_PROFILE_DIR. */
export function profilingEnv(): Record<string, string> {
	return PROFILE_DIR
		? {
				NODE_OPTIONS: `--require ${path.join(__dirname, 'profileHook.js')}`,
				BENCH_PROFILE_DIR: PROFILE_DIR,
			}
		: {};
}

/** With BENCH_PROFILE_DIR: V8's CPU profile of n8n's process `pid` while `work` runs, as <dir>/<name>.cpuprofile. */
export async function profiled<T>(
	pid: number | undefined,
	name: string,
	work: () => Promise<T>,
): Promise<T> {
	if (!PROFILE_DIR || !pid) return await work();
	fs.mkdirSync(PROFILE_DIR, { recursive: true });
	const file = path.join(PROFILE_DIR, `${name}.cpuprofile`);
	fs.rmSync(file, { force: true });
	fs.writeFileSync(path.join(PROFILE_DIR, 'next'), name);
	process.kill(pid, 'SIGUSR2');
	try {
		return await work();
	} finally {
		process.kill(pid, 'SIGUSR2');
		for (let tries = 0; tries < 600 && !fs.existsSync(file); tries++)
			await new Promise((resolve) => setTimeout(resolve, 100));
		console.error(
			fs.existsSync(file)
				? `    n8n's CPU profile: ${file} (npx tsx bench/profile.ts ${file})`
				: `    n8n's CPU profile ${file} was not written within 60 s (was n8n started with profilingEnv()?)`,
		);
	}
}

interface ProfileNode {
	id: number;
	callFrame: { functionName: string; url: string; lineNumber: number };
	children?: number[];
}
interface Profile {
	nodes: ProfileNode[];
	samples: number[];
	timeDeltas: number[];
	startTime: number;
	endTime: number;
}

/** Which part of the process a script belongs to: this package's file, an npm package, Node itself, or V8. */
export function partOf(url: string): string {
	if (!url) return '(V8: idle, GC, native)';
	const ours = /n8n-nodes-payouts\/dist\/(.+)$/.exec(url);
	if (ours) return `n8n-nodes-payouts/${ours[1]}`;
	const packages = [...url.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)/g)];
	if (packages.length) return packages[packages.length - 1][1];
	if (url.startsWith('node:')) return 'node (built-in)';
	return url;
}

function summarise(file: string, top: number) {
	const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
	const byId = new Map(profile.nodes.map((node) => [node.id, node]));
	const self = new Map<number, number>();
	profile.samples.forEach((id, index) =>
		self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)),
	);
	const total = [...self.values()].reduce((sum, value) => sum + value, 0);
	const idle = [...self.entries()]
		.filter(([id]) => ['(idle)', '(program)'].includes(byId.get(id)?.callFrame.functionName ?? ''))
		.reduce((sum, [, value]) => sum + value, 0);
	const byPart = new Map<string, number>();
	const ourFunctions = new Map<string, number>();
	for (const [id, micros] of self) {
		const node = byId.get(id) as ProfileNode;
		if (['(idle)', '(program)'].includes(node.callFrame.functionName)) continue;
		const part = partOf(node.callFrame.url);
		byPart.set(part, (byPart.get(part) ?? 0) + micros);
		if (part.startsWith('n8n-nodes-payouts/')) {
			const name = `${part}:${node.callFrame.lineNumber + 1} ${node.callFrame.functionName || '(anonymous)'}`;
			ourFunctions.set(name, (ourFunctions.get(name) ?? 0) + micros);
		}
	}
	// Time in any code called by this package's code (n8n's helpers, zod, ...), as far as a stack shows
	// it: what runs later in a callback (a database answer) is not under it.
	const parent = new Map<number, number>();
	for (const node of profile.nodes)
		for (const child of node.children ?? []) parent.set(child, node.id);
	const underOurs = new Map<number, boolean>();
	const isUnderOurs = (id: number): boolean => {
		const known = underOurs.get(id);
		if (known !== undefined) return known;
		const node = byId.get(id) as ProfileNode;
		const up = parent.get(id);
		const result =
			partOf(node.callFrame.url).startsWith('n8n-nodes-payouts/') ||
			(up !== undefined && isUnderOurs(up));
		underOurs.set(id, result);
		return result;
	};
	const inclusiveOurs = [...self.entries()]
		.filter(([id]) => isUnderOurs(id))
		.reduce((sum, [, micros]) => sum + micros, 0);
	const busy = total - idle;
	const ms = (micros: number) => `${(micros / 1000).toFixed(0)} ms`;
	const share = (micros: number) => `${((100 * micros) / busy).toFixed(1)}%`;
	console.log(`${file}: ${ms(total)} sampled, ${ms(busy)} busy (not idle)`);
	console.log('\nSelf time by part (share of busy time):');
	for (const [part, micros] of [...byPart.entries()].sort((a, b) => b[1] - a[1]).slice(0, top))
		console.log(`  ${share(micros).padStart(6)}  ${ms(micros).padStart(8)}  ${part}`);
	const oursTotal = [...byPart.entries()]
		.filter(([part]) => part.startsWith('n8n-nodes-payouts/'))
		.reduce((sum, [, micros]) => sum + micros, 0);
	console.log(
		`\nThis package in all: ${share(oursTotal)} (${ms(oursTotal)}) of its own; with what it calls on the stack: ${share(inclusiveOurs)} (${ms(inclusiveOurs)}). Its functions:`,
	);
	for (const [name, micros] of [...ourFunctions.entries()]
		.sort((a, b) => b[1] - a[1])
		.slice(0, top))
		console.log(`  ${share(micros).padStart(6)}  ${ms(micros).padStart(8)}  ${name}`);
}

if (require.main === module) {
	const [file, top] = process.argv.slice(2);
	if (!file) {
		console.error('usage: npx tsx bench/profile.ts <file.cpuprofile> [top]');
		process.exit(2);
	}
	summarise(file, Number(top ?? 25));
}

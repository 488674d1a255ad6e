/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- the simulator runs in Node, never inside n8n: it loads the node's code once per simulated n8n process (Node's module cache) and replaces Math.random and crypto.randomUUID with seeded ones */
/**
 * The simulated world: n8n processes (regular mode is one, queue mode several) that each load the
 * node's real code afresh (its module state is the process's memory: a crash loses it), one n8n
 * database (store.ts, n8n's processed-data store), the payouts service (service.ts), a network
 * between them, and virtual time (clock.ts) that orders every database step, request, answer and
 * `sleep` by a seed.
 *
 * An execution is the Payouts Transfer node's own `execute` with a context that gives it what n8n
 * gives a node: parameters (with `{{ $json.field }}` expressions), items, the credential, the
 * processed-data helpers bound to its workflow and node, HTTP helpers (the network), and the
 * execution's cancel signal (Stop).
 */
import crypto from 'node:crypto';
import path from 'node:path';
import vm from 'node:vm';

import { buildSync } from 'esbuild';

import type { ICheckProcessedContextData, IDataObject, INodeExecutionData } from 'n8n-workflow';

import { internalTransfer } from '../../nodes/PayoutsTransfer/operations/internalTransfer';
import { VirtualClock } from './clock';
import type { Attempt, Fault } from './service';
import { PayoutsServiceModel } from './service';
import { ProcessedDataModel } from './store';
import type { StoreCall } from './store';

const ROOT = path.resolve(__dirname, '..', '..');
export const WORKFLOW_ID = 'simWorkflow1';
export const NODE_ID = 'sim-payouts-node';

/** A small, fast, seeded random source (mulberry32). */
export class Random {
	private state: number;
	constructor(seed: number) {
		this.state = seed >>> 0;
	}
	next(): number {
		this.state = (this.state + 0x6d2b79f5) >>> 0;
		let t = this.state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	}
	int(min: number, max: number): number {
		return min + Math.floor(this.next() * (max - min + 1));
	}
	chance(p: number): boolean {
		return this.next() < p;
	}
	pick<T>(list: readonly T[]): T {
		return list[Math.floor(this.next() * list.length)];
	}
}

/** How long the world's parts take, and what goes wrong, per schedule. */
export interface Timing {
	/** A database step (read or write), in ms: drawn per step. */
	storeStep: (random: Random) => number;
	/** One way of a request or answer over the network, in ms. */
	network: (random: Random) => number;
	/** What becomes of a request. */
	fault: (random: Random) => Fault;
}

export interface NodeSettings {
	operation: 'internalTransfer' | 'standardTransfer';
	concurrency: number;
	queueModeSafety?: boolean;
	serviceRefusesRepeats?: boolean;
	/** The node's Timeout option, ms (at least 1000). */
	timeout?: number;
}

/** One row of an execution's input: a top-up (key) or a standard transfer (transferId). */
export interface Row {
	key: string;
	amount: string;
	to: string;
	dashboardStatus?: string;
}

export interface RowOutcome {
	key: string;
	status: string;
	transferId?: string;
	message?: string;
	hint?: string;
	realRun?: string;
	json: IDataObject;
}

export interface ExecutionRecord {
	id: string;
	process: string;
	rows: Row[];
	dryRun: boolean;
	startedAt: number;
	endedAt?: number;
	/** Per row, in input order (an execution that stopped with an error has none). */
	outcomes?: RowOutcome[];
	error?: { message: string; description?: string };
	stoppedAt?: number;
	/** The process crashed before the execution ended. */
	crashed?: boolean;
}

export type Step = { at: number; what: string };

interface SimProcess {
	id: string;
	name: string;
	alive: boolean;
	crashedAt?: number;
	/** The node class as this process loaded it. */
	node: { execute(this: unknown): Promise<INodeExecutionData[][]> };
	executions: ExecutionRecord[];
}

export class World {
	readonly clock = new VirtualClock();
	readonly store: ProcessedDataModel;
	readonly service = new PayoutsServiceModel();
	readonly random: Random;
	readonly processes = new Map<string, SimProcess>();
	readonly executions: ExecutionRecord[] = [];
	readonly steps: Step[] = [];
	/** The settling rounds' outcomes (schedule.ts), and the rows still not paid after them. */
	readonly settled = new Map<number, RowOutcome[]>();
	leftUnsettled?: Row[];
	/** Every database step in the log (cli.ts --trace). */
	traceStore = false;
	/** A script's own fault for a request (else the schedule's random one). */
	faultOf?: (transferId: string) => Fault | undefined;
	private executionCount = 0;
	private restored?: () => void;

	constructor(
		seed: number,
		readonly timing: Timing,
		readonly settings: NodeSettings,
	) {
		this.random = new Random(seed);
		this.store = new ProcessedDataModel(async (step, call) => {
			await this.clock.sleep(this.timing.storeStep(this.random));
			if (this.traceStore) this.log(`  ${call.by} ${call.kind} ${step}${step === 'findOne' ? '' : ` [${call.values.map((value) => value.replace(/:([0-9a-f]{8})[0-9a-f]{56}/g, ':$1…').replace(/-([0-9a-f]{6})[0-9a-f]+/g, '-$1…')).join(' ')}]`}`);
		});
		this.store.now = () => this.clock.now;
		this.store.by = () => this.clock.owner;
	}

	/** Virtual time and seeded randomness for the code this world runs, until `close`. */
	open() {
		const random = Math.random;
		const uuid = crypto.randomUUID;
		this.clock.install();
		Math.random = () => this.random.next();
		let uuids = 0;
		crypto.randomUUID = (() => `00000000-0000-4000-8000-${String(++uuids).padStart(12, '0')}`) as typeof crypto.randomUUID;
		this.restored = () => {
			Math.random = random;
			crypto.randomUUID = uuid;
			this.clock.uninstall();
		};
	}

	close() {
		this.restored?.();
	}

	log(what: string) {
		this.steps.push({ at: this.clock.now, what });
	}

	/** Starts (or starts again after a crash) an n8n process: the node's code loaded afresh. */
	start(name: string): SimProcess {
		const generation = [...this.processes.values()].filter((process) => process.name === name).length;
		const id = `${name}#${generation + 1}`;
		const node = loadNodeAfresh();
		const process: SimProcess = { id, name, alive: true, node, executions: [] };
		this.processes.set(id, process);
		this.log(`${id} starts`);
		return process;
	}

	/** How many n8n processes ran side by side (a process started again after a crash is the same one). */
	get processCount(): number {
		return new Set([...this.processes.values()].map((process) => process.name)).size;
	}

	/** The live process of that name. */
	live(name: string): SimProcess | undefined {
		return [...this.processes.values()].find((process) => process.name === name && process.alive);
	}

	/** The process dies at once (SIGKILL): its memory is gone, its pending steps never happen. */
	crash(name: string) {
		const process = this.live(name);
		if (!process) return;
		process.alive = false;
		process.crashedAt = this.clock.now;
		this.clock.kill(process.id);
		for (const execution of process.executions) if (execution.endedAt === undefined) execution.crashed = true;
		this.log(`${process.id} crashes`);
	}

	/**
	 * Starts an execution of the node on a process now; returns its record (filled when it ends).
	 * `stopAfter`: the editor's Stop, that many ms after the start.
	 */
	execute(processName: string, rows: Row[], options: { dryRun?: boolean; stopAfter?: number; continueOnFail?: boolean } = {}): ExecutionRecord | undefined {
		const process = this.live(processName);
		if (!process) return undefined;
		const record: ExecutionRecord = { id: `e${++this.executionCount}`, process: process.id, rows, dryRun: options.dryRun === true, startedAt: this.clock.now };
		this.executions.push(record);
		process.executions.push(record);
		const cancel = new AbortController();
		if (options.stopAfter !== undefined) {
			this.clock.after(options.stopAfter, () => {
				if (record.endedAt !== undefined) return;
				record.stoppedAt = this.clock.now;
				this.log(`${record.id} Stop pressed`);
				cancel.abort();
			}, 'world');
		}
		this.log(`${record.id} on ${process.id}: ${options.dryRun ? 'dry run of ' : ''}${rows.map((row) => `${row.key}:${row.amount}${row.dashboardStatus ? `[${row.dashboardStatus}]` : ''}`).join(' ')}${options.stopAfter !== undefined ? ` (Stop after ${options.stopAfter} ms)` : ''}`);
		const context = this.contextFor(process, record, cancel.signal, options.continueOnFail !== false);
		// The execution's code runs as its process: what it waits for dies with it.
		this.clock.after(0, () => {
			process.node.execute
				.call(context)
				.then((output) => {
					record.outcomes = output[0].map((item, index) => outcomeOf(rows[index], item.json));
				})
				.catch((error: Error & { description?: string }) => {
					record.error = { message: error.message, description: error.description };
				})
				.finally(() => {
					record.endedAt = this.clock.now;
					this.log(`${record.id} ends: ${record.error ? `error ${record.error.message}` : (record.outcomes ?? []).map((outcome) => `${outcome.key}=${outcome.status}`).join(' ')}`);
				});
		}, process.id);
		return record;
	}

	private contextFor(process: SimProcess, record: ExecutionRecord, signal: AbortSignal, continueOnFail: boolean) {
		const { settings } = this;
		const items: INodeExecutionData[] = record.rows.map((row) => ({ json: { ...row } }));
		const parameters: IDataObject = settings.operation === 'internalTransfer'
			? { operation: 'internalTransfer', amount: '={{ $json.amount }}', rechargeAccount: '={{ $json.to }}', topUpKey: '={{ $json.key }}', additionalFields: {} }
			: { operation: 'standardTransfer', beneId: '={{ $json.to }}', amount: '={{ $json.amount }}', transferId: '={{ $json.key }}', transferMode: 'banktransfer', additionalFields: {} };
		parameters.options = {
			concurrency: settings.concurrency,
			timeout: settings.timeout ?? 1000,
			dryRun: record.dryRun,
			dashboardStatus: '={{ $json.dashboardStatus }}',
			...(settings.operation === 'internalTransfer' ? { queueModeSafety: settings.queueModeSafety ?? true, serviceRefusesRepeats: settings.serviceRefusesRepeats ?? false } : {}),
		};
		const node = { id: NODE_ID, name: 'Payouts Transfer', type: 'n8n-nodes-payouts.payoutsTransfer', typeVersion: 1, position: [0, 0] as [number, number], parameters, onError: continueOnFail ? ('continueRegularOutput' as const) : undefined };
		const contextData = { node, workflow: { id: WORKFLOW_ID, active: true } } as unknown as ICheckProcessedContextData;
		const valueOf = (name: string, index: number, raw: boolean): unknown => {
			const value = name.split('.').reduce<unknown>((at, part) => (at as IDataObject | undefined)?.[part], parameters);
			if (raw || typeof value !== 'string') return value;
			const field = /^=\{\{\s*\$json\.(\w+)\s*\}\}$/.exec(value)?.[1];
			return field === undefined ? value : items[index]?.json[field];
		};
		return {
			getNode: () => node,
			getNodeParameter: (name: string, index: number, fallback?: unknown, options?: { rawExpressions?: boolean }) => valueOf(name, index, options?.rawExpressions === true) ?? fallback,
			getInputData: () => items,
			// A made-up credential: the simulated service checks none.
			// eslint-disable-next-line @n8n/community-nodes/no-hardcoded-secrets
			getCredentials: async () => ({ baseUrl: 'https://payouts.sim.example', accessToken: 'sim-access-token-1234' }),
			continueOnFail: () => continueOnFail,
			getWorkflow: () => ({ id: WORKFLOW_ID, name: 'Simulated', active: true }),
			getMode: () => 'trigger',
			getExecutionId: () => record.id,
			getExecutionCancelSignal: () => signal,
			getWorkflowDataProxy: () => ({ $runIndex: 0 }),
			getTimezone: () => 'UTC',
			logger: { debug() {}, info() {}, error() {}, warn: (message: string) => this.log(`${record.id} warns: ${message}`) },
			helpers: {
				checkProcessedAndRecord: async (values: string[], scope: 'node' | 'workflow', options: object) => await this.store.checkProcessedAndRecord(values, scope, contextData, options as never),
				removeProcessed: async (values: string[], scope: 'node' | 'workflow', options: object) => await this.store.removeProcessed(values, scope, contextData, options as never),
				getProcessedDataCount: async (scope: 'node' | 'workflow', options: object) => await this.store.getProcessedDataCount(scope, contextData, options as never),
				clearAllProcessedItems: async (scope: 'node' | 'workflow') => await this.store.clearAllProcessedItems(scope, contextData),
				httpRequestWithAuthentication: async (_type: string, request: { url: string; body?: string; timeout?: number }) => await this.request(process, record, request),
				httpRequest: async (request: { url: string; body?: string; timeout?: number }) => await this.request(process, record, request),
			},
		};
	}

	/**
	 * The network: the request arrives after a delay (unless lost), the service answers, and the
	 * answer comes back after another (unless lost: the node then waits for its Timeout).
	 */
	private async request(process: SimProcess, record: ExecutionRecord, request: { url: string; body?: string; timeout?: number }): Promise<{ statusCode: number; body: string }> {
		const body = JSON.parse(request.body ?? '{}') as Record<string, unknown>;
		const fault = this.faultOf?.(String(body.transferId ?? '')) ?? this.timing.fault(this.random);
		const transferId = String(body.transferId ?? '');
		const attempt: Attempt = { transferId, body, by: process.id, execution: record.id, at: this.clock.now, answered: 'none', fault };
		this.service.attempted.push(attempt);
		const timeout = request.timeout ?? 30000;
		this.log(`${record.id} sends ${transferId} ${String(body.amount)} (${fault})`);
		return await new Promise((resolve, reject) => {
			const timedOut = this.clock.after(timeout, () => {
				attempt.settledAt = this.clock.now;
				reject(Object.assign(new Error(`timeout of ${timeout}ms exceeded`), { code: 'ECONNABORTED' }));
			});
			// On the wire: it arrives even if the sender dies meanwhile.
			this.clock.after(this.timing.network(this.random), () => {
				const answer = this.service.receive(request.url, body, fault, this.clock.now, process.id);
				this.log(`service receives ${transferId} from ${record.id}: ${answer ? `${answer.httpStatus} ${String(answer.body.message ?? '')}` : 'lost before'}`);
				if (!answer || fault === 'lostAfter' || fault === 'failsLater') return;
				this.clock.after(this.timing.network(this.random), () => {
					timedOut.cancelled = true;
					attempt.settledAt = this.clock.now;
					if (answer.httpStatus === 200) attempt.answered = 'paid';
					else if (answer.httpStatus < 500) attempt.answered = 'refused';
					resolve({ statusCode: answer.httpStatus, body: JSON.stringify(answer.body) });
				}, process.id);
			}, 'network');
		});
	}

	/** Lets the world run until nothing is left to happen. */
	async settle() {
		await this.clock.run();
	}

	/** The Transfer ID the node gives a row's key: a standard row's own; an internal row's made of its Top-Up Key (the node's own rule). */
	transferIdOf(key: string): string {
		if (this.settings.operation !== 'internalTransfer') return key;
		const made = internalTransfer.transferIdWhenEmpty?.({ topUpKey: key } as Parameters<NonNullable<typeof internalTransfer.transferIdWhenEmpty>>[0], { workflowId: WORKFLOW_ID, nodeId: NODE_ID, executionId: '', runIndex: 0, itemIndex: 0, payEveryRun: false });
		return made && 'transferId' in made ? made.transferId : key;
	}

	/** The store calls made so far. */
	get calls(): StoreCall[] {
		return this.store.calls;
	}
}

function outcomeOf(row: Row | undefined, json: IDataObject): RowOutcome {
	const error = typeof json.error === 'object' && json.error !== null ? (json.error as IDataObject) : undefined;
	const source = error ?? json;
	return {
		key: row?.key ?? '?',
		status: String(source.status ?? (json.dryRun ? 'DRY_RUN' : '?')),
		transferId: (source.transferId as string | undefined) ?? ((json.body as IDataObject | undefined)?.transferId as string | undefined),
		message: (source.message as string | undefined) ?? (typeof json.error === 'string' ? json.error : undefined),
		hint: source.hint as string | undefined,
		realRun: json.realRun as string | undefined,
		json,
	};
}

/**
 * The Payouts Transfer node as a new n8n process loads it: the package's code built once into one
 * module (as n8n loads the built package; n8n-workflow, zod and luxon stay n8n's, shared), and run
 * afresh for each process, so that what the node keeps in memory (its journals, answers, turns)
 * is that process's alone.
 */
let built: vm.Script | undefined;
let codeRoot = ROOT;
/** Where the node's code is read from: this checkout, or another revision's extracted files (cli.ts --code). */
export function useCodeFrom(root: string) {
	codeRoot = root;
	built = undefined;
}
function loadNodeAfresh(): SimProcess['node'] {
	built ??= new vm.Script(`(function (exports, require, module) {${buildNode()}\n})`, { filename: 'payouts-transfer.sim.js' });
	const module = { exports: {} as { PayoutsTransfer: new () => SimProcess['node'] } };
	(built.runInThisContext() as (exports: object, require: NodeRequire, module: object) => void)(module.exports, require, module);
	return new module.exports.PayoutsTransfer();
}

/** The node's code, bundled as tsc would compile it: one CommonJS module. */
export function buildNode(): string {
	const result = buildSync({
		entryPoints: [path.join(codeRoot, 'nodes', 'PayoutsTransfer', 'PayoutsTransfer.node.ts')],
		nodePaths: [path.join(ROOT, 'node_modules')],
		bundle: true,
		platform: 'node',
		format: 'cjs',
		target: 'node20',
		write: false,
		external: ['n8n-workflow', 'zod', 'luxon', 'crypto'],
		logLevel: 'silent',
	});
	return result.outputFiles[0].text;
}

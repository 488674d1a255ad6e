/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- the simulator runs in Node, never inside n8n: it loads the node's code once per simulated n8n process (a fresh module scope) and replaces Math.random and crypto.randomUUID with seeded ones */
/**
 * The simulated world: n8n processes (regular mode is one, queue mode several) that each load the
 * package's code afresh (its module state is the process's memory: a crash loses it) and run
 * workflows through n8n's own engine (n8n.ts), one n8n database (harness/processedDataModel.ts, n8n's processed-data
 * store), the payouts service (service.ts), a network between them, and virtual time (clock.ts)
 * that orders every database step, request, answer and timer by a seed.
 *
 * The workflow is what a user builds: a Payouts Transfer node ("Pay") whose parameters map the
 * rows' columns, and, where the user added one, a retry branch: a second Payouts Transfer node
 * ("Pay Again", the same parameters) on Pay's error output. With Claim Held by an Earlier Step,
 * a claims table before the node, as the template's Postgres insert (one execution wins a
 * Transfer ID; a clear ERROR gives it back; an unknown outcome keeps it).
 *
 * Every payout has an account of its own (`to`): the ledger's bookings say whose they are, under
 * whatever Transfer ID the user gave them.
 */
import crypto from 'node:crypto';
import path from 'node:path';
import vm from 'node:vm';

import { buildSync } from 'esbuild';
import type {
	IConnections,
	IDataObject,
	INode,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IRun,
} from 'n8n-workflow';

import { VirtualClock } from './clock';
import { nodeTypesOf, outputsOf, runAs, runInN8n, serve, WireError } from './n8n';
import type { EngineRun, WireAnswer, WireRequest } from './n8n';
import type { Operation, ServiceDecision } from './service';
import { PayoutsServiceModel } from './service';
import type { NodeSetup } from './settings';
import { retryInN8n } from '../../harness/n8nRetry';
import { ProcessedDataModel } from '../../harness/processedDataModel';
import type { StoreCall } from '../../harness/processedDataModel';

const ROOT = path.resolve(__dirname, '..', '..');
export const WORKFLOW_ID = 'simWorkflow1';
/** A made-up bearer token: the simulated service checks none. */
const SIM_TOKEN = ['sim', 'token'].join('-');
export const NODE_TYPE = 'n8n-nodes-payouts.payoutsTransfer';
export const PAY = { id: 'sim-pay-node', name: 'Pay' };
export const PAY_AGAIN = { id: 'sim-pay-again-node', name: 'Pay Again' };
/** Where the rows come from (a sheet, a webhook): a node that passes its items on, as n8n's own do. */
export const ROWS = { id: 'sim-rows-node', name: 'Rows', type: 'sim.rows' };
const rowsNode: INodeType = {
	description: {
		displayName: 'Rows',
		name: 'rows',
		group: ['input'],
		version: 1,
		description: 'The rows',
		defaults: { name: 'Rows' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [],
	} as unknown as INodeTypeDescription,
	async execute() {
		return [
			(this as unknown as { getInputData(): INodeExecutionData[] })
				.getInputData()
				.map((item, index) => ({ json: item.json, pairedItem: { item: index } })),
		];
	},
};

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

/** What happens to a request on the wire. */
export type Fault =
	| 'none'
	| 'lostBefore'
	| 'lostAfter'
	| 'error5xxBefore'
	| 'error5xxAfter'
	| 'slow';

/** How long the world's parts take and what goes wrong, per schedule. */
export interface Timing {
	/** A database step (read or write), in ms. */
	storeStep: (random: Random) => number;
	/** One way of a request or answer over the network, in ms. */
	network: (random: Random) => number;
	fault: (random: Random) => Fault;
	/** What the service does with a transfer request it takes. */
	decision: (random: Random, operation: Operation) => ServiceDecision;
	/** How long a PENDING booking takes to settle at the bank, and whether it pays. */
	bank: (random: Random) => { afterMs: number; pays: boolean };
}

/** How the rows name their transfer (internal: Top-Up Key, Transfer ID, or Pay Again on Every Run; card and standard: Transfer ID). */
export type KeyMode = 'topUpKey' | 'transferId' | 'payEveryRun';

/** The workflow the user built. */
export interface WorkflowSetup {
	operation: Operation;
	keyMode: KeyMode;
	pay: NodeSetup;
	/** A second Payouts Transfer node on Pay's error output. */
	payAgain?: NodeSetup;
}

/** What a user means: a payee and an amount. */
export interface Payout {
	id: string;
	amount: string;
	/** The payout's own account, beneficiary or card: whose a booking is. */
	to: string;
}

/** One row of an execution's input: a payout under a key, and what the dashboard says of it where the user mapped it. */
export interface Row {
	payout: string;
	key: string;
	amount: string;
	to: string;
	dashboardStatus?: string;
}

export interface RowOutcome {
	row: Row;
	/** The node that said it (Pay or Pay Again). */
	node: string;
	status: string;
	transferId?: string;
	message?: string;
	hint?: string;
	nextStep?: string;
	json: IDataObject;
}

export interface ExecutionRecord {
	id: string;
	process: string;
	/** The saved workflow it ran (a copy of the workflow is another). */
	workflowId: string;
	rows: Row[];
	/** The rows that reached the engine (past the claims table, where there is one), in input order. */
	engineRows?: Row[];
	dryRun: boolean;
	mode: 'manual' | 'webhook' | 'retry';
	/** n8n's Retry: the failed execution it retried. */
	retryOf?: string;
	/** Whose claims in the claims table it writes the outcome of: its own, or (a retry) the first execution's. */
	claimsOf?: string;
	/** What n8n saved of an execution that ended with an error, for its Retry. */
	saved?: IRun;
	/** A retry's: each node's runs in the retried execution's data, which are not this execution's. */
	runsBefore?: Record<string, number>;
	startedAt: number;
	endedAt?: number;
	/** Per row that an output names (an execution that stopped with an error may have none). */
	outcomes: RowOutcome[];
	error?: { message: string; description?: string; itemIndex?: number; nothingSent?: boolean };
	stoppedAt?: number;
	crashed?: boolean;
	/** Rows a claims table before the node kept from it (Claim Held by an Earlier Step), with the claim's word. */
	claimAnswers: Array<{ row: Row; answer: string }>;
}

/** A request the node started: when, what became of it, and what answer reached the node. */
export interface Attempt {
	id: number;
	transferId: string;
	operation: Operation;
	body: Record<string, unknown>;
	by: string;
	execution: string;
	at: number;
	fault: Fault;
	/** Whether it reached the service, and whether the service booked it. */
	arrived: boolean;
	booked: boolean;
	answered: 'paid' | 'refused' | 'none';
	settledAt?: number;
}

export type Step = { at: number; what: string };

interface SimProcess {
	id: string;
	name: string;
	alive: boolean;
	crashedAt?: number;
	node: INodeType;
	/** The package's own rule for a Transfer ID made of a row (the operation as this process loaded it). */
	operations: LoadedCode['operations'];
	executions: ExecutionRecord[];
}

export class World {
	readonly clock = new VirtualClock();
	readonly store: ProcessedDataModel;
	readonly service = new PayoutsServiceModel();
	readonly random: Random;
	readonly processes = new Map<string, SimProcess>();
	readonly executions: ExecutionRecord[] = [];
	readonly attempts: Attempt[] = [];
	readonly steps: Step[] = [];
	readonly payouts = new Map<string, Payout>();
	/** The template's claims table (Claim Held by an Earlier Step): a Transfer ID's claim and its outcome once written. */
	readonly claims = new Map<string, { by: string; outcome?: string }>();
	/** The rows still not paid after the user settled (schedule.ts). */
	leftUnsettled: Row[] = [];
	traceStore = false;
	/** A script's own fault for a request (else the schedule's random one). */
	faultOf?: (attempt: Pick<Attempt, 'transferId' | 'body' | 'execution'>) => Fault | undefined;
	/** A script's own decision for a transfer request (else the schedule's). */
	decisionOf?: (
		attempt: Pick<Attempt, 'transferId' | 'body' | 'execution'>,
	) => ServiceDecision | undefined;
	private executionCount = 0;
	private restored?: () => void;

	constructor(
		seed: number,
		readonly timing: Timing,
		readonly workflow: WorkflowSetup,
	) {
		this.random = new Random(seed);
		this.store = new ProcessedDataModel(async (step, call) => {
			await this.clock.sleep(this.timing.storeStep(this.random));
			if (this.traceStore)
				this.log(
					`  ${call.by} ${call.kind} ${step}${step === 'findOne' ? '' : ` [${call.values.map(short).join(' ')}]`}`,
				);
		});
		this.store.now = () => this.clock.now;
		this.store.by = () => this.clock.owner;
		this.service.internalRefusesRepeats =
			workflow.operation === 'internalTransfer' &&
			workflow.pay.options.serviceRefusesRepeats === true;
	}

	/** Virtual time, seeded randomness and this world's network and database for n8n, until `close`. */
	open() {
		const random = Math.random;
		const uuid = crypto.randomUUID;
		this.clock.install();
		Math.random = () => this.random.next();
		let uuids = 0;
		crypto.randomUUID = (() =>
			`00000000-0000-4000-8000-${String(++uuids).padStart(12, '0')}`) as typeof crypto.randomUUID;
		serve({ send: async (request) => await this.wire(request), store: this.store });
		this.restored = () => {
			serve(undefined);
			Math.random = random;
			crypto.randomUUID = uuid;
			this.clock.uninstall();
		};
	}

	close() {
		runAs('main');
		this.restored?.();
	}

	log(what: string) {
		this.steps.push({ at: this.clock.now, what });
	}

	/** Starts (or starts again after a crash) an n8n process: the package's code loaded afresh. */
	start(name: string): SimProcess {
		const generation = [...this.processes.values()].filter(
			(process) => process.name === name,
		).length;
		const id = `${name}#${generation + 1}`;
		const code = loadCodeAfresh();
		const process: SimProcess = {
			id,
			name,
			alive: true,
			node: code.node,
			operations: code.operations,
			executions: [],
		};
		this.processes.set(id, process);
		// Queue mode: every process of the world runs production executions, as a worker does.
		runAs(this.processCount > 1 ? 'worker' : 'main');
		this.log(`${id} starts`);
		return process;
	}

	get processCount(): number {
		return new Set([...this.processes.values()].map((process) => process.name)).size;
	}

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
		for (const execution of process.executions)
			if (execution.endedAt === undefined) execution.crashed = true;
		this.log(`${process.id} crashes`);
	}

	/** The node's description as the first process loaded it (the settings are generated from it). */
	static description(): INodeTypeDescription {
		return loadCodeAfresh().node.description;
	}

	/** A payout the user means, under its own account. */
	payout(id: string, amount: string): Payout {
		const made = this.payouts.get(id) ?? {
			id,
			amount,
			to: `${this.workflow.operation === 'cardTransfer' ? 'tok' : this.workflow.operation === 'standardTransfer' ? 'B' : 'ACC'}${id.replace(/\W/g, 'x')}`,
		};
		this.payouts.set(id, made);
		return made;
	}

	/**
	 * Starts an execution of the workflow on a process now; returns its record (filled when it ends).
	 * `stopAfter`: the editor's Stop, that many ms after the start.
	 */
	execute(
		processName: string,
		rows: Row[],
		options: {
			dryRun?: boolean;
			stopAfter?: number;
			mode?: ExecutionRecord['mode'];
			/** Another saved workflow: a copy of this one (the same nodes and settings, another id). */
			workflowId?: string;
		} = {},
	): ExecutionRecord | undefined {
		const process = this.live(processName);
		if (!process) return undefined;
		const record: ExecutionRecord = {
			id: `e${++this.executionCount}`,
			process: process.id,
			workflowId: options.workflowId ?? WORKFLOW_ID,
			rows,
			dryRun: options.dryRun === true,
			mode: options.mode ?? 'manual',
			startedAt: this.clock.now,
			outcomes: [],
			claimAnswers: [],
		};
		this.executions.push(record);
		process.executions.push(record);
		this.log(
			`${record.id} on ${process.id}${record.mode === 'manual' ? '' : ` (${record.mode})`}${record.workflowId === WORKFLOW_ID ? '' : ` in ${record.workflowId}`}: ${record.dryRun ? 'dry run of ' : ''}${rows.map((row) => `${row.key}:${row.amount}${row.dashboardStatus ? `[${row.dashboardStatus}]` : ''}`).join(' ')}${options.stopAfter !== undefined ? ` (Stop after ${options.stopAfter} ms)` : ''}`,
		);
		this.clock.after(0, () => void this.run(process, record, options.stopAfter), process.id);
		return record;
	}

	/**
	 * n8n's Retry of a failed execution, on a process (n8n's own ExecutionService.retry,
	 * harness/n8nRetry.ts): a new execution from the failed node with the saved run data; the steps
	 * before it (the claims table, where there is one) are not run again. An execution with no saved
	 * run data (it crashed) n8n does not retry.
	 */
	retry(processName: string, failed: ExecutionRecord): ExecutionRecord | undefined {
		const process = this.live(processName);
		if (!process || !failed.saved || !failed.engineRows) return undefined;
		const record: ExecutionRecord = {
			id: `e${++this.executionCount}`,
			process: process.id,
			workflowId: failed.workflowId,
			rows: failed.rows,
			engineRows: failed.engineRows,
			dryRun: false,
			mode: 'retry',
			retryOf: failed.id,
			claimsOf: failed.claimsOf ?? failed.id,
			startedAt: this.clock.now,
			outcomes: [],
			claimAnswers: [],
		};
		this.executions.push(record);
		process.executions.push(record);
		this.log(`${record.id} on ${process.id}: n8n's Retry of ${failed.id}`);
		const saved = failed.saved;
		const engineRows = failed.engineRows;
		this.clock.after(
			0,
			() => {
				let started: EngineRun | undefined;
				const done = retryInN8n(
					{
						id: failed.id,
						workflowId: record.workflowId,
						workflowData: { id: record.workflowId, ...this.workflowNodes(false) },
						run: saved,
					},
					async (data) => {
						record.runsBefore = Object.fromEntries(
							[PAY.name, PAY_AGAIN.name].map((name) => [
								name,
								data.executionData.resultData.runData[name]?.length ?? 0,
							]),
						);
						started = runInN8n({
							...this.engineExecution(process, record, []),
							resume: data.executionData,
						});
						return await started.done;
					},
				);
				void this.finish(record, engineRows, { done, stop: () => started?.stop() });
			},
			process.id,
		);
		return record;
	}

	/** What the engine needs to run an execution of the world's workflow on a process. */
	private engineExecution(process: SimProcess, record: ExecutionRecord, input: Row[]) {
		return {
			workflowId: record.workflowId,
			executionId: record.id,
			mode: record.mode === 'webhook' ? ('webhook' as const) : record.mode,
			...this.workflowNodes(record.dryRun),
			nodeTypes: nodeTypesOf({ [NODE_TYPE]: process.node, [ROWS.type]: rowsNode }),
			credentials: { baseUrl: `http://127.0.0.1/sim/${record.id}`, accessToken: SIM_TOKEN },
			input: input as unknown as IDataObject[],
		};
	}

	private async run(process: SimProcess, record: ExecutionRecord, stopAfter?: number) {
		const claimed = this.claimRows(record);
		if (claimed.length === 0) {
			record.endedAt = this.clock.now;
			this.log(`${record.id} ends: every row answered from its claim`);
			return;
		}
		record.engineRows = claimed;
		const running = runInN8n(this.engineExecution(process, record, claimed));
		if (stopAfter !== undefined) {
			this.clock.after(
				stopAfter,
				() => {
					if (record.endedAt !== undefined) return;
					record.stoppedAt = this.clock.now;
					this.log(`${record.id} Stop pressed`);
					running.stop();
				},
				'world',
			);
		}
		await this.finish(record, claimed, running);
	}

	/** An execution's end: what each row came to, the claims table written, the error kept (and saved, for n8n's Retry). */
	private async finish(record: ExecutionRecord, claimed: Row[], running: EngineRun) {
		const run = await running.done;
		record.endedAt = this.clock.now;
		this.readOutcomes(record, claimed, run);
		this.writeClaims(record, run.data.resultData.error !== undefined);
		const error = run.data.resultData.error as
			| {
					message?: string;
					description?: string;
					context?: { itemIndex?: number; rows?: IDataObject[]; nothingSent?: boolean };
			  }
			| undefined;
		if (error) {
			record.error = {
				message: String(error.message),
				description: error.description ?? undefined,
				itemIndex: error.context?.itemIndex,
				nothingSent: error.context?.nothingSent,
			};
			record.saved = run;
		}
		// The error that ends a batch names every row's status and next step: the user reads them there
		// (Pay Again's rows are Pay's error items, in order).
		const failedIn = String(run.data.resultData.lastNodeExecuted ?? PAY.name);
		const payErrors = this.payErrorsOf(run);
		for (const row of error?.context?.rows ?? []) {
			const input =
				failedIn === PAY_AGAIN.name
					? claimed[pairOf(payErrors[Number(row.item)])]
					: claimed[Number(row.item)];
			if (!input) continue;
			record.outcomes = record.outcomes.filter((outcome) => outcome.row !== input);
			record.outcomes.push({
				row: input,
				node: failedIn,
				status: String(row.status),
				transferId: row.transferId as string | undefined,
				message: row.message as string | undefined,
				hint: row.hint as string | undefined,
				nextStep: row.nextStep as string | undefined,
				json: row,
			});
		}
		this.log(
			`${record.id} ends: ${record.error ? `error ${record.error.message} ` : ''}${record.outcomes.map((outcome) => `${outcome.row.key}=${outcome.status}${outcome.node === PAY_AGAIN.name ? '(again)' : ''}`).join(' ')}`,
		);
	}

	/** The workflow's nodes, as the user set them (Dry Run on for this run where asked). */
	private workflowNodes(dryRun: boolean): { nodes: INode[]; connections: IConnections } {
		const { operation, keyMode, pay, payAgain } = this.workflow;
		const node = (which: typeof PAY, setup: NodeSetup): INode => ({
			id: which.id,
			name: which.name,
			type: NODE_TYPE,
			typeVersion: 1,
			position: [0, 0],
			parameters: {
				...parametersOf(operation, keyMode),
				options: {
					...setup.options,
					...(keyMode === 'payEveryRun' ? { payEveryRun: true } : {}),
					...(dryRun ? { dryRun: true } : {}),
				},
			},
			credentials: { payoutsApi: { id: '1', name: 'Payouts' } },
			...(setup.settings.onError === 'stopWorkflow' ? {} : { onError: setup.settings.onError }),
			...(setup.settings.retryOnFail
				? {
						retryOnFail: true,
						maxTries: setup.settings.maxTries,
						waitBetweenTries: setup.settings.waitBetweenTries,
					}
				: {}),
			...(setup.settings.alwaysOutputData ? { alwaysOutputData: true } : {}),
			...(setup.settings.executeOnce ? { executeOnce: true } : {}),
		});
		const rows: INode = {
			id: ROWS.id,
			name: ROWS.name,
			type: ROWS.type,
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		};
		const toPay = {
			[ROWS.name]: { main: [[{ node: PAY.name, type: 'main' as const, index: 0 }]] },
		};
		if (!payAgain) return { nodes: [rows, node(PAY, pay)], connections: toPay };
		// The retry branch hangs off Pay's error output.
		const first = node(PAY, {
			...pay,
			settings: { ...pay.settings, onError: 'continueErrorOutput' },
		});
		return {
			nodes: [rows, first, node(PAY_AGAIN, payAgain)],
			connections: {
				...toPay,
				[PAY.name]: { main: [[], [{ node: PAY_AGAIN.name, type: 'main', index: 0 }]] },
			},
		};
	}

	/** A node's outputs in this execution (a retry's first run of it, after the retried execution's). */
	private outputs(record: ExecutionRecord, run: IRun, node: string) {
		return outputsOf(run, node, record.runsBefore?.[node] ?? 0);
	}

	/** Pay's error items as Pay Again got them: Pay's last run (in a retry of Pay Again, the retried execution's). */
	private payErrorsOf(run: IRun): INodeExecutionData[] {
		const runs = run.data.resultData.runData[PAY.name]?.length ?? 1;
		return outputsOf(run, PAY.name, Math.max(0, runs - 1))?.[1] ?? [];
	}

	/** Each row's outcome, from the nodes' outputs by their pairing with the rows. */
	private readOutcomes(record: ExecutionRecord, rows: Row[], run: IRun) {
		const pay = this.outputs(record, run, PAY.name) ?? [];
		const again = this.outputs(record, run, PAY_AGAIN.name) ?? [];
		const payErrors = pay[1] ?? [];
		for (const item of pay[0] ?? []) this.outcome(record, PAY.name, rows[pairOf(item)], item);
		if (!this.workflow.payAgain)
			for (const item of payErrors) this.outcome(record, PAY.name, rows[pairOf(item)], item);
		// Pay Again's rows are Pay's error items, in order.
		const handedOn = this.payErrorsOf(run);
		for (const output of again)
			for (const item of output ?? [])
				this.outcome(record, PAY_AGAIN.name, rows[pairOf(handedOn[pairOf(item)])], item);
		// With a retry branch, Pay's error items that Pay Again never answered (it stopped with an error) still say what Pay said;
		// Stop in Pay Again leaves no word on them.
		if (this.workflow.payAgain && record.stoppedAt === undefined) {
			for (const item of payErrors) {
				const row = rows[pairOf(item)];
				if (!record.outcomes.some((outcome) => outcome.row === row))
					this.outcome(record, PAY.name, row, item);
			}
		}
	}

	private outcome(
		record: ExecutionRecord,
		node: string,
		row: Row | undefined,
		item: INodeExecutionData | undefined,
	) {
		if (!row || !item) return;
		const json = item.json;
		// Always Output Data: n8n's own empty item where the node put out none says nothing of a row.
		if (json.status === undefined && json.error === undefined && json.dryRun === undefined) return;
		const error =
			typeof json.error === 'object' && json.error !== null
				? (json.error as IDataObject)
				: undefined;
		const source = error ?? json;
		record.outcomes.push({
			row,
			node,
			status: String(source.status ?? (json.dryRun ? 'DRY_RUN' : '?')),
			transferId:
				(source.transferId as string | undefined) ??
				((json.body as IDataObject | undefined)?.transferId as string | undefined),
			message:
				(source.message as string | undefined) ??
				(typeof json.error === 'string' ? json.error : undefined),
			hint: source.hint as string | undefined,
			nextStep: source.nextStep as string | undefined,
			json,
		});
	}

	/**
	 * The claims table before the node (Claim Held by an Earlier Step), as the template's Postgres
	 * insert: a row goes on only where this execution's insert of its Transfer ID won; the others
	 * are answered from the claim (its outcome, or "in doubt" while it has none).
	 */
	private claimRows(record: ExecutionRecord): Row[] {
		if (!this.claimHeld() || record.dryRun) return record.rows;
		const won: Row[] = [];
		for (const row of record.rows) {
			const claim = this.claims.get(row.key);
			if (!claim) {
				this.claims.set(row.key, { by: record.id });
				won.push(row);
			} else record.claimAnswers.push({ row, answer: claim.outcome ?? 'UNKNOWN' });
		}
		return won;
	}

	/** The template's Write the Outcome: an answer's status into its claim; a clear ERROR gives the claim back. */
	private writeClaims(record: ExecutionRecord, failed: boolean) {
		// An execution that stopped with an error never reaches the template's Write the Outcome: its
		// claims keep no outcome (later deliveries read them as in doubt).
		if (!this.claimHeld() || record.dryRun || failed) return;
		for (const row of record.rows) {
			const claim = this.claims.get(row.key);
			if (claim?.by !== (record.claimsOf ?? record.id)) continue;
			const outcome = [...record.outcomes].reverse().find((candidate) => candidate.row === row);
			if (!outcome) continue;
			if (outcome.status === 'ERROR') this.claims.delete(row.key);
			else if (outcome.status !== 'UNKNOWN' && outcome.status !== 'ALREADY_EXISTS')
				claim.outcome = outcome.status;
		}
	}

	claimHeld(): boolean {
		return this.workflow.pay.options.claimHeldEarlier === true;
	}

	/**
	 * The network: the request arrives after a delay (unless lost), the service answers, and the
	 * answer comes back after another (unless lost: the node then waits for its timeout). The
	 * execution's abort signal (Stop) ends the wait as axios does; a request on the wire arrives all
	 * the same.
	 */
	private async wire(request: WireRequest): Promise<WireAnswer> {
		const url = new URL(request.url);
		const [, , execution = '?', ...rest] = url.pathname.split('/');
		const apiPath = `/${rest.join('/')}${url.search}`;
		const by = this.clock.owner;
		if (request.method === 'GET') return await this.read(apiPath, request);
		const body = JSON.parse(request.body ?? '{}') as Record<string, unknown>;
		const operation: Operation = apiPath.includes('internalTransfer')
			? 'internalTransfer'
			: apiPath.includes('cardpay')
				? 'cardTransfer'
				: 'standardTransfer';
		const transferId = String(body.transferId ?? '');
		const scripted = { transferId, body, execution };
		const fault = this.faultOf?.(scripted) ?? this.timing.fault(this.random);
		const decision = this.decisionOf?.(scripted) ?? this.timing.decision(this.random, operation);
		const attempt: Attempt = {
			id: this.attempts.length + 1,
			transferId,
			operation,
			body,
			by,
			execution,
			at: this.clock.now,
			fault,
			arrived: false,
			booked: false,
			answered: 'none',
		};
		this.attempts.push(attempt);
		this.log(
			`${execution} sends ${transferId} ${String(body.amount)} to ${String(body.rechargeAccount ?? body.beneId ?? body.token)} (${fault}${decision === 'pay' ? '' : `, ${decision}`})`,
		);
		return await new Promise<WireAnswer>((resolve, reject) => {
			let ended = false;
			const end = (error?: WireError, answer?: WireAnswer) => {
				if (ended) return;
				ended = true;
				attempt.settledAt = this.clock.now;
				if (error) reject(error);
				else resolve(answer as WireAnswer);
			};
			if (request.timeoutMs > 0)
				this.clock.after(request.timeoutMs, () =>
					end(new WireError('ECONNABORTED', `timeout of ${request.timeoutMs}ms exceeded`)),
				);
			// Stop: the sender's wait ends as its own (a crashed sender hears nothing).
			request.signal?.addEventListener('abort', () =>
				this.clock.after(0, () => end(new WireError('ERR_CANCELED', 'canceled')), by),
			);
			// On the wire: it arrives even if the sender dies or stops meanwhile.
			this.clock.after(
				this.timing.network(this.random) + (fault === 'slow' ? 2 * (request.timeoutMs || 1000) : 0),
				() => {
					if (fault === 'lostBefore')
						return this.log(`${transferId} from ${execution} lost before the service`);
					if (fault === 'error5xxBefore')
						return this.back(by, () =>
							end(undefined, { status: 502, body: '<html><body>502 Bad Gateway</body></html>' }),
						);
					attempt.arrived = true;
					const before = this.service.bookings.length;
					const answer = this.service.transfer(
						operation,
						body,
						decision,
						this.clock.now,
						attempt.id,
						() => this.random.next(),
					);
					attempt.booked = this.service.bookings.length > before;
					if (attempt.booked)
						this.bankLater(this.service.bookings[this.service.bookings.length - 1]);
					this.log(
						`service receives ${transferId} from ${execution}: ${answer.httpStatus} ${String(answer.body.message ?? '')}${attempt.booked ? ' (booked)' : ''}`,
					);
					if (fault === 'lostAfter') return;
					if (fault === 'error5xxAfter')
						return this.back(by, () =>
							end(undefined, { status: 500, body: '<html>Internal Server Error</html>' }),
						);
					this.back(by, () => {
						// axios checks the abort signal once more after the answer: a stopped execution never reads it.
						if (request.signal?.aborted) return end(new WireError('ERR_CANCELED', 'canceled'));
						if (!ended)
							attempt.answered =
								answer.body.status === 'ERROR' ? (attempt.booked ? 'none' : 'refused') : 'paid';
						end(undefined, { status: answer.httpStatus, body: JSON.stringify(answer.body) });
					});
				},
				'network',
			);
		});
	}

	/** An answer on its way back: it reaches the sender's process, unless that died meanwhile. */
	private back(sender: string, deliver: () => void) {
		this.clock.after(this.timing.network(this.random), deliver, sender);
	}

	/** A PENDING booking settles at the bank later. */
	private bankLater(booking: PayoutsServiceModel['bookings'][number]) {
		if (booking.status !== 'PENDING') return;
		const { afterMs, pays } = this.timing.bank(this.random);
		this.clock.after(
			afterMs,
			() => {
				this.service.settleAtBank(booking, pays, this.clock.now);
				this.log(`bank settles ${booking.transferId}: ${booking.status}`);
			},
			'network',
		);
	}

	private async read(apiPath: string, request: WireRequest): Promise<WireAnswer> {
		if (request.signal?.aborted) throw new WireError('ERR_CANCELED', 'canceled');
		await this.clock.sleep(2 * this.timing.network(this.random));
		const answer = this.service.read(apiPath);
		return { status: answer.httpStatus, body: JSON.stringify(answer.body) };
	}

	async settle() {
		await this.clock.run();
	}

	/** The Transfer ID the node gives a row in node `nodeId` (its own rule, as the first process loaded it). */
	transferIdOf(row: Row, nodeId = PAY.id, executionId = '', itemIndex = 0): string {
		if (this.workflow.operation !== 'internalTransfer' || this.workflow.keyMode === 'transferId')
			return row.key;
		const operations = [...this.processes.values()][0]?.operations ?? loadCodeAfresh().operations;
		const made = operations.internalTransfer.transferIdWhenEmpty?.(
			this.workflow.keyMode === 'topUpKey' ? { topUpKey: row.key, rechargeAccount: row.to } : {},
			{
				workflowId: WORKFLOW_ID,
				nodeId,
				executionId,
				runIndex: 0,
				itemIndex,
				payEveryRun: this.workflow.keyMode === 'payEveryRun',
			},
		);
		return made && 'transferId' in made ? made.transferId : row.key;
	}

	get calls(): StoreCall[] {
		return this.store.calls;
	}
}

/** The node's parameters: the rows' columns mapped as a user maps them. */
function parametersOf(operation: Operation, keyMode: KeyMode): IDataObject {
	switch (operation) {
		case 'internalTransfer':
			return {
				operation,
				amount: '={{ $json.amount }}',
				rechargeAccount: '={{ $json.to }}',
				...(keyMode === 'topUpKey' ? { topUpKey: '={{ $json.key }}' } : {}),
				additionalFields: keyMode === 'transferId' ? { transferId: '={{ $json.key }}' } : {},
			};
		case 'standardTransfer':
			return {
				operation,
				beneId: '={{ $json.to }}',
				amount: '={{ $json.amount }}',
				transferId: '={{ $json.key }}',
				transferMode: 'imps',
				additionalFields: {},
			};
		case 'cardTransfer':
			return {
				operation,
				token: '={{ $json.to }}',
				amount: '={{ $json.amount }}',
				transferId: '={{ $json.key }}',
				cardType: 'DEBIT',
				additionalFields: {},
			};
	}
}

function pairOf(item: INodeExecutionData | undefined): number {
	const paired = item?.pairedItem;
	if (typeof paired === 'number') return paired;
	if (Array.isArray(paired)) return paired[0]?.item ?? -1;
	return paired?.item ?? -1;
}

const short = (value: string) =>
	value.replace(/:([0-9a-f]{8})[0-9a-f]{56}/g, ':$1…').replace(/-([0-9a-f]{6})[0-9a-f]+/g, '-$1…');

interface LoadedCode {
	node: INodeType;
	operations: {
		internalTransfer: {
			transferIdWhenEmpty?: (
				params: Record<string, unknown>,
				origin: Record<string, unknown>,
			) => { transferId: string } | { issue: string };
		};
	};
}

/**
 * The package as a new n8n process loads it: its code built once into one module (as n8n loads
 * the built package; n8n-workflow, zod and luxon stay n8n's, shared), run afresh for each process,
 * so that what the node keeps in memory is that process's alone.
 */
let built: vm.Script | undefined;
let codeRoot = ROOT;
/** Where the package's code is read from: this checkout, or another revision's (cli.ts --code). */
export function useCodeFrom(root: string) {
	codeRoot = root;
	built = undefined;
}
function loadCodeAfresh(): LoadedCode {
	built ??= new vm.Script(`(function (exports, require, module) {${buildCode()}\n})`, {
		filename: 'payouts-transfer.sim.js',
	});
	const module = {
		exports: {} as {
			PayoutsTransfer: new () => INodeType;
			internalTransfer: LoadedCode['operations']['internalTransfer'];
		},
	};
	(built.runInThisContext() as (exports: object, require: NodeRequire, module: object) => void)(
		module.exports,
		require,
		module,
	);
	return {
		node: new module.exports.PayoutsTransfer(),
		operations: { internalTransfer: module.exports.internalTransfer },
	};
}

/** The node's code and its internal-transfer rule, bundled as tsc would compile them: one CommonJS module. */
export function buildCode(): string {
	const result = buildSync({
		stdin: {
			contents:
				"export { PayoutsTransfer } from './nodes/PayoutsTransfer/PayoutsTransfer.node';\nexport { internalTransfer } from './nodes/PayoutsTransfer/operations/internalTransfer';\n",
			resolveDir: codeRoot,
			loader: 'ts',
			sourcefile: 'simulated-package.ts',
		},
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

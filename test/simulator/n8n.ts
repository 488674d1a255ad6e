/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- the simulator runs in Node, never inside n8n: it drives n8n's own engine (n8n-core) with a simulated network and database */
process.env.N8N_LOG_LEVEL ??= 'silent';
/**
 * n8n as the simulator runs it: n8n-core's own `WorkflowExecute` (the version npm start runs, or
 * the one `N8N_CORE_FROM` points at), with its retry of a node whose first item carries an error,
 * its error output, Always Output Data, Execute Once and its Stop (the execution's abort signal,
 * which n8n hands to every request). Only what lies outside n8n is simulated:
 * - the wire: axios's adapter (n8n sends every request with axios) hands the request to the
 *   world's network and honours the request's timeout and abort signal as axios's own does;
 * - the database: n8n's processed-data store is the world's model of it (store.ts);
 * - the credentials: the world's, one per execution, so that a request names its execution.
 */
import { Container } from '@n8n/di';
import {
	DataDeduplicationService,
	ExecutionLifecycleHooks,
	InstanceSettings,
	WorkflowExecute,
} from 'n8n-core';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IHttpRequestOptions,
	INode,
	INodeExecutionData,
	INodeType,
	INodeTypes,
	IRun,
	IRunExecutionData,
	IWorkflowExecuteAdditionalData,
	IConnections,
	IDataDeduplicator,
} from 'n8n-workflow';
import { createRunExecutionData, ICredentialsHelper, Workflow } from 'n8n-workflow';

/** What the network needs of a request, and what it gives back. */
export interface WireRequest {
	method: string;
	url: string;
	body?: string;
	timeoutMs: number;
	signal?: AbortSignal;
}
export interface WireAnswer {
	status: number;
	body: string;
}
/** A failure on the wire, as Node's sockets name it (axios keeps the code). */
export class WireError extends Error {
	constructor(
		readonly code: string,
		message: string,
	) {
		super(message);
	}
}

/** The world the engine serves now: its network and database (one world at a time per process). */
export interface EngineWorld {
	send(request: WireRequest): Promise<WireAnswer>;
	store: IDataDeduplicator;
}

let current: EngineWorld | undefined;
export function serve(world: EngineWorld | undefined) {
	current = world;
	installOnce();
}

let installed = false;
function installOnce() {
	if (installed) return;
	installed = true;
	// n8n's database as the world holds it: n8n-core takes one store per process.
	const store: IDataDeduplicator = {
		checkProcessedAndRecord: async (...args) =>
			await world().store.checkProcessedAndRecord(...args),
		removeProcessed: async (...args) => await world().store.removeProcessed(...args),
		clearAllProcessedItems: async (...args) => await world().store.clearAllProcessedItems(...args),
		getProcessedDataCount: async (...args) => await world().store.getProcessedDataCount(...args),
	};
	void DataDeduplicationService.init(store);
	// n8n's requests go through the default axios instance of n8n's network package.
	const axios = axiosOfN8n();
	axios.defaults.adapter = simulatedAdapter(axios);
}

function world(): EngineWorld {
	if (!current) throw new Error('No simulated world is being served');
	return current;
}

type Axios = typeof import('axios').default;

function axiosOfN8n(): Axios {
	const network = require.resolve('@n8n/backend-network');
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	return require(require.resolve('axios', { paths: [network] })) as Axios;
}

/**
 * An axios adapter in place of Node's http: the request goes to the world's network. As axios's
 * own adapter: a timeout rejects with ECONNABORTED, an abort with a CanceledError (axios checks an
 * abort that came before the request itself, and never calls the adapter then).
 */
function simulatedAdapter(axios: Axios) {
	return async (config: import('axios').InternalAxiosRequestConfig) => {
		const url = axios.getUri(config);
		const body =
			typeof config.data === 'string'
				? config.data
				: config.data === undefined
					? undefined
					: JSON.stringify(config.data);
		try {
			const answer = await world().send({
				method: String(config.method ?? 'get').toUpperCase(),
				url,
				body,
				timeoutMs: config.timeout ?? 0,
				signal: config.signal as AbortSignal | undefined,
			});
			const response = {
				data: answer.body,
				status: answer.status,
				statusText: String(answer.status),
				headers: { 'content-type': 'application/json' },
				config,
				request: {},
			};
			const valid = config.validateStatus
				? config.validateStatus(answer.status)
				: answer.status >= 200 && answer.status < 300;
			if (!valid)
				throw new axios.AxiosError(
					`Request failed with status code ${answer.status}`,
					answer.status >= 500 ? 'ERR_BAD_RESPONSE' : 'ERR_BAD_REQUEST',
					config,
					{},
					response as never,
				);
			return response;
		} catch (error) {
			if (error instanceof axios.AxiosError) throw error;
			if (error instanceof WireError) {
				if (error.code === 'ERR_CANCELED')
					throw new axios.CanceledError(undefined, undefined, config);
				throw new axios.AxiosError(error.message, error.code, config, {});
			}
			throw error;
		}
	};
}

/** The node types one simulated n8n process has loaded (its own copy of the package's code). */
export function nodeTypesOf(nodes: Record<string, INodeType>): INodeTypes {
	return {
		getByName: (type) => nodes[type],
		getByNameAndVersion: (type) => {
			const node = nodes[type];
			if (!node) throw new Error(`Unknown node type ${type}`);
			return node;
		},
		getKnownTypes: () =>
			Object.fromEntries(
				Object.keys(nodes).map((type) => [type, { className: type, sourcePath: '' }]),
			),
	};
}

/** The credential of an execution: n8n's own `authenticate` block of the credential type, applied as n8n applies it. */
class SimCredentials extends ICredentialsHelper {
	constructor(private readonly data: ICredentialDataDecryptedObject) {
		super();
	}
	getParentTypes(): string[] {
		return [];
	}
	isCredentialUsableByNode(): boolean {
		return true;
	}
	async runPreAuthentication() {
		return undefined;
	}
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		_type: string,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		return {
			...requestOptions,
			headers: {
				...(requestOptions.headers ?? {}),
				Authorization: `Bearer ${String(credentials.accessToken)}`,
			},
		};
	}
	async preAuthentication() {
		return undefined;
	}
	async getCredentials(): Promise<never> {
		throw new Error('not used by the transfer node');
	}
	async getDecrypted(): Promise<ICredentialDataDecryptedObject> {
		return this.data;
	}
	async updateCredentials() {}
	async updateCredentialsOauthTokenData() {}
	getCredentialsProperties() {
		return [];
	}
}

export interface EngineRun {
	/** The execution's end (never, if its process dies first). */
	done: Promise<IRun>;
	/** The editor's Stop. */
	stop(): void;
}

export interface EngineExecution {
	workflowId: string;
	executionId: string;
	mode: 'manual' | 'trigger' | 'webhook' | 'retry';
	nodes: INode[];
	connections: IConnections;
	nodeTypes: INodeTypes;
	credentials: ICredentialDataDecryptedObject;
	/** Items handed to the first node. */
	input: IDataObject[];
	/** n8n's Retry of a failed execution: the run data n8n hands its runner (harness/n8nRetry.ts), in place of `input`. */
	resume?: IRunExecutionData;
}

/** Runs a workflow through n8n's own engine, as n8n does for a saved workflow (its settings: none, UTC). */
export function runInN8n(execution: EngineExecution): EngineRun {
	const workflow = new Workflow({
		id: execution.workflowId,
		nodes: execution.nodes,
		connections: execution.connections,
		nodeTypes: execution.nodeTypes,
		active: true,
		settings: { timezone: 'UTC', executionOrder: 'v1' },
	});
	const hooks = new ExecutionLifecycleHooks(execution.mode, execution.executionId, {
		id: execution.workflowId,
		name: 'simulated',
		nodes: execution.nodes,
		connections: execution.connections,
		active: true,
		isArchived: false,
		createdAt: new Date(),
		updatedAt: new Date(),
		activeVersionId: null,
	} as never);
	let finish!: (run: IRun) => void;
	const done = new Promise<IRun>((resolve) => (finish = resolve));
	hooks.addHandler('workflowExecuteAfter', (run) => finish(run));
	const additionalData = {
		credentialsHelper: new SimCredentials(execution.credentials),
		hooks,
		executionId: execution.executionId,
		currentNodeExecutionIndex: 0,
		restApiUrl: 'http://127.0.0.1/rest',
		instanceBaseUrl: 'http://127.0.0.1/',
		formWaitingBaseUrl: 'http://127.0.0.1/form-waiting',
		webhookBaseUrl: 'http://127.0.0.1/webhook',
		webhookWaitingBaseUrl: 'http://127.0.0.1/webhook-waiting',
		webhookTestBaseUrl: 'http://127.0.0.1/webhook-test',
		variables: {},
		executeWorkflow: async () => {
			throw new Error('not used');
		},
		getRunExecutionData: async () => undefined,
		logAiEvent: () => {},
		startRunnerTask: async () => {
			throw new Error('not used');
		},
	} as unknown as IWorkflowExecuteAdditionalData;
	const first = execution.nodes[0];
	const items: INodeExecutionData[] = execution.input.map((json) => ({ json }));
	const runExecutionData =
		execution.resume ??
		createRunExecutionData({
			executionData: {
				nodeExecutionStack: [{ node: first, data: { main: [items] }, source: null }],
			},
		});
	const running = new WorkflowExecute(
		additionalData,
		execution.mode,
		runExecutionData,
	).processRunExecutionData(workflow);
	running.catch(() => undefined);
	return { done, stop: () => running.cancel() };
}

/**
 * Which kind of n8n process the world's processes are, as n8n's instance settings say to the
 * code they run: 'main' (regular mode) or 'worker' (queue mode, where every simulated process runs
 * production executions as a worker does).
 */
export function runAs(kind: 'main' | 'worker') {
	Object.assign(Container.get(InstanceSettings), { instanceType: kind });
}

/**
 * What one node put out in a run: its first run's outputs (main and, with the error output, the
 * second); in a retry, its first run after those the retried execution had.
 */
export function outputsOf(
	run: IRun,
	nodeName: string,
	runIndex = 0,
): INodeExecutionData[][] | undefined {
	return run.data.resultData.runData[nodeName]?.[runIndex]?.data?.main as
		| INodeExecutionData[][]
		| undefined;
}

/** n8n-core starts a 60 s timer on first use: not in a simulated world. */
export function ensureNoEngineTimers() {
	for (const token of ['SSHClientsManager']) {
		const found = [
			...((Container as unknown as { instances?: Map<unknown, unknown> }).instances?.keys() ?? []),
		].find((key) => (key as { name?: string })?.name === token);
		if (found) (Container.get(found as never) as { onShutdown?: () => void }).onShutdown?.();
	}
}

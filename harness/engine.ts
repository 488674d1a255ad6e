/**
 * Runs workflows through n8n's own engine (n8n-core's WorkflowExecute) in-process, with the real
 * node and credential classes of this package. The credentials helper applies the credential's
 * own generic `authenticate` block, as n8n does, so no test builds an auth header by hand.
 */
import { Container } from '@n8n/di';
import { ExecutionLifecycleHooks, PollContext, WorkflowExecute } from 'n8n-core';
import { SSHClientsManager } from 'n8n-core/dist/execution-engine/ssh-clients-manager';
import type {
	ICredentialDataDecryptedObject,
	ICredentials,
	ICredentialType,
	IDataObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	INodeTypes,
	IVersionedNodeType,
	IRun,
	IRunExecutionData,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
	IConnections,
	IWorkflowSettings,
} from 'n8n-workflow';
import { createRunExecutionData, ICredentialsHelper, Workflow } from 'n8n-workflow';

// Explicit .ts: next to each X.node.ts lies its codex X.node.json, which a resolver that tries
// .json before .ts (tsx, used by the benchmark) would load instead.
import { PayoutsApi } from '../credentials/PayoutsApi.credentials.ts';
import { PayoutsBeneficiary } from '../nodes/PayoutsBeneficiary/PayoutsBeneficiary.node.ts';
import { PayoutsIncident } from '../nodes/PayoutsIncident/PayoutsIncident.node.ts';
import { PayoutsIncidentTrigger } from '../nodes/PayoutsIncidentTrigger/PayoutsIncidentTrigger.node.ts';
import { PayoutsOAuth } from '../nodes/PayoutsOAuth/PayoutsOAuth.node.ts';
import { PayoutsPaylink } from '../nodes/PayoutsPaylink/PayoutsPaylink.node.ts';
import { PayoutsTransfer } from '../nodes/PayoutsTransfer/PayoutsTransfer.node.ts';

import { retryInN8n } from './n8nRetry';
import { forgetProcessedData, useMemoryProcessedData } from './processedData';

export const PACKAGE = 'n8n-nodes-payouts';

// n8n-core 2.41 logs every node error at info level to the console: a test reads its errors itself.
// eslint-disable-next-line @n8n/community-nodes/no-restricted-globals -- test code runs in Node under jest, never inside n8n
process.env.N8N_LOG_LEVEL ??= 'silent';

// The node's record of sent transfers lives in n8n's processed-data store; every test starts with
// an empty one, as from a fresh n8n database, and a workflow id of its own: what the node keeps
// in this process's memory for a workflow (its processed-data store) is not the next test's. A test that
// re-runs a workflow keeps both meanwhile.
useMemoryProcessedData();
let testWorkflow = 0;
/** The id of the workflow every run of the current test belongs to. */
export const workflowIdOfTest = () => `engine-test-${testWorkflow}`;
/** n8n's database wiped and a workflow of its own from here on: what a test starts from. */
export function freshDatabase() {
	forgetProcessedData();
	testWorkflow++;
}
if (typeof beforeEach === 'function') beforeEach(freshDatabase);

/** Node classes by the type name n8n gives them when the package is installed. */
const nodeClasses: Record<string, INodeType | IVersionedNodeType> = {};
export function registerNodeType(
	name: string,
	node: INodeType | IVersionedNodeType,
	packageName = PACKAGE,
) {
	nodeClasses[`${packageName}.${name}`] = node;
}
for (const node of [
	new PayoutsTransfer(),
	new PayoutsBeneficiary(),
	new PayoutsIncident(),
	new PayoutsPaylink(),
	new PayoutsOAuth(),
	new PayoutsIncidentTrigger(),
]) {
	registerNodeType(node.description.name, node);
}

/**
 * The n8n process's life, for its timers: a restart ends it, and a wait begun before never ends, as
 * in a process that was killed (the record's later writes of the old process never come).
 */
let processLife = { alive: true };
/** n8n-workflow's `sleep`, which the package's code reads at each call, made to die with its process. */
function killableTimers(workflowPackage: typeof import('n8n-workflow')) {
	const sleep = workflowPackage.sleep;
	const sleepWhileAlive = async (ms: number) => {
		const life = processLife;
		await sleep(ms);
		if (!life.alive) await new Promise<never>(() => {});
	};
	Object.defineProperty(workflowPackage, 'sleep', { enumerable: true, get: () => sleepWhileAlive });
}
// Under jest only (restartN8n is jest's): the benchmark runs the engine without restarts.
if (typeof jest !== 'undefined') killableTimers(jest.requireActual('n8n-workflow'));

/**
 * n8n restarted (a crash, a deploy): what the package's nodes kept in this process's memory (the
 * answers they heard, their processed-data stores, what each execution sent) is gone; n8n's database (the
 * processed-data store of harness/processedData.ts) is kept. From here on the workflows run a
 * fresh load of the package's code, as a new n8n process would; n8n's own packages stay as they are.
 */
export function restartN8n() {
	const workflowPackage: unknown = jest.requireActual('n8n-workflow');
	processLife.alive = false;
	processLife = { alive: true };
	jest.isolateModules(() => {
		jest.doMock('n8n-workflow', () => workflowPackage);
		const { PayoutsTransfer: Restarted } =
			// eslint-disable-next-line @typescript-eslint/no-require-imports
			require('../nodes/PayoutsTransfer/PayoutsTransfer.node.ts') as typeof import('../nodes/PayoutsTransfer/PayoutsTransfer.node.ts');
		registerNodeType('payoutsTransfer', new Restarted());
	});
}

/**
 * A stand-in for n8n's "No Operation, do nothing" node (n8n-nodes-base.noOp, not installed here):
 * it hands its items on unchanged. As a workflow's first step it gives the next node a parent, and
 * n8n adds a parent's item to each item a node sends to its error output.
 */
const noOp: INodeType = {
	description: {
		displayName: 'No Operation, do nothing',
		name: 'noOp',
		group: ['organization'],
		version: 1,
		description: 'Hands its items on unchanged',
		defaults: { name: 'No Operation, do nothing' },
		inputs: ['main'],
		outputs: ['main'],
		properties: [],
	},
	async execute(this: IExecuteFunctions) {
		return [this.getInputData()];
	},
};
registerNodeType('noOp', noOp, 'n8n-nodes-base');

/** The workflow's first step, handing the input items to the node connected after it. */
export function passThroughNode(name: string): INode {
	return {
		id: `noop-${name}`,
		name,
		type: 'n8n-nodes-base.noOp',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
}

const nodeTypes: INodeTypes = {
	getByName: (type) => nodeClasses[type] ?? lookup(type),
	getByNameAndVersion: (type, version) => lookup(type, version),
	getKnownTypes: () =>
		Object.fromEntries(
			Object.keys(nodeClasses).map((type) => [type, { className: type, sourcePath: '' }]),
		),
};
function lookup(type: string, version?: number): INodeType {
	const node = nodeClasses[type];
	if (!node) throw new Error(`Unknown node type ${type}`);
	// A versioned node type (such as n8n's HTTP Request node) holds one class per version.
	return 'nodeVersions' in node ? node.getNodeType(version) : node;
}

const credentialTypes: Record<string, ICredentialType> = { payoutsApi: new PayoutsApi() };

/** Resolves "={{$credentials.x}}" in a generic authenticate block, as n8n's own helper does. */
function resolveCredentialExpression(
	value: string,
	credentials: ICredentialDataDecryptedObject,
): string {
	if (!value.startsWith('=')) return value;
	return value
		.slice(1)
		.replace(/\{\{\s*\$credentials\.(\w+)\s*\}\}/g, (_, key: string) =>
			String(credentials[key] ?? ''),
		);
}

class TestCredentialsHelper extends ICredentialsHelper {
	constructor(private readonly data: Record<string, ICredentialDataDecryptedObject>) {
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
		typeName: string,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const authenticate = credentialTypes[typeName]?.authenticate;
		if (authenticate === undefined) return requestOptions;
		if (typeof authenticate === 'function') return await authenticate(credentials, requestOptions);
		const headers = { ...(requestOptions.headers ?? {}) };
		for (const [name, value] of Object.entries(authenticate.properties.headers ?? {})) {
			headers[name] = resolveCredentialExpression(String(value), credentials);
		}
		return { ...requestOptions, headers };
	}

	async preAuthentication() {
		return undefined;
	}

	async getCredentials(): Promise<ICredentials> {
		throw new Error('not used by these nodes');
	}

	async getDecrypted(
		_additionalData: unknown,
		_nodeCredentials: unknown,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		const found = this.data[type];
		if (!found) throw new Error(`No test credentials of type ${type}`);
		return found;
	}

	async updateCredentials() {}

	async updateCredentialsOauthTokenData() {}

	getCredentialsProperties() {
		return credentialTypes.payoutsApi.properties;
	}
}

export interface WorkflowRun {
	run: IRun;
	executionId: string;
	/** Output items of a node (first run, first output). */
	output(nodeName: string, outputIndex?: number): INodeExecutionData[];
	/** The error that stopped the run, if any. */
	error:
		| (Error & {
				description?: string;
				httpCode?: string | null;
				context?: IDataObject;
				node?: INode;
		  })
		| undefined;
}

export interface RunWorkflowOptions {
	/** The saved workflow's id (default: the test's own): another id is another workflow, e.g. a copy. */
	workflowId?: string;
	nodes: INode[];
	connections?: IConnections;
	/** Items handed to the first node. */
	input?: IDataObject[];
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	executionId?: string;
	settings?: IWorkflowSettings;
	staticData?: IDataObject;
	/** How n8n started the execution: 'manual' (default) or 'trigger'; n8n's Retry of a failed one is retryWorkflow. */
	mode?: 'manual' | 'trigger';
	/** Called as the execution starts with what the editor's Stop button does to it. */
	onStart?: (stop: () => void) => void;
}

function additionalDataFor(
	credentials: Record<string, ICredentialDataDecryptedObject>,
	executionId: string,
	hooks?: ExecutionLifecycleHooks,
): IWorkflowExecuteAdditionalData {
	return {
		credentialsHelper: new TestCredentialsHelper(credentials),
		hooks,
		executionId,
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
}

let executionCounter = 0;

export async function runWorkflow(options: RunWorkflowOptions): Promise<WorkflowRun> {
	const first = options.nodes[0];
	const runExecutionData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [
				{
					node: first,
					data: { main: [(options.input ?? [{}]).map((json) => ({ json }))] },
					source: null,
				},
			],
		},
	});
	return await execute(options, runExecutionData, options.mode ?? 'manual');
}

/**
 * n8n's Retry of a failed execution (harness/n8nRetry.ts: n8n's own ExecutionService.retry): a new
 * execution from the failed node, with the failed execution's saved run data; the steps before
 * it are not run again. `options` is the workflow as it ran (nodes, connections, credentials).
 */
export async function retryWorkflow(
	failed: WorkflowRun,
	options: RunWorkflowOptions,
): Promise<WorkflowRun> {
	const workflowId = options.workflowId ?? workflowIdOfTest();
	let result: WorkflowRun | undefined;
	await retryInN8n(
		{
			id: failed.executionId,
			workflowId,
			workflowData: { id: workflowId, nodes: options.nodes, connections: options.connections },
			run: failed.run,
		},
		async (data) => {
			result = await execute(
				{ ...options, executionId: undefined },
				data.executionData,
				data.executionMode,
			);
			return result.run;
		},
	);
	return result!;
}

async function execute(
	options: RunWorkflowOptions,
	runExecutionData: IRunExecutionData,
	mode: WorkflowExecuteMode,
): Promise<WorkflowRun> {
	const workflow = new Workflow({
		id: options.workflowId ?? workflowIdOfTest(),
		nodes: options.nodes,
		connections: options.connections ?? {},
		nodeTypes,
		active: false,
		settings: options.settings ?? { timezone: 'UTC' },
		staticData: options.staticData,
	});
	const executionId = options.executionId ?? String(++executionCounter);
	const hooks = new ExecutionLifecycleHooks(mode, executionId, {
		id: options.workflowId ?? workflowIdOfTest(),
		name: 'engine test',
		nodes: options.nodes,
		connections: options.connections ?? {},
		active: false,
		isArchived: false,
		createdAt: new Date(),
		updatedAt: new Date(),
		activeVersionId: null,
	} as never);
	let finish!: (run: IRun) => void;
	const finished = new Promise<IRun>((resolve) => (finish = resolve));
	hooks.addHandler('workflowExecuteAfter', (run) => finish(run));

	const additionalData = additionalDataFor(options.credentials ?? {}, executionId, hooks);
	const execution = new WorkflowExecute(
		additionalData,
		mode,
		runExecutionData,
	).processRunExecutionData(workflow);
	options.onStart?.(() => execution.cancel());
	await execution;
	const run = await finished;
	return {
		run,
		executionId,
		output: (nodeName, outputIndex = 0) =>
			run.data.resultData.runData[nodeName]?.[0]?.data?.main?.[outputIndex] ?? [],
		error: run.data.resultData.error as WorkflowRun['error'],
	};
}

export interface NodeUnderTest {
	type: string;
	parameters: Record<string, unknown>;
	name?: string;
	/** Its id in the workflow (default `<type>-id-0001`): two nodes of one type in a workflow need two. */
	id?: string;
	/** The node version a saved workflow holds (default 1). */
	typeVersion?: number;
	continueOnFail?: boolean;
	/** "Continue (using error output)": failed items on a second output. */
	errorOutput?: boolean;
	retryOnFail?: boolean;
	maxTries?: number;
	waitBetweenTries?: number;
}

/** A node of this package as a workflow holds it. */
export function payoutsNode(node: NodeUnderTest): INode {
	return {
		id: node.id ?? `${node.type}-id-0001`,
		name: node.name ?? 'Payouts',
		type: `${PACKAGE}.${node.type}`,
		typeVersion: node.typeVersion ?? 1,
		position: [0, 0],
		parameters: node.parameters as INodeParameters,
		credentials: { payoutsApi: { id: '1', name: 'Payouts account' } },
		...(node.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
		...(node.errorOutput ? { onError: 'continueErrorOutput' as const } : {}),
		...(node.retryOnFail
			? {
					retryOnFail: true,
					maxTries: node.maxTries ?? 2,
					waitBetweenTries: node.waitBetweenTries ?? 0,
				}
			: {}),
	};
}

/** Runs one of our nodes over the given input items. */
export async function runNode(
	node: NodeUnderTest,
	input: IDataObject[],
	credentials: ICredentialDataDecryptedObject,
	extra: Partial<RunWorkflowOptions> = {},
) {
	const result = await runWorkflow({
		nodes: [payoutsNode(node)],
		input,
		credentials: { payoutsApi: credentials },
		...extra,
	});
	return {
		...result,
		items: result.output(node.name ?? 'Payouts'),
		errorItems: result.output(node.name ?? 'Payouts', 1),
	};
}

/** n8n-core keeps a 60 s timer alive after first use; stop it so jest can exit. */
export function stopEngineTimers() {
	if (Container.has(SSHClientsManager)) Container.get(SSHClientsManager).onShutdown();
}

/**
 * One poll of a polling trigger, as n8n runs it for an active workflow ('trigger') or for the
 * editor's "Fetch Test Event" ('manual'). The static data comes back as n8n would save it.
 */
export async function runPoll(
	parameters: Record<string, unknown>,
	credentials: ICredentialDataDecryptedObject,
	options: {
		staticData?: IDataObject;
		mode?: 'trigger' | 'manual';
		timezone?: string;
		typeVersion?: number;
	} = {},
) {
	const node = payoutsNode({
		type: 'payoutsIncidentTrigger',
		name: 'Incident Trigger',
		parameters,
		typeVersion: options.typeVersion,
	});
	const workflow = new Workflow({
		id: 'poll-test',
		nodes: [node],
		connections: {},
		nodeTypes,
		active: true,
		settings: { timezone: options.timezone ?? 'UTC' },
		staticData: options.staticData ? JSON.parse(JSON.stringify(options.staticData)) : {},
	});
	const context = new PollContext(
		workflow,
		node,
		additionalDataFor({ payoutsApi: credentials }, String(++executionCounter)),
		options.mode ?? 'trigger',
		'activate',
	);
	const result = await lookup(node.type).poll!.call(context);
	return {
		items: result?.[0] ?? [],
		staticData: JSON.parse(JSON.stringify(workflow.staticData)) as IDataObject,
	};
}

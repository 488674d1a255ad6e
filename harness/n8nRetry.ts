/* eslint-disable @n8n/community-nodes/no-restricted-imports -- runs in Node under jest and the simulator, never inside n8n: it loads n8n's own code from its install */
/**
 * n8n's own Retry of a failed execution (the Executions list's Retry button), for the in-process
 * tests and the simulator: `ExecutionService.retry` of the n8n that `npm start` runs, loaded from
 * its install, with stand-ins only for what lies outside it (its database, its runner, its events).
 *
 * What n8n does (n8n 2.41.1, `packages/cli/src/executions/execution.service.ts`): it reads the
 * failed execution's saved run data, drops the error and the failed node's last run, and hands the
 * rest to its runner with mode 'retry'; the runner (`WorkflowRunner.runMainProcess`, or a queue
 * worker's job) runs `WorkflowExecute.processRunExecutionData` on it. The node stack still holds
 * the failed node with its input, so the steps before it are not run again: an earlier step's
 * claim is not asked again, and the node's own record is all that stands between the retry and a
 * second payment.
 */
import path from 'node:path';

import type { IRun, IRunExecutionData } from 'n8n-workflow';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureRuntime, runtimeFor, runtimeReady } = require('./runtime') as {
	ensureRuntime(): Promise<unknown>;
	runtimeFor(): { dir: string };
	runtimeReady(): boolean;
};

/** What n8n hands its runner for a retry. */
export interface RetryData {
	executionMode: 'retry';
	executionData: IRunExecutionData;
	retryOf: string;
}

/** A failed execution as n8n keeps it: its run data and the workflow it ran. */
export interface SavedExecution {
	id: string;
	workflowId: string;
	workflowData: object;
	run: IRun;
}

type ExecutionServiceClass = { prototype: { retry(request: object): Promise<{ id: string }> } };
type Flatted = { parse(text: string): unknown; stringify(value: unknown): string };

let loaded: { ExecutionService: ExecutionServiceClass; flatted: Flatted } | undefined;

/**
 * n8n's ExecutionService and the serializer its database layer keeps run data with, loaded once
 * from n8n's install, which this waits for (or makes: harness/runtime.js `ensureRuntime`, the
 * install's lock). The simulator loads them before its clock takes over timers.
 */
export async function loadN8nCode() {
	if (!loaded && !runtimeReady()) await ensureRuntime();
	return n8nCode();
}

/** The same, once loaded (loadN8nCode). */
function n8nCode() {
	if (loaded) return loaded;
	if (!runtimeReady()) throw new Error('n8n is not installed yet: await loadN8nCode() first');
	const modules = path.join(runtimeFor().dir, 'node_modules');
	loaded = {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		ExecutionService: require(path.join(modules, 'n8n/dist/executions/execution.service.js'))
			.ExecutionService as ExecutionServiceClass,
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		flatted: require(path.join(modules, 'flatted')) as Flatted,
	};
	return loaded;
}

/**
 * Retries a failed execution as n8n's Retry button does. `start` is the runner: it runs n8n's
 * engine on the data n8n hands it and gives the execution's end.
 */
export async function retryInN8n(
	failed: SavedExecution,
	start: (data: RetryData) => Promise<IRun>,
): Promise<IRun> {
	const { ExecutionService, flatted } = await loadN8nCode();
	// As n8n's database gives it back: stored as flatted text, read afresh.
	const stored = flatted.parse(flatted.stringify(failed.run.data)) as IRunExecutionData;
	let running: Promise<IRun> | undefined;
	const quiet = { info() {}, warn() {}, error() {}, debug() {} };
	const service = Object.assign(Object.create(ExecutionService.prototype) as object, {
		logger: quiet,
		executionPersistence: {
			findWithUnflattenedData: async () => ({
				id: failed.id,
				status: 'error',
				finished: false,
				mode: failed.run.mode,
				workflowId: failed.workflowId,
				workflowData: structuredClone(failed.workflowData),
				data: stored,
				customData: {},
			}),
		},
		workflowRunner: {
			run: async (data: RetryData) => {
				running = start(data);
				return `${failed.id}-retry`;
			},
		},
		activeExecutions: { getPostExecutePromise: async () => await running },
		ownershipService: {
			getWorkflowProjectCached: async () => ({ id: 'project', name: 'project' }),
		},
		eventService: { emit() {} },
		executionRedactionServiceProxy: { processExecution: async () => undefined },
	}) as unknown as ExecutionServiceClass['prototype'];
	await service.retry({
		executionId: failed.id,
		options: {},
		sharedWorkflowIds: [failed.workflowId],
		user: { id: 'user', email: 'user@example.com', firstName: 'A', lastName: 'User', role: {} },
	});
	if (!running) throw new Error('n8n did not start the retry');
	return await running;
}

/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/require-node-api-error -- test code runs in Node under jest, never inside n8n (it uses Node's own modules, timers, files and the environment); these rules guard the code n8n loads (nodes/, credentials/), and NodeApiError needs a node, which a test has not */
/**
 * What the end-to-end suites share (docs/testing.md, "Harness helpers"): a suite's own n8n (user
 * folder with the package installed as n8n installs it, the sandbox credential, workflows, and
 * with `server` an `n8n start` ready for the REST routes the tests use), workflow runs as the
 * editor runs them, a saved execution's output, and one-line failure messages.
 * The n8n side lives in harness/ (also used by `npm start` and the benchmark); this file types it for the tests.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { seed, startSandbox } from '../../harness/sandbox';
import type { Sandbox } from '../../harness/sandbox';

// eslint-disable-next-line @typescript-eslint/no-require-imports
export const n8n = require('../../harness');

export type Json = Record<string, unknown>;
export type Rest = ((method: string, route: string, body?: unknown) => Promise<unknown>) & {
	url: string;
	cookie: () => string;
};
export type Server = {
	url: string;
	cookie: string;
	logFile: string;
	child: { pid?: number };
	stop: () => Promise<void>;
};
export type Workflow = {
	id: string;
	name: string;
	nodes: Json[];
	connections: Json;
	[key: string]: unknown;
};
type RunData = {
	resultData: {
		error?: Json;
		lastNodeExecuted?: string;
		runData: Record<
			string,
			Array<{ error?: Json; data?: { main?: Array<Array<{ json: Json }> | null> } }>
		>;
	};
};

/**
 * An example workflow of examples/, as shipped and as `npm start` imports it: with the id the harness
 * gives it and its webhooks' paths (the files carry neither: harness/workflows.js, EXAMPLE_IDS and
 * EXAMPLE_WEBHOOK_PATHS).
 */
export function example(name: string): Workflow {
	const file = `${name}.json`;
	return {
		id: n8n.EXAMPLE_IDS[file],
		...n8n.withWebhookPaths(
			file,
			JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'examples', file), 'utf8')),
		),
	};
}

/** Asks `probe` every `intervalMs` until it gives a value (not undefined/false), at most `seconds`; the error says what was awaited. */
export async function until<T>(
	what: string,
	probe: () => Promise<T | undefined | false> | T | undefined | false,
	seconds: number,
	intervalMs = 500,
): Promise<T> {
	return (await n8n.waitFor(what, probe, { timeoutSeconds: seconds, intervalMs })) as T;
}

/** The items a node output on `branch` (every run of the node, in order). */
export function nodeOutput(data: RunData | undefined, node: string, branch = 0): Json[] {
	return (data?.resultData.runData[node] ?? [])
		.flatMap((task) => task.data?.main?.[branch] ?? [])
		.map((item) => item.json);
}

/** One line: the execution's error, each node's output by status, and (with `ledger`) the sandbox's ledger. */
export function describeExecution(result: unknown, ledger?: Sandbox | Json[]): string {
	return n8n.describeExecution(result, ledger === undefined ? {} : { ledger });
}

/** A saved execution (`GET /rest/executions/<id>`), its run data read with n8n's own flatted. */
export async function savedExecution(rest: Rest, id: string) {
	const saved = (await rest('GET', `/executions/${id}`)) as
		| { id: string; status: string; mode: string; data: string }
		| undefined;
	if (!saved) throw new Error(`n8n has no execution ${id}`);
	const { resultData } = n8n.runDataOf(saved) as { resultData: RunData['resultData'] };
	const data = { resultData } as RunData;
	return {
		id: String(saved.id),
		status: saved.status,
		mode: saved.mode,
		data,
		error: resultData?.error,
		output: (node: string, branch = 0) => nodeOutput(data, node, branch),
		describe: (ledger?: Sandbox | Json[]) => describeExecution(saved, ledger),
	};
}
export type SavedExecution = Awaited<ReturnType<typeof savedExecution>>;

const FINISHED = ['success', 'error', 'crashed', 'canceled'];

/** Waits until n8n has finished execution `id` (at most `seconds`) and gives it. */
export async function finishedExecution(
	rest: Rest,
	id: string,
	seconds = 120,
): Promise<SavedExecution> {
	return await until(
		`execution ${id} to finish`,
		async () => {
			const found = await savedExecution(rest, id).catch(() => undefined);
			return found && FINISHED.includes(found.status) ? found : undefined;
		},
		seconds,
	);
}

/**
 * Runs a saved workflow as the editor's "Execute workflow" does (in the server, from `trigger`,
 * by default its Manual Trigger) and waits until it has finished.
 */
export async function runInServer(
	rest: Rest,
	workflowId: string,
	{ trigger, seconds = 120 }: { trigger?: string; seconds?: number } = {},
): Promise<SavedExecution> {
	const workflowData = (await rest('GET', `/workflows/${workflowId}`)) as Workflow;
	const start =
		trigger ??
		(workflowData.nodes.find((node) => node.type === 'n8n-nodes-base.manualTrigger')
			?.name as string);
	const { executionId } = (await rest('POST', `/workflows/${workflowId}/run`, {
		workflowData,
		triggerToStartFrom: { name: start },
	})) as { executionId: string };
	return await finishedExecution(rest, String(executionId), seconds);
}

/** Runs a saved workflow with the n8n CLI (`n8n execute --rawOutput`): exit code, run data, a node's output, the one-line description. */
export async function runWithCli(id: string, env: Record<string, string>) {
	const result = (await n8n.executeWorkflow(id, env)) as { code: number; run: { data: RunData } };
	return {
		code: result.code,
		run: result.run,
		error: result.run.data.resultData.error,
		output: (node: string, branch = 0) => nodeOutput(result.run.data, node, branch),
		describe: (ledger?: Sandbox | Json[]) => describeExecution(result, ledger),
	};
}

/**
 * Fails with the one-line description (error, output by status, ledger) unless the run ended as
 * expected: `{ status: 'success' }` for a saved execution, `{ code: 0 }` for a CLI run.
 */
export function expectRun(
	run: { status?: string; code?: number; describe: (ledger?: Sandbox | Json[]) => string },
	expected: { status?: string; code?: number },
	ledger?: Sandbox | Json[],
) {
	const wrong =
		(expected.status !== undefined && run.status !== expected.status) ||
		(expected.code !== undefined && run.code !== expected.code);
	if (wrong) throw new Error(`expected ${JSON.stringify(expected)}, got: ${run.describe(ledger)}`);
}

/** Where each suite's n8n server log is kept after the run (test-results/ is not committed). */
export const LOGS = path.join(__dirname, '..', '..', 'test-results', 'n8n-logs');

export type SuiteN8n = {
	sandbox: Sandbox;
	userFolder: string;
	/** The CLI's environment (`n8n execute`, imports). */
	env: Record<string, string>;
	server?: Server;
	rest?: Rest;
	/** Stops the server and starts it again on the same database (nothing left in its memory); gives the new REST client. */
	restart: () => Promise<Rest>;
	close: () => Promise<void>;
};

/** A plain-JavaScript package copied where n8n loads community packages, and listed as installed. */
function installFolderPackage(userFolder: string, { name, dir }: { name: string; dir: string }) {
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	fs.cpSync(dir, path.join(nodesDir, 'node_modules', name), { recursive: true });
	const manifest = path.join(nodesDir, 'package.json');
	const installed = JSON.parse(fs.readFileSync(manifest, 'utf8')) as {
		dependencies: Record<string, string>;
	};
	installed.dependencies[name] = (
		JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }
	).version;
	fs.writeFileSync(manifest, JSON.stringify(installed, null, 2));
}

/**
 * A suite's own n8n: a sandbox (its options), a fresh user folder with the package installed the
 * community-package way, the "Payouts Sandbox" credential pointing at that sandbox, `workflows`
 * imported and `publish` made active before n8n starts; with `server`, `n8n start` ready for the
 * REST routes (owner signed in) and a REST client. `env` changes the server's and the CLI's
 * environment (a key set to undefined is removed); `prepare(sandbox)` runs before n8n first starts
 * (e.g. the service's timezone); `packages` are test-only community packages installed beside ours;
 * `credentials` are imported beside those of `npm start`.
 * `close()` stops and removes all of it, keeping the server's
 * log as test-results/n8n-logs/<name>.log (the whole user folder with KEEP_N8N_FOLDERS=1).
 */
export async function suiteN8n({
	name,
	sandbox: sandboxOptions = {},
	workflows = [],
	publish = [],
	server: withServer = false,
	env: envChanges = {},
	prepare,
	packages = [],
	credentials = [],
}: {
	name: string;
	sandbox?: Parameters<typeof startSandbox>[0];
	workflows?: object[];
	publish?: string[];
	server?: boolean;
	env?: Record<string, string | undefined>;
	prepare?: (sandbox: Sandbox) => Promise<void>;
	/** Test-only community packages (a folder each, plain JavaScript) installed beside this one. */
	packages?: Array<{ name: string; dir: string }>;
	/** More credentials (n8n's import format), imported with those of `npm start`, before the workflows. */
	credentials?: object[];
}): Promise<SuiteN8n> {
	await n8n.ensureRuntime();
	const sandbox = await startSandbox({ port: 0, host: '127.0.0.1', ...sandboxOptions });
	const userFolder = fs.mkdtempSync(path.join(os.tmpdir(), `payouts-${name}-`));
	const suite: SuiteN8n = {
		sandbox,
		userFolder,
		env: {},
		restart: async () => {
			throw new Error('this suite has no server to restart');
		},
		close: async () => {
			await suite.server?.stop();
			await sandbox.close();
			// The server's log outlives the folder, for the one reading a failure.
			const log = path.join(userFolder, 'n8n.log');
			if (fs.existsSync(log)) {
				fs.mkdirSync(LOGS, { recursive: true });
				fs.copyFileSync(log, path.join(LOGS, `${name}.log`));
			}
			if (!process.env.KEEP_N8N_FOLDERS) fs.rmSync(userFolder, { recursive: true, force: true });
		},
	};
	try {
		await prepare?.(sandbox);
		await n8n.installPackage(userFolder);
		for (const extra of packages) installFolderPackage(userFolder, extra);
		const withChanges = (env: Record<string, string>) => {
			for (const [key, value] of Object.entries(envChanges)) {
				if (value === undefined) delete env[key];
				else env[key] = value;
			}
			return env;
		};
		// The CLI and the server share the database, each with a task-runner broker port of its own.
		suite.env = withChanges(
			n8n.n8nEnv(userFolder, { port: await n8n.freePort(), brokerPort: await n8n.freePort() }),
		);
		await n8n.importCredential(userFolder, suite.env, sandbox, seed);
		if (credentials.length) await n8n.importCredentials(userFolder, suite.env, credentials);
		if (workflows.length) await n8n.importWorkflows(userFolder, suite.env, workflows);
		for (const id of publish) await n8n.publishWorkflow(suite.env, id);
		if (withServer) {
			const serverEnv = withChanges(
				n8n.n8nEnv(userFolder, { port: await n8n.freePort(), brokerPort: await n8n.freePort() }),
			);
			const start = async () => {
				suite.server = (await n8n.startServer(
					serverEnv,
					path.join(userFolder, 'n8n.log'),
				)) as Server;
				suite.rest = (await n8n.restClient(suite.server.url, {
					cookie: suite.server.cookie,
				})) as Rest;
				return suite.rest;
			};
			suite.restart = async () => {
				await suite.server?.stop();
				return await start();
			};
			await start();
		}
		return suite;
	} catch (error) {
		await suite.close();
		throw error;
	}
}

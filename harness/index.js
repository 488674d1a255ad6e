'use strict';
/**
 * Real n8n for `npm start`, the end-to-end tests, the browser test and the benchmark: one entry
 * for the harness's modules, each doing one job. Each module requires only those listed above it
 * here, so loading one never loads a later one.
 *
 * - common.js     the checkout, the log line, npm without this project's npm settings
 * - locks.js      one process at a time per cache folder or build
 * - node-runtime.js  which Node runs a given n8n on this platform (pure)
 * - runtime.js    the pinned n8n and its Node installed into the cache, native modules built
 * - pack.js       this package built, packed and installed into a user folder as n8n does
 * - ports.js      free ports, and who listens on one
 * - server.js     n8n's environment and CLI, `n8n start` and its owner account
 * - rest.js       n8n's REST API: a client, webhooks, unfinished executions stopped
 * - workflows.js  credentials, examples and workflows imported and published
 * - runs.js       `n8n execute`, and what a run did in one line
 *
 * In-process (TypeScript, for jest and the benchmark): engine.ts runs workflows through n8n-core
 * with processedData.ts as n8n's store (processedDataModel.ts), and sandbox.ts loads the sandbox.
 */
const common = require('./common');
const locks = require('./locks');
const runtime = require('./runtime');
const pack = require('./pack');
const ports = require('./ports');
const server = require('./server');
const rest = require('./rest');
const workflows = require('./workflows');
const runs = require('./runs');

module.exports = {
	ROOT: common.ROOT,
	CACHE_DIR: runtime.CACHE_DIR,
	VERSIONS: runtime.VERSIONS,
	RUNTIME: runtime.RUNTIME,
	runtimeFor: runtime.runtimeFor,
	acceptedNodeRanges: runtime.acceptedNodeRanges,
	ensureNode: runtime.ensureNode,
	RUNTIME_DIR: runtime.RUNTIME_DIR,
	N8N_BIN: runtime.N8N_BIN,
	N8N_VERSION: runtime.N8N_VERSION,
	PACKAGE_NAME: common.PACKAGE_NAME,
	OWNER: server.OWNER,
	CREDENTIAL_ID: workflows.CREDENTIAL_ID,
	ensureRuntime: runtime.ensureRuntime,
	runtimeReady: runtime.runtimeReady,
	installPackage: pack.installPackage,
	packPackage: pack.packPackage,
	withBuildLock: pack.withBuildLock,
	n8nEnv: server.n8nEnv,
	n8nCli: server.n8nCli,
	sandboxCredential: workflows.sandboxCredential,
	EVENT_SIGNING: workflows.EVENT_SIGNING,
	APP_SIGNING: workflows.APP_SIGNING,
	signingCredential: workflows.signingCredential,
	importCredential: workflows.importCredential,
	importCredentials: workflows.importCredentials,
	EXAMPLE_IDS: workflows.EXAMPLE_IDS,
	EXAMPLE_WEBHOOK_PATHS: workflows.EXAMPLE_WEBHOOK_PATHS,
	withWebhookPaths: workflows.withWebhookPaths,
	exampleWorkflows: workflows.exampleWorkflows,
	importWorkflows: workflows.importWorkflows,
	importExamplesOnce: workflows.importExamplesOnce,
	workflowNames: workflows.workflowNames,
	freePort: ports.freePort,
	listenerPid: ports.listenerPid,
	waitFor: server.waitFor,
	startServer: server.startServer,
	ensureOwner: server.ensureOwner,
	sessionRefused: server.sessionRefused,
	restClient: rest.restClient,
	waitForWebhook: rest.waitForWebhook,
	unfinishedExecutions: rest.unfinishedExecutions,
	stopRunningExecutions: rest.stopRunningExecutions,
	runDataOf: runs.runDataOf,
	describeExecution: runs.describeExecution,
	describeLedger: runs.describeLedger,
	flatted: runs.flatted,
	publishWorkflow: workflows.publishWorkflow,
	takeLock: locks.takeLock,
	parseExecuteOutput: runs.parseExecuteOutput,
	executeWorkflow: runs.executeWorkflow,
	npmEnv: common.npmEnv,
	log: common.log,
};

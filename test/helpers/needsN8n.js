'use strict';
/**
 * Which suites need the n8n runtime installed (harness/runtime.js): the ones that run real n8n
 * (test/e2e, test/browser), and the ones that run n8n's own code from its install: n8n's Retry of a
 * failed execution (harness/n8nRetry.ts), which the simulator and some engine suites use. On a
 * fresh machine globalSetup.ts installs it in the background and the sequencer runs these suites
 * after the others, so that no worker waits for the install while others have work.
 */
const fs = require('node:fs');

const RUNS_REAL_N8N = /[\\/]test[\\/](e2e|browser)[\\/]/;
const RUNS_N8N_CODE = /[\\/]test[\\/]simulator[\\/]/;

/** A suite that runs real n8n. */
const runsRealN8n = (file) => RUNS_REAL_N8N.test(file);

/** A suite that needs the runtime: real n8n, or n8n's own Retry code. */
const needsN8n = (file) =>
	runsRealN8n(file) ||
	RUNS_N8N_CODE.test(file) ||
	fs.readFileSync(file, 'utf8').includes('retryWorkflow(');

module.exports = { needsN8n, runsRealN8n };

/**
 * Every test: unit, sandbox, engine (n8n-core in-process), end-to-end (real n8n) and browser.
 *
 * Three suites at a time, also on two cores (test/helpers/workers.js): the end-to-end suites
 * mostly wait for n8n (polls a minute apart, restarts, kills), and each starts its own n8n, sandbox
 * and user folder on free ports, so they do not interfere. globalSetup starts the n8n install and the package's pack in
 * the background while the first suites run; the sequencer runs the longest suites first
 * (docs/testing.md, "How long `npm test` takes").
 */
const { WORKERS } = require('./test/helpers/workers');

module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
	// N8N_ENGINE_FROM=<an installed n8n>: the in-process tests run that n8n's engine (test/helpers/engineFrom.js).
	moduleNameMapper: require('./test/helpers/engineFrom').moduleNameMapper(),
	testTimeout: 30000,
	maxWorkers: WORKERS,
	globalSetup: '<rootDir>/test/helpers/globalSetup.ts',
	globalTeardown: '<rootDir>/test/helpers/globalTeardown.ts',
	testSequencer: '<rootDir>/test/helpers/sequencer.js',
};

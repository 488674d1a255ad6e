'use strict';
/**
 * The order of `npm test`'s suites (jest.config.js), for its workers (workers.js): longest first, so
 * that the long suites, which mostly wait for n8n (polls a minute apart, kills, restarts), start
 * early and the short ones fill the gaps. While the n8n runtime is not installed yet (a fresh
 * machine; globalSetup.ts installs it in the background), the suites that do not need n8n go
 * first, so that no worker sits waiting for the install while others have work.
 *
 * A suite's length is its duration in jest's cache of the last run, else the figure below
 * (jest's durations in a cold run on a fresh clone, 2 cores, two suites at a time, nothing else
 * running: docs/testing.md), else a guess from its size.
 */
const fs = require('node:fs');
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const n8n = require('../../harness');
const { needsN8n, runsRealN8n } = require('./needsN8n');
const { WORKERS } = require('./workers');

/** Seconds, measured (docs/testing.md, "How long `npm test` takes": the cold run of 2026-11-29, nothing else running). */
const MEASURED = {
	'test/e2e/queue.test.ts': 298,
	'test/e2e/queueClaims.test.ts': 243,
	'test/browser/editor.test.ts': 189,
	'test/e2e/examplesPublished.test.ts': 121,
	'test/e2e/exactlyOnce.test.ts': 110,
	'test/e2e/chaosTopUps.test.ts': 90,
	'test/simulator/reports.test.ts': 73,
	'test/e2e/paths.test.ts': 70,
	'test/e2e/scale.test.ts': 62,
	'test/e2e/incidentLoop.test.ts': 60,
	'test/e2e/templates.test.ts': 52,
	'test/simulator/simulator.test.ts': 49,
	'test/package/package.test.ts': 48,
	'test/e2e/examples.test.ts': 43,
	'test/e2e/oneGuard.test.ts': 41,
	'test/engine/settle.test.ts': 39,
	'test/e2e/incidentTimezone.test.ts': 28,
	'test/e2e/settle.test.ts': 27,
	'test/e2e/install.test.ts': 26,
	'test/engine/record.test.ts': 21,
	'test/engine/exactlyOnce.test.ts': 19,
	'test/e2e/storeModel.test.ts': 13,
	'test/engine/fuzz.test.ts': 13,
};
const ROOT = path.join(__dirname, '..', '..');
/** The suites that start a queue-mode set-up: one at a time (scripts/queue.js takes a lock under jest). */
const QUEUE_MODE = ['test/e2e/queue.test.ts', 'test/e2e/queueClaims.test.ts'];

/**
 * The order the workers take `tests` in, longest first, but a queue-mode suite only when no other
 * is running (it would wait for the lock, its worker idle): each free worker takes the longest
 * queue-mode suite if the lock is free, else the longest other suite.
 */
function withQueueModeApart(tests, seconds, relative) {
	const queueMode = tests.filter((test) => QUEUE_MODE.includes(relative(test)));
	const others = tests.filter((test) => !queueMode.includes(test));
	const order = [];
	const freeAt = Array(WORKERS).fill(0);
	let lockFreeAt = 0;
	while (queueMode.length + others.length > 0) {
		const worker = freeAt.indexOf(Math.min(...freeAt));
		const now = freeAt[worker];
		const takesLock = queueMode.length > 0 && (lockFreeAt <= now || others.length === 0);
		const next = takesLock ? queueMode.shift() : others.shift();
		const done = (takesLock ? Math.max(now, lockFreeAt) : now) + seconds(next);
		if (takesLock) lockFreeAt = done;
		freeAt[worker] = done;
		order.push(next);
	}
	return order;
}

class PayoutsSequencer extends Sequencer {
	sort(tests) {
		const seconds = (test) => {
			const cached = this._getCache(test)[test.path];
			if (cached && cached[1] > 0) return cached[1] / 1000;
			const measured = MEASURED[path.relative(ROOT, test.path).split(path.sep).join('/')];
			if (measured !== undefined) return measured;
			// A suite of real n8n we have no figure for takes about a minute; others, by size.
			return runsRealN8n(test.path) ? 60 : fs.statSync(test.path).size / 2000;
		};
		const relative = (test) => path.relative(ROOT, test.path).split(path.sep).join('/');
		const longestFirst = (list) =>
			withQueueModeApart(
				[...list].sort((a, b) => seconds(b) - seconds(a)),
				seconds,
				relative,
			);
		if (n8n.runtimeReady()) return longestFirst(tests);
		const withN8n = tests.filter((test) => needsN8n(test.path));
		return [
			...longestFirst(tests.filter((test) => !withN8n.includes(test))),
			...longestFirst(withN8n),
		];
	}
}

module.exports = PayoutsSequencer;

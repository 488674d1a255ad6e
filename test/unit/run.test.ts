/**
 * The run (nodes/shared/run) on faked n8n helpers (fakeN8n.ts): how far ahead it claims rows in
 * the record, how many requests it has in flight, and when it stops sending. End to end, in n8n's
 * engine and in real n8n: test/engine/record.test.ts, test/engine/concurrency.test.ts, test/e2e.
 */
import type { IDataObject } from 'n8n-workflow';

import { readOptions } from '../../nodes/shared/input/options';
import * as lanes from '../../nodes/shared/run/lanes';
import * as runs from '../../nodes/shared/run/run';
import type { Outcomes, Planned } from '../../nodes/shared/types';
import { fakeN8n, paying, store } from './fakeN8n';
import type { Service } from './fakeN8n';
import { OPERATIONS, plan, VALID_ROWS } from './rows';

beforeEach(() => {
	jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
	store.clear();
	workflow++;
});
afterEach(() => {
	jest.clearAllTimers();
	jest.useRealTimers();
});
let workflow = 0;

const standard = OPERATIONS.standardTransfer;
const rows = (count: number, prefix: string): Planned[] =>
	Array.from({ length: count }, (_, index) =>
		plan(standard, { ...VALID_ROWS.standardTransfer, transferId: `${prefix}_${index}` }, index),
	);

/** The run's code as a restarted n8n process loads it: nothing of earlier runs in its memory. */
function restartedN8n(): { sendItems: typeof lanes.sendItems; newRun: typeof runs.newRun } {
	let loaded!: ReturnType<typeof restartedN8n>;
	jest.isolateModules(() => {
		/* eslint-disable @typescript-eslint/no-require-imports */
		loaded = {
			sendItems: (require('../../nodes/shared/run/lanes') as typeof lanes).sendItems,
			newRun: (require('../../nodes/shared/run/run') as typeof runs).newRun,
		};
		/* eslint-enable @typescript-eslint/no-require-imports */
	});
	return loaded;
}

/** Runs rows through the lanes as one run of the node does, moving n8n's timers on meanwhile. */
async function send(
	planned: Planned[],
	concurrency: number,
	service: Service = paying,
	{ sendItems, newRun } = { sendItems: lanes.sendItems, newRun: runs.newRun },
) {
	const n8n = fakeN8n(`unit-run-${workflow}`, service);
	const options = readOptions(standard, { concurrency });
	const target = { baseUrl: 'http://sandbox', timeoutMs: 30_000, authenticated: true };
	const run = newRun(
		n8n.context,
		standard,
		target,
		options,
		`unit-run-${workflow}`,
		planned.length,
	);
	const outcomes: Outcomes = new Map();
	let done = false;
	const sending = sendItems(run, planned, outcomes, new Map(), new Map<number, IDataObject>())
		.then(async () => await run.record?.close(() => undefined))
		.finally(() => (done = true));
	while (!done) await jest.advanceTimersByTimeAsync(5);
	await sending;
	const statuses = planned.map((entry) => {
		const outcome = outcomes.get(entry.index);
		return outcome && 'items' in outcome ? outcome.items[0].status : outcome?.failure.status;
	});
	return { n8n, statuses, outcomes };
}

/** Rows per claiming call of the record (card and standard rows ask two entries each). */
const rowsPerClaim = () =>
	store.calls.filter((call) => call.kind === 'check').map((call) => call.values.length / 2);

test('new rows are claimed in chunks that start at Concurrency and double while every row came back new; rows the record holds, Concurrency at a time', async () => {
	const batch = rows(200, 'grow');
	const first = await send(batch, 2);
	expect(first.statuses.every((status) => status === 'SUCCESS')).toBe(true);
	const claims = rowsPerClaim();
	expect(Math.max(...claims.slice(0, 1))).toBeLessThanOrEqual(4);
	expect(Math.max(...claims)).toBeGreaterThan(8);
	expect(Math.max(...claims)).toBeLessThanOrEqual(8 * 2 + 2 * 2);
	// The same rows again after a restart (the first process's timers die with it), all paid: asking
	// about a paid row writes "unconfirmed" until forgotten, so a kill leaves at most one claim's rows
	// in doubt: the lanes' lead and a chunk, at most three times Concurrency.
	jest.clearAllTimers();
	store.calls.length = 0;
	const again = await send(batch, 2, paying, restartedN8n());
	expect(again.statuses.every((status) => status === 'ALREADY_SUBMITTED')).toBe(true);
	expect(Math.max(...rowsPerClaim())).toBeLessThanOrEqual(3 * 2);
	expect(store.calls.filter((call) => call.kind === 'check' && call.values.length < 2)).toEqual([]);
	expect(again.n8n.requests).toEqual([]);
});

test('at most Concurrency requests in flight, every row sent once', async () => {
	const { n8n, statuses } = await send(rows(60, 'flight'), 5);
	expect(n8n.mostInFlight).toBe(5);
	expect(new Set(n8n.requests).size).toBe(60);
	expect(statuses.filter((status) => status === 'SUCCESS')).toHaveLength(60);
});

test('a refusal that every row would meet (the token) stops the run: no row is sent after it, and each says why', async () => {
	let answered = 0;
	const tokenExpires: Service = () =>
		++answered > 3
			? { status: 'ERROR', subCode: '403', message: 'Token is not valid' }
			: paying({});
	const { n8n, outcomes } = await send(rows(20, 'stop'), 1, tokenExpires);
	expect(n8n.requests).toHaveLength(4);
	const notSent = [...outcomes.values()].filter(
		(outcome) =>
			'failure' in outcome &&
			/^Not sent: the run stopped sending after/.test(outcome.failure.message),
	);
	expect(notSent).toHaveLength(16);
});

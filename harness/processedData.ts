/**
 * n8n's processed-data store for the in-process engine: the simulator's model of it
 * (harness/processedDataModel.ts, built from n8n 2.41.1's code and checked against real n8n), each
 * database step a turn of the event loop, as a real database call is. In real n8n the CLI backs
 * `checkProcessedAndRecord` with its database; n8n-core only holds the service that forwards to
 * the store it is given. The engine tests run the node's real record on it; the simulator runs
 * several n8n processes on it; the end-to-end tests use n8n's own database.
 */
import { DataDeduplicationService } from 'n8n-core';
import type { ICheckProcessedContextData, ICheckProcessedOptions } from 'n8n-workflow';

import { MAX_ENTRIES } from '../nodes/shared/record';
import { ProcessedDataModel } from './processedDataModel';

/** n8n's database, as the engine tests' n8n process sees it. */
export const store = new ProcessedDataModel();

let ready = false;
export function useMemoryProcessedData() {
	if (ready) return;
	ready = true;
	// n8n-core allows one store per process, as n8n's CLI sets it up at start; a second call
	// (another helper module instance in this jest worker) is refused and changes nothing.
	DataDeduplicationService.init(store).catch(() => undefined);
}

/** n8n's database wiped: what every test starts from. */
export function forgetProcessedData() {
	store.clear();
}

/** From now on every store call fails with this error (until the next test), as when n8n's database is unreachable. */
export function breakProcessedData(error: Error) {
	store.failure = error;
}

/**
 * The workflow's row, the one the Payouts Transfer nodes of a workflow keep their record of sent
 * transfers in (scope `workflow`), reached with n8n's own store calls and the options the node
 * uses, as another n8n process (or an earlier run) would reach it.
 */
const rowOf = (workflowId: string): ICheckProcessedContextData => ({
	workflow: { id: workflowId, active: false },
});
const OPTIONS: ICheckProcessedOptions = { mode: 'entries', maxEntries: MAX_ENTRIES };

/** How many entries the workflow's record holds: n8n's read-only count, the one the node reads. */
export async function recordSize(workflowId: string): Promise<number> {
	return await store.getProcessedDataCount('workflow', rowOf(workflowId), OPTIONS);
}

/** Entries written into the workflow's record, as earlier runs or another n8n process leave them. */
export async function writeIntoRecord(workflowId: string, entries: string[]): Promise<void> {
	await store.checkProcessedAndRecord(entries, 'workflow', rowOf(workflowId), OPTIONS);
}

/** Which of `entries` the workflow's record holds. n8n's store can only ask by recording: the ones it did not hold are forgotten again at once. */
export async function heldByRecord(workflowId: string, entries: string[]): Promise<string[]> {
	const { processed, new: added } = await store.checkProcessedAndRecord(
		entries,
		'workflow',
		rowOf(workflowId),
		OPTIONS,
	);
	await store.removeProcessed(added, 'workflow', rowOf(workflowId), OPTIONS);
	return processed.map(String);
}

/**
 * Waits until nothing has called n8n's store for `quietMs`: the record's writes that go on after a
 * run (where the service guards, a state is made again a settling window later, twice) are done.
 */
export async function storeAtRest(quietMs = 1_200): Promise<void> {
	for (let seen = -1; seen !== store.calls.length; ) {
		seen = store.calls.length;
		// eslint-disable-next-line @n8n/community-nodes/no-restricted-globals -- test code runs in Node under jest, never inside n8n
		await new Promise((resolve) => setTimeout(resolve, quietMs));
	}
}

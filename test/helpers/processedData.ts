/**
 * n8n's processed-data store for the in-process engine: the simulator's model of it
 * (test/simulator/store.ts, built from n8n 2.41.1's code and checked against real n8n), each
 * database step a turn of the event loop, as a real database call is. In real n8n the CLI backs
 * `checkProcessedAndRecord` with its database; n8n-core only holds the service that forwards to
 * the store it is given. The engine tests run the node's real record on it; the simulator runs
 * several n8n processes on it; the end-to-end tests use n8n's own database.
 */
import { DataDeduplicationService } from 'n8n-core';

import { ProcessedDataModel } from '../simulator/store';

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

/**
 * n8n's processed-data store for the in-process engine. In real n8n the CLI backs
 * `checkProcessedAndRecord` with a database table (`processed_data`: one row per workflow and
 * node holding the md5 of each value, oldest dropped past `maxEntries`); n8n-core only holds the
 * service that forwards to it. This is that row, in memory, with the same rules, so the engine
 * tests run the node's real bookkeeping. The end-to-end tests use n8n's own database.
 */
import { createHash } from 'node:crypto';

import { DataDeduplicationService } from 'n8n-core';
import type { DeduplicationItemTypes, DeduplicationScope, ICheckProcessedContextData, ICheckProcessedOptions, IDataDeduplicator, IDeduplicationOutput } from 'n8n-workflow';

const rows = new Map<string, string[]>();

const rowKey = (scope: DeduplicationScope, { workflow, node }: ICheckProcessedContextData) => `${String(workflow.id)}|${scope === 'node' ? `n:${node?.id}` : ''}`;
const hash = (value: DeduplicationItemTypes) => createHash('md5').update(value.toString()).digest('base64');

const memoryStore: IDataDeduplicator = {
	async checkProcessedAndRecord(items, scope, context, options: ICheckProcessedOptions): Promise<IDeduplicationOutput> {
		const key = rowKey(scope, context);
		const row = rows.get(key) ?? [];
		const result: IDeduplicationOutput = { new: [], processed: [] };
		for (const item of items) {
			const value = hash(item);
			if (row.includes(value)) result.processed.push(item);
			else {
				result.new.push(item);
				row.push(value);
			}
		}
		if (options.maxEntries) row.splice(0, Math.max(0, row.length - options.maxEntries));
		rows.set(key, row);
		return result;
	},
	async removeProcessed(items, scope, context) {
		const row = rows.get(rowKey(scope, context));
		for (const value of items.map(hash)) {
			const at = row?.indexOf(value) ?? -1;
			if (at >= 0) row?.splice(at, 1);
		}
	},
	async clearAllProcessedItems(scope, context) {
		rows.delete(rowKey(scope, context));
	},
	async getProcessedDataCount(scope, context) {
		return rows.get(rowKey(scope, context))?.length ?? 0;
	},
};

let ready = false;
export function useMemoryProcessedData() {
	if (ready) return;
	ready = true;
	// n8n-core allows one store per process, as n8n's CLI sets it up at start; a second call
	// (another helper module instance in this jest worker) is refused and changes nothing.
	DataDeduplicationService.init(memoryStore).catch(() => undefined);
}

/** n8n's database wiped: what every test starts from. */
export function forgetProcessedData() {
	rows.clear();
}

/** How many values the store holds for all workflows and nodes. */
export function processedDataSize() {
	return [...rows.values()].reduce((total, row) => total + row.length, 0);
}

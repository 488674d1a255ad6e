/**
 * n8n's processed-data store for the in-process engine. In real n8n the CLI backs
 * `checkProcessedAndRecord` with a database table (`processed_data`: one row per workflow and
 * node holding the md5 of each value, oldest dropped past `maxEntries`); n8n-core only holds the
 * service that forwards to it. This is that row, in memory, with n8n 2.41's rules: a call tests
 * every value against the row as it was when the call began, appends the new ones, then drops the
 * oldest past `maxEntries`; `removeProcessed` drops each value it finds. The engine tests run the
 * node's real bookkeeping on it; the end-to-end tests use n8n's own database.
 */
import { createHash } from 'node:crypto';

import { DataDeduplicationService } from 'n8n-core';
import type { DeduplicationItemTypes, DeduplicationScope, ICheckProcessedContextData, ICheckProcessedOptions, IDataDeduplicator, IDeduplicationOutput } from 'n8n-workflow';

interface Row {
	order: string[];
	held: Set<string>;
}
const rows = new Map<string, Row>();
/** Every call to the store, for tests that count or inspect them: what it asked, when it began and ended. */
export const storeCalls: Array<{ kind: 'check' | 'remove' | 'count'; items: number; values?: string[]; startedAt?: number; endedAt?: number }> = [];
/** A test may make the store fail, as when n8n's database is unreachable. */
let failure: Error | undefined;
/** Calls whose additions another process overwrites (it read the row before them, wrote after). */
let overwrittenCalls = 0;
let overwrites: (items: DeduplicationItemTypes[]) => boolean = () => true;

const rowKey = (scope: DeduplicationScope, { workflow, node }: ICheckProcessedContextData) => `${String(workflow.id)}|${scope === 'node' ? `n:${node?.id}` : ''}`;
const hash = (value: DeduplicationItemTypes) => createHash('md5').update(value.toString()).digest('base64');
const rowOf = (key: string) => rows.get(key) ?? rows.set(key, { order: [], held: new Set() }).get(key)!;

/** A test may hold a call in flight (it has read the row) until it lets it go on. */
let holding: { which: (items: DeduplicationItemTypes[]) => boolean; hold: () => Promise<void> } | undefined;

const memoryStore: IDataDeduplicator = {
	async checkProcessedAndRecord(items, scope, context, options: ICheckProcessedOptions): Promise<IDeduplicationOutput> {
		const call: (typeof storeCalls)[number] = { kind: 'check', items: items.length, values: items.map(String), startedAt: Date.now() };
		storeCalls.push(call);
		if (failure) throw failure;
		const row = rowOf(rowKey(scope, context));
		if (holding?.which(items)) {
			const { hold } = holding;
			holding = undefined;
			await hold();
		}
		call.endedAt = Date.now();
		const result: IDeduplicationOutput = { new: [], processed: [] };
		const added: string[] = [];
		for (const item of items) {
			const value = hash(item);
			if (row.held.has(value)) result.processed.push(item);
			else {
				result.new.push(item);
				added.push(value);
			}
		}
		if (overwrittenCalls > 0 && added.length > 0 && overwrites(items)) {
			overwrittenCalls--;
			return result;
		}
		for (const value of added) {
			row.order.push(value);
			row.held.add(value);
		}
		const excess = options.maxEntries ? row.order.length - options.maxEntries : 0;
		// Values in a row are unique: one is added only when the row does not hold it.
		if (excess > 0) for (const value of row.order.splice(0, excess)) row.held.delete(value);
		return result;
	},
	async removeProcessed(items, scope, context) {
		storeCalls.push({ kind: 'remove', items: items.length });
		if (failure) throw failure;
		const row = rows.get(rowKey(scope, context));
		if (!row) return;
		for (const value of items.map(hash)) {
			const at = row.order.indexOf(value);
			if (at >= 0) row.order.splice(at, 1);
			row.held.delete(value);
		}
	},
	async clearAllProcessedItems(scope, context) {
		rows.delete(rowKey(scope, context));
	},
	async getProcessedDataCount(scope, context) {
		storeCalls.push({ kind: 'count', items: 0 });
		if (failure) throw failure;
		return rows.get(rowKey(scope, context))?.order.length ?? 0;
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
	storeCalls.length = 0;
	failure = undefined;
	overwrittenCalls = 0;
	holding = undefined;
}

/** How many values the store holds for all workflows and nodes. */
export function processedDataSize() {
	return [...rows.values()].reduce((total, row) => total + row.order.length, 0);
}

/** The next `calls` calls that record something (and match `which`) are overwritten by another process right after. */
export function overwriteNextCalls(calls: number, which: (items: DeduplicationItemTypes[]) => boolean = () => true) {
	overwrittenCalls = calls;
	overwrites = which;
}

/** Records values in the row of a workflow's node, as an earlier run (or another process) left them. */
export function recordProcessedData(workflowId: string, nodeId: string, values: string[]) {
	const row = rowOf(`${workflowId}|n:${nodeId}`);
	for (const value of values.map(hash)) {
		if (row.held.has(value)) continue;
		row.order.push(value);
		row.held.add(value);
	}
}

/** Forgets values of a workflow's node, as the process that recorded them would. */
export function forgetProcessedValues(workflowId: string, nodeId: string, values: string[]) {
	const row = rows.get(`${workflowId}|n:${nodeId}`);
	for (const value of values.map(hash)) {
		const at = row?.order.indexOf(value) ?? -1;
		if (at >= 0) row?.order.splice(at, 1);
		row?.held.delete(value);
	}
}

/**
 * The next call that records something (and matches `which`) stays in flight until `release` is
 * called, as a call to n8n's database does while it takes long; `held` resolves once it is.
 */
export function holdNextCall(which: (items: DeduplicationItemTypes[]) => boolean): { held: Promise<void>; release: () => void } {
	let release!: () => void;
	let onHeld!: () => void;
	const held = new Promise<void>((resolve) => (onHeld = resolve));
	const released = new Promise<void>((resolve) => (release = resolve));
	holding = {
		which,
		hold: async () => {
			onHeld();
			await released;
		},
	};
	return { held, release };
}

/** From now on every store call fails with this error (until the next test). */
export function breakProcessedData(error: Error) {
	failure = error;
}

/** Whether the store holds this value for any workflow and node (as n8n would find it). */
export function processedDataHas(value: string) {
	const hashed = hash(value);
	return [...rows.values()].some((row) => row.held.has(hashed));
}

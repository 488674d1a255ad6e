/* eslint-disable @n8n/community-nodes/no-restricted-globals -- the model runs in Node under jest and the simulator, never inside n8n: its default pace is a turn of Node's event loop */
/**
 * A model of n8n's processed-data store, built from n8n 2.41.1's own code (`DeduplicationHelper`,
 * mode `entries`, as n8n's npm package ships it: dist/deduplication/deduplication-helper.js; the
 * repository's source of other versions differs), for the simulator (world.ts) and the engine
 * tests (harness/engine.ts). test/e2e/storeModel.test.ts checks it against real n8n.
 *
 * What n8n does, and so what this does:
 * - one row per workflow and context (`n:<node id>` for scope `node`, '' for scope `workflow`),
 *   holding the base64 md5 of each value, in the order they were added;
 * - `checkProcessedAndRecord`: `findOne` the row, then, in JavaScript, each value found in the
 *   row as read is `processed`, each other one `new` and appended (a value given twice in one call
 *   is new twice, and held twice); the oldest are dropped past `maxEntries`; then the whole row is
 *   written back with `update`, or, when `findOne` found none, `insert`ed (the first insert's
 *   race: a second process that also found none fails on the primary key);
 * - `removeProcessed`: `findOne`, drop each value found (first match), `update` the whole row;
 * - `getProcessedDataCount`: `findOne` only, the only call that writes nothing;
 * - no transaction, no lock, no version column: a call that read the row before another
 *   process's write and writes after it puts back what it read (a stale whole-row write).
 *
 * Each database step (`findOne`, `insert`, `update`) is a separate await, given to `pace`: the
 * simulator delays, orders and drops them (a process that crashes between its read and its
 * write never writes); the engine tests let other work run in between, as a real database does.
 */
import { createHash } from 'node:crypto';

import type {
	DeduplicationItemTypes,
	DeduplicationScope,
	ICheckProcessedContextData,
	ICheckProcessedOptions,
	IDataDeduplicator,
	IDeduplicationOutput,
} from 'n8n-workflow';

export type Step = 'findOne' | 'insert' | 'update';

/** One row of n8n's `processed_data` table, as its `value` column holds it (entries mode). */
interface Row {
	mode: ICheckProcessedOptions['mode'];
	data: string[];
}

/**
 * A row as the database holds it, with what the model needs to be fast at the sizes users run
 * (21,000 entries, thousands of calls): its writes are counted, and a read is copied only when
 * another write comes before the reader's own (then the reader computes from what it read, as n8n
 * does: a stale whole-row write). A read that no write overtook computes on the row itself: the
 * same result, without the copy.
 */
interface Stored extends Row {
	version: number;
	/** How often each value is in `data` (a first insert may hold one twice), kept in step with it. */
	held: Counts;
	/** The row as it was at each version that a call read and has not written yet. */
	readers: Map<number, { count: number; data?: string[] }>;
}

/** Values and how often each is held. */
class Counts {
	private readonly counts = new Map<string, number>();
	constructor(values: string[] = []) {
		for (const value of values) this.add(value);
	}
	has(value: string) {
		return this.counts.has(value);
	}
	add(value: string) {
		this.counts.set(value, (this.counts.get(value) ?? 0) + 1);
	}
	delete(value: string) {
		const count = (this.counts.get(value) ?? 0) - 1;
		if (count > 0) this.counts.set(value, count);
		else this.counts.delete(value);
	}
}

/** What a call read: the row's version, or nothing. */
type Read = { version: number; mode: Row['mode'] } | undefined;

/** How a database step is awaited: the simulator's clock, or a turn of the event loop. */
export type Pace = (step: Step, call: StoreCall) => Promise<void>;

/** One call to the store, for logs, counts and the timing checks of the simulator. */
export interface StoreCall {
	kind: 'check' | 'remove' | 'count';
	row: string;
	values: string[];
	/** Set by the caller (the simulator): who made the call. */
	by?: string;
	startedAt?: number;
	readAt?: number;
	wroteAt?: number;
	/** The order of the read and the write among every step of the store (two steps may share a millisecond). */
	readOrder?: number;
	wroteOrder?: number;
	/** What the call found: the values it reported processed (check), or the row's size (count). */
	processed?: string[];
	count?: number;
}

export const hashOf = (value: DeduplicationItemTypes) =>
	createHash('md5').update(value.toString()).digest('base64');

export function rowKey(
	scope: DeduplicationScope,
	{ workflow, node }: ICheckProcessedContextData,
): string {
	if (scope === 'node' && !node)
		throw new Error("No node information has been provided and so cannot use scope 'node'");
	return `${String(workflow.id)}|${scope === 'node' ? `n:${node?.id}` : ''}`;
}

/** n8n refuses a second insert of the same row (its primary key: workflow id and context). */
export class DuplicateRowError extends Error {
	constructor(row: string) {
		super(
			`SQLITE_CONSTRAINT: UNIQUE constraint failed: processed_data.workflowId, processed_data.context (${row})`,
		);
	}
}

export class ProcessedDataModel implements IDataDeduplicator {
	private readonly rows = new Map<string, Stored>();
	/** Store steps so far: each read and write takes the next number. */
	private steps = 0;
	/** Every call, in the order made. */
	readonly calls: StoreCall[] = [];
	/** When set, every call fails (n8n's database unreachable). */
	failure?: Error;
	/** Who makes the calls that follow (the simulator sets it per process). */
	by?: () => string | undefined;
	now: () => number = () => Date.now();

	constructor(
		private readonly pace: Pace = async () => await new Promise((resolve) => setImmediate(resolve)),
	) {}

	async checkProcessedAndRecord(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		context: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<IDeduplicationOutput> {
		const call = this.begin('check', scope, context, items);
		const read = await this.findOne(call);
		if (read && read.mode !== options.mode) {
			this.done(call, read);
			throw new Error(
				'Deduplication data was originally saved with an incompatible setting of the ‘Keep Items Where’ parameter.',
			);
		}
		if (options.mode !== 'entries')
			throw new Error(`The model holds mode 'entries' only (asked: ${options.mode})`);
		const hashed = items.map(hashOf);
		if (!read) {
			// All items are new; n8n keeps only the last maxEntries of them (duplicates included).
			const data = options.maxEntries
				? hashed.slice(Math.max(0, hashed.length - options.maxEntries))
				: hashed;
			await this.write(call, 'insert', undefined, () => data);
			call.processed = [];
			return { new: items, processed: [] };
		}
		const result: IDeduplicationOutput = { new: [], processed: [] };
		await this.write(call, 'update', read, (data, held) => {
			// n8n 2.41.1 tests each value against a set of the row as read: not against this call's own.
			const added: string[] = [];
			hashed.forEach((hash, index) => {
				if (held.has(hash)) result.processed.push(items[index]);
				else {
					result.new.push(items[index]);
					added.push(hash);
				}
			});
			for (const hash of added) {
				data.push(hash);
				held.add(hash);
			}
			if (options.maxEntries)
				for (const dropped of data.splice(0, Math.max(0, data.length - options.maxEntries)))
					held.delete(dropped);
			return data;
		});
		call.processed = result.processed.map(String);
		return result;
	}

	async removeProcessed(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		context: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<void> {
		const call = this.begin('remove', scope, context, items);
		if (options.mode !== 'entries')
			throw new Error('Removing processed data is not possible in mode "latest"');
		const read = await this.findOne(call);
		if (!read) return;
		await this.write(call, 'update', read, (data, held) => {
			for (const hash of items.map(hashOf)) {
				const at = held.has(hash) ? data.indexOf(hash) : -1;
				if (at === -1) continue;
				data.splice(at, 1);
				held.delete(hash);
			}
			return data;
		});
	}

	async clearAllProcessedItems(
		scope: DeduplicationScope,
		context: ICheckProcessedContextData,
	): Promise<void> {
		this.rows.delete(rowKey(scope, context));
	}

	async getProcessedDataCount(
		scope: DeduplicationScope,
		context: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<number> {
		const call = this.begin('count', scope, context, []);
		const read = await this.findOne(call);
		call.count =
			read !== undefined && options.mode === 'entries' ? this.dataAt(call.row, read).length : 0;
		this.done(call, read);
		return call.count;
	}

	/** The row as n8n's database holds it now: the hashes, oldest first. */
	row(workflowId: string, nodeId: string): string[] {
		return [...(this.rows.get(`${workflowId}|n:${nodeId}`)?.data ?? [])];
	}

	/** Values written into a node's row at once, as an earlier process left them (a test's set-up). */
	seed(workflowId: string, nodeId: string, values: string[]) {
		const key = `${workflowId}|n:${nodeId}`;
		const row: Stored = this.rows.get(key) ?? {
			mode: 'entries',
			data: [],
			held: new Counts(),
			version: 0,
			readers: new Map(),
		};
		for (const hash of values.map(hashOf)) {
			if (row.held.has(hash)) continue;
			row.data.push(hash);
			row.held.add(hash);
		}
		row.version++;
		this.rows.set(key, row);
	}

	/** Whether the row holds this value (as its hash): a node's row, or with `nodeId` undefined the workflow's. */
	holds(workflowId: string, nodeId: string | undefined, value: string): boolean {
		const row = nodeId === undefined ? `${workflowId}|` : `${workflowId}|n:${nodeId}`;
		return this.rows.get(row)?.data.includes(hashOf(value)) ?? false;
	}

	/** n8n's database wiped. */
	clear() {
		this.rows.clear();
		this.calls.length = 0;
		this.failure = undefined;
	}

	private begin(
		kind: StoreCall['kind'],
		scope: DeduplicationScope,
		context: ICheckProcessedContextData,
		items: DeduplicationItemTypes[],
	): StoreCall {
		const call: StoreCall = {
			kind,
			row: rowKey(scope, context),
			values: items.map(String),
			by: this.by?.(),
			startedAt: this.now(),
		};
		this.calls.push(call);
		if (this.failure) throw this.failure;
		return call;
	}

	/** `findOne`: the row as it is when the read happens (its version, kept for this call until it writes). */
	private async findOne(call: StoreCall): Promise<Read> {
		await this.pace('findOne', call);
		call.readAt = this.now();
		call.readOrder = ++this.steps;
		const row = this.rows.get(call.row);
		if (!row) return undefined;
		const reader = row.readers.get(row.version) ?? { count: 0 };
		reader.count++;
		row.readers.set(row.version, reader);
		return { version: row.version, mode: row.mode };
	}

	/** The row's data as a call read it: the row itself if no write came since, else the copy kept for it. */
	private dataAt(key: string, read: NonNullable<Read>): string[] {
		const row = this.rows.get(key) as Stored;
		return row.version === read.version
			? row.data
			: (row.readers.get(read.version)?.data as string[]);
	}

	/** A call that read the row is done with what it read. */
	private done(call: StoreCall, read: Read) {
		if (!read) return;
		const row = this.rows.get(call.row);
		const reader = row?.readers.get(read.version);
		if (!row || !reader) return;
		if (--reader.count === 0) row.readers.delete(read.version);
	}

	/**
	 * `insert` or `update`: the whole row, as this call computed it (`change`) from what it read. A
	 * later version's row is replaced by it, as n8n's update does; other calls that read the version
	 * being replaced keep a copy of it.
	 */
	private async write(
		call: StoreCall,
		step: 'insert' | 'update',
		read: Read,
		change: (data: string[], held: Counts) => string[],
	) {
		await this.pace(step, call);
		call.wroteAt = this.now();
		call.wroteOrder = ++this.steps;
		if (step === 'insert') {
			if (this.rows.has(call.row)) throw new DuplicateRowError(call.row);
			const data = change([], new Counts());
			this.rows.set(call.row, {
				mode: 'entries',
				data,
				held: new Counts(data),
				version: 1,
				readers: new Map(),
			});
			return;
		}
		const row = this.rows.get(call.row);
		// TypeORM's update of a row that another process deleted meanwhile changes nothing.
		if (!row || !read) return;
		const current = row.version === read.version;
		// What this call read: the row itself, or (another write came first) the copy kept for it.
		const mine = current ? row.data : [...(row.readers.get(read.version)?.data as string[])];
		this.done(call, read);
		// Others that read the version this write replaces compute from it later: they keep a copy.
		const others = row.readers.get(row.version);
		if (others && !others.data) others.data = [...row.data];
		row.held = current ? row.held : new Counts(mine);
		row.data = change(mine, row.held);
		row.version++;
	}
}

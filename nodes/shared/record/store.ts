import type { ICheckProcessedOptions, IExecuteFunctions } from 'n8n-workflow';

/**
 * The only place that calls n8n's processed-data store, the one durable store in n8n's database a
 * community node can write (`this.helpers.checkProcessedAndRecord`, `removeProcessed`,
 * `getProcessedDataCount`). What the store is, measured in n8n 2.41 (docs/safety.md says what it means for a user):
 * - one row per workflow and node, holding the md5 of each string ever given, oldest dropped past
 *   `maxEntries`; every call reads the whole row, changes it and writes it back, so a call costs
 *   about 1.3 µs per entry held (about 0.3 s at the full 210,000), whatever it carries;
 * - `mark` is test-and-set: it says which strings were there and records the others; nothing reads
 *   a string without recording it;
 * - `forget` finds each string by a linear search: about 1 ms per string in a full row;
 * - no lock: calls of two processes can overwrite each other (the lease and the tokens of
 *   recorder.ts deal with that). In one process, the calls of one node go one at a time here.
 */

/** 100,000 transfers of two marks each, and room for the recorder's tokens and leases. */
export const MAX_ENTRIES = 210_000;
const OPTIONS: ICheckProcessedOptions = { mode: 'entries', maxEntries: MAX_ENTRIES };

const queues = new Map<string, Promise<unknown>>();
function oneAtATime<T>(key: string, work: () => Promise<T>): Promise<T> {
	const result = (queues.get(key) ?? Promise.resolve()).then(work, work);
	const tail = result.catch(() => undefined);
	queues.set(key, tail);
	void tail.then(() => queues.get(key) === tail && queues.delete(key));
	return result;
}

export interface Timed<T> {
	value: T;
	/** How long the call took, from its start to its end: an upper bound of its read-to-write time. */
	ms: number;
}

export class NodeStore {
	constructor(
		private readonly helpers: IExecuteFunctions['helpers'],
		/** The workflow and node the row belongs to. */
		readonly key: string,
	) {}

	static of(context: IExecuteFunctions, workflowId: string): NodeStore {
		return new NodeStore(context.helpers, `${workflowId}:${context.getNode().id}`);
	}

	/** Records `marks` and says which of them were recorded before this call. */
	async mark(marks: Iterable<string>): Promise<Timed<Set<string>>> {
		const unique = [...new Set(marks)];
		return await this.timed(async () => {
			if (unique.length === 0) return new Set<string>();
			const { processed } = await this.helpers.checkProcessedAndRecord(unique, 'node', OPTIONS);
			return new Set(processed.map(String));
		});
	}

	async forget(marks: Iterable<string>): Promise<Timed<void>> {
		const unique = [...new Set(marks)];
		return await this.timed(async () => {
			if (unique.length > 0) await this.helpers.removeProcessed(unique, 'node', OPTIONS);
		});
	}

	/** How many entries the row holds (a read that records nothing). */
	async size(): Promise<number> {
		return (await this.timed(async () => await this.helpers.getProcessedDataCount('node', OPTIONS))).value;
	}

	private async timed<T>(work: () => Promise<T>): Promise<Timed<T>> {
		return await oneAtATime(this.key, async () => {
			const started = Date.now();
			const value = await work();
			return { value, ms: Date.now() - started };
		});
	}
}

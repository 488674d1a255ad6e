import type { ICheckProcessedOptions, IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

/**
 * The only code that calls n8n's processed-data store: one row of entries per saved workflow,
 * read and written whole by every call, so a call costs about the same for one entry as for a
 * hundred. One store per row in this process, shared by its executions: what they ask while a
 * call is under way goes into the next call together (a group commit, or flush), one call at a
 * time in the order asked, so in one process a test-and-set is atomic and a forget never undone.
 *
 * Never past the row's capacity (n8n drops a row's oldest entries past `maxEntries`: a dropped
 * entry is a forgotten payment): the store knows the row's size (n8n's one read-only call, then
 * kept up, never below the truth) and refuses a call that could pass its limit.
 *
 * Across processes (queue mode) n8n's store has no lock: a call that read the row before another
 * process wrote it, and writes after, puts back what it read. So once this process has seen
 * another writer (a count of the row that is not what its own calls left), it writes a state
 * again a settling window later (`rewriteLater`). Alone, it writes nothing twice.
 */

/** n8n's limit for the row, which no call reaches: none may leave more entries than ENTRY_LIMIT, and a new transfer is taken on only below NEW_KEY_LIMIT. */
export const MAX_ENTRIES = 60_000;
export const ENTRY_LIMIT = 58_000;
export const NEW_KEY_LIMIT = 50_000;
const OPTIONS: ICheckProcessedOptions = { mode: 'entries', maxEntries: MAX_ENTRIES };
/** Forgets wait this long for more before their flush, unless one undoes what asking wrote. */
const FORGET_LINGER_MS = 50;
/** The size is counted again every RECOUNT_EVERY calls, and before every call this near a limit. */
const RECOUNT_EVERY = 200;
const NEAR_LIMIT = 1_000;
/** A rewrite comes five times the slowest of the last calls later (at least 0.25 s), then twice as far apart each time. */
const SETTLING_PER_CALL = 5;
const MIN_SETTLING_MS = 250;
const REWRITES = 7;
const CALLS_TIMED = 100;
/** Counts asked for by rewrites go at most this often (a count reads the whole row). */
const COUNT_SPACING_MS = 250;
/** The entries whose presence the store remembers (what a forget removes), newest kept. */
const ENTRIES_TRACKED = 2 * ENTRY_LIMIT;
/** A store unused this long, held by no run and with nothing to write, leaves memory. */
export const IDLE_MS = 10 * 60 * 1000;

/** What a test-and-set found: the asked entries that were there before it (or asked earlier in it), and the row's size after; `undone`: the forget of what the caller took back. */
export interface Asked {
	held: Set<string>;
	size?: number;
	undone?: Promise<void>;
}

/** The row has no room for the call: nothing was written. */
export class StoreFull extends Error {
	constructor(readonly size: number) {
		super(`the record holds ${size.toLocaleString('en-US')} entries`);
	}
}

interface Request {
	kind: 'record' | 'forget' | 'count';
	entries: string[];
	/** record: the most entries the row may hold after it, and what the caller takes back of it on reading the answer. */
	limit?: number;
	takeBack?: (asked: Asked) => string[];
	/** forget: before the next claim, without waiting for more (asking wrote it). */
	now?: boolean;
	resolve(asked?: Asked): void;
	reject(error: unknown): void;
}

export class ProcessedDataStore {
	private static readonly stores = new Map<string, ProcessedDataStore>();
	private readonly queue: Request[] = [];
	private running = false;
	private forgetsSince?: number;
	private wake = () => {};
	private size?: number;
	private callsSinceCount = 0;
	private readonly timings: number[] = [];
	private usedAt = Date.now();
	private runs = 0;
	/** Another process writes this row, and the row's size as this process's own calls left it (undefined: a call it cannot account for). */
	private othersWrite = false;
	private ownSize?: number;
	/** Entries whose presence this process's calls decided (true: in the row). */
	private readonly decided = new Map<string, boolean>();
	private countedAt = 0;
	private uncomparedAt = 0;
	/** Entries waiting to be rewritten, by the flush that last wrote them (a rewrite must still be the last write). */
	private readonly lastWrite = new Map<string, { flush: number; waiting: number }>();
	private flushes = 0;

	private constructor(private helpers: IExecuteFunctions['helpers']) {}

	/** A workflow's store in this process, held by a run until `release`. Stores idle past IDLE_MS leave memory. */
	static acquire(context: IExecuteFunctions, workflowId: string): ProcessedDataStore {
		for (const [id, store] of this.stores)
			if (id !== workflowId && store.idle()) this.stores.delete(id);
		const store = this.stores.get(workflowId) ?? new ProcessedDataStore(context.helpers);
		this.stores.set(workflowId, store);
		// The helpers of any execution reach the same row; the latest is surely alive.
		store.helpers = context.helpers;
		store.runs++;
		store.usedAt = Date.now();
		return store;
	}

	static count(): number {
		return this.stores.size;
	}

	release() {
		this.runs--;
		this.usedAt = Date.now();
	}

	private idle(): boolean {
		const busy = this.runs > 0 || this.running || this.queue.length > 0 || this.lastWrite.size > 0;
		return !busy && Date.now() - this.usedAt > IDLE_MS;
	}

	/**
	 * Records `entries`, saying which were there before (test-and-set), unless the row could pass
	 * `limit`: StoreFull, nothing written. `takeBack` reads the answer and names entries to forget
	 * at once: queued in the same step, before any other claim's call.
	 */
	async record(
		entries: string[],
		takeBack?: (asked: Asked) => string[],
		limit = ENTRY_LIMIT,
	): Promise<Asked> {
		return (await this.ask({ kind: 'record', entries, limit, takeBack })) as Asked;
	}

	async forget(entries: string[], { now = false } = {}): Promise<void> {
		if (entries.length > 0) await this.ask({ kind: 'forget', entries, now });
	}

	/** Forgets go now, without waiting for more: a run is ending and waits for its writes. */
	flushNow() {
		if (this.forgetsSince !== undefined) this.forgetsSince = 0;
		this.wake();
	}

	knownSize = () => this.size;
	/** The last call's duration: how far ahead a batch claims its rows. */
	lastCallMs = () => this.timings[this.timings.length - 1] ?? 0;

	private async ask(request: Omit<Request, 'resolve' | 'reject'>): Promise<Asked | undefined> {
		return await new Promise((resolve, reject) => {
			this.queue.push({ ...request, resolve, reject });
			if (request.kind === 'forget') this.forgetsSince ??= Date.now();
			if (request.kind !== 'forget' || request.now) this.wake();
			void this.pump();
		});
	}

	/**
	 * One call at a time: forgets that are due first, then claims (a run waits for them), a count
	 * alone once nothing else waits. A flush takes every queued request of its kind, unless one
	 * shares an entry with a request of another kind before it: what one entry goes through keeps
	 * its order.
	 */
	private async pump() {
		if (this.running) return;
		this.running = true;
		try {
			while (this.queue.length > 0) {
				const kind = this.nextKind();
				const waits = {
					record: 0,
					forget: this.forgetDue()
						? 0
						: FORGET_LINGER_MS - (Date.now() - (this.forgetsSince ?? Date.now())),
					count: COUNT_SPACING_MS - (Date.now() - this.countedAt),
				}[kind];
				if (waits > 0) {
					await Promise.race([sleep(waits), new Promise<void>((resolve) => (this.wake = resolve))]);
					continue;
				}
				const batch = this.take(kind);
				if (kind === 'forget') {
					const more = this.queue.some((request) => request.kind === 'forget');
					this.forgetsSince = more ? Date.now() : undefined;
					await this.flushForgets(batch);
				} else {
					const counts = kind === 'count' || Date.now() - this.countedAt >= COUNT_SPACING_MS;
					await this.flushRecords(
						batch.filter((request) => request.kind === 'record'),
						counts ? [...batch.filter((r) => r.kind === 'count'), ...this.take('count')] : [],
					);
				}
			}
		} finally {
			this.running = false;
		}
	}

	private nextKind(): Request['kind'] {
		if (this.forgetDue() && this.canGoFirst('forget')) return 'forget';
		if (this.canGoFirst('record')) return 'record';
		return this.queue.some((request) => request.kind === 'count') ? 'count' : 'forget';
	}

	private forgetDue(): boolean {
		if (this.forgetsSince === undefined) return false;
		const lingered = Date.now() - this.forgetsSince >= FORGET_LINGER_MS;
		return lingered || this.queue.some((request) => request.kind === 'forget' && request.now);
	}

	private canGoFirst(kind: Request['kind']): boolean {
		const heldBack = new Set<string>();
		for (const request of this.queue) {
			if (request.kind === kind && !request.entries.some((e) => heldBack.has(e))) return true;
			for (const entry of request.entries) heldBack.add(entry);
		}
		return false;
	}

	/** The queued requests of a kind not held back by an earlier request of another kind, taken out of the queue. */
	private take(kind: Request['kind']): Request[] {
		const taken: Request[] = [];
		const waiting: Request[] = [];
		const overtaken = new Set<string>();
		for (const request of this.queue) {
			if (request.kind === kind && !request.entries.some((e) => overtaken.has(e)))
				taken.push(request);
			else {
				waiting.push(request);
				for (const entry of request.entries) overtaken.add(entry);
			}
		}
		this.queue.splice(0, this.queue.length, ...waiting);
		return taken;
	}

	private async flushForgets(batch: Request[]) {
		const unique = [...new Set(batch.flatMap((request) => request.entries))];
		const done = await this.call(() => this.helpers.removeProcessed(unique, 'workflow', OPTIONS));
		for (const request of batch) {
			if ('failure' in done) request.reject(done.failure);
			else request.resolve();
		}
		if ('failure' in done) return this.undecide(unique);
		for (const entry of unique) {
			const present = this.decided.get(entry);
			if (present === undefined) this.ownSize = undefined;
			else if (present && this.ownSize !== undefined) this.ownSize--;
			this.decide(entry, false);
		}
		// The size is not lowered: an entry may be gone already, and a size known too low lets a
		// call past the limit. Kept high, it is counted again near the limit.
		this.wrote(unique);
	}

	private async flushRecords(batch: Request[], counts: Request[]) {
		let size = await this.countedSize(batch, counts);
		// Each request in turn, while the row has room for it (its entries may all be new).
		const admitted = batch.filter((request) => {
			if (size !== undefined && size + request.entries.length > (request.limit ?? ENTRY_LIMIT)) {
				request.reject(new StoreFull(size));
				return false;
			}
			if (size !== undefined) size += request.entries.length;
			return true;
		});
		if (admitted.length === 0) return;
		const unique = [...new Set(admitted.flatMap((request) => request.entries))];
		const done = await this.call(() =>
			this.helpers.checkProcessedAndRecord(unique, 'workflow', OPTIONS),
		);
		if ('failure' in done) {
			this.undecide(unique);
			for (const request of admitted) request.reject(done.failure);
			return;
		}
		const before = new Set(done.value.processed.map(String));
		const added = unique.length - before.size;
		if (this.size !== undefined) this.size += added;
		if (this.ownSize !== undefined) this.ownSize += added;
		for (const entry of unique) {
			// An entry not as this process left it: another process wrote the row.
			const present = this.decided.get(entry);
			if (present !== undefined && present !== before.has(entry)) this.othersWrite = true;
			this.decide(entry, true);
		}
		// Two requests of one flush asking the same entry: the first finds it new, the next one not.
		const askedEarlier = new Set<string>();
		for (const request of admitted) {
			const held = request.entries.filter((e) => before.has(e) || askedEarlier.has(e));
			for (const entry of request.entries) askedEarlier.add(entry);
			const asked: Asked = { held: new Set(held), size: this.size };
			const forget = request.takeBack?.(asked) ?? [];
			if (forget.length > 0) asked.undone = this.forget(forget, { now: true });
			request.resolve(asked);
		}
		this.wrote(unique);
	}

	/** The row's size before a flush of records: counted at first, every RECOUNT_EVERY calls, near a limit, and for rewrites waiting. */
	private async countedSize(batch: Request[], counts: Request[]) {
		const asked = batch.reduce((total, request) => total + request.entries.length, 0);
		const limit = Math.min(...batch.map((request) => request.limit ?? ENTRY_LIMIT));
		const near =
			this.size !== undefined && batch.length > 0 && this.size + asked > limit - NEAR_LIMIT;
		if (
			this.size === undefined ||
			near ||
			counts.length > 0 ||
			++this.callsSinceCount >= RECOUNT_EVERY
		) {
			const started = Date.now();
			const counted = await this.call(() =>
				this.helpers.getProcessedDataCount('workflow', OPTIONS),
			);
			// A store that cannot count is not a reason to send nothing: the size is then unknown.
			this.size = 'failure' in counted ? undefined : counted.value;
			if (!('failure' in counted)) {
				if (this.ownSize === undefined) this.uncomparedAt = started;
				else if (counted.value !== this.ownSize) this.othersWrite = true;
				this.ownSize = counted.value;
				this.countedAt = started;
			}
			this.callsSinceCount = 0;
		}
		for (const count of counts) count.resolve();
		return this.size;
	}

	/** After a failed call (which may have written): these entries' presence is no longer known. */
	private undecide(entries: string[]) {
		for (const entry of entries) this.decided.delete(entry);
	}

	private decide(entry: string, present: boolean) {
		this.decided.delete(entry);
		this.decided.set(entry, present);
		if (this.decided.size > ENTRIES_TRACKED)
			this.decided.delete(this.decided.keys().next().value as string);
	}

	private wrote(entries: string[]) {
		const flush = ++this.flushes;
		for (const entry of entries) {
			const known = this.lastWrite.get(entry);
			if (known) known.flush = flush;
		}
	}

	/** No other process has written the row: a count since `due` that this process's calls explain back to before `writtenAt`. */
	private async writesAlone(writtenAt: number, due: number): Promise<boolean> {
		if (!this.othersWrite && this.countedAt < due)
			await this.ask({ kind: 'count', entries: [] }).catch(() => undefined);
		return !this.othersWrite && this.countedAt >= due && this.uncomparedAt < writtenAt;
	}

	/**
	 * Writes a state again a settling window later, and later again, where another process writes
	 * the row; an entry this process wrote otherwise since is left as it is. `onlyIfOthersSeen`:
	 * only where another writer was seen already (doubt that must not outlive a settling elsewhere).
	 */
	rewriteLater(kind: 'record' | 'forget', written: string[], { onlyIfOthersSeen = false } = {}) {
		if (written.length === 0 || (onlyIfOthersSeen && !this.othersWrite)) return;
		for (const entry of written) {
			const known = this.lastWrite.get(entry) ?? { flush: this.flushes, waiting: 0 };
			known.waiting++;
			this.lastWrite.set(entry, known);
		}
		const asOf = new Map(written.map((entry) => [entry, this.lastWrite.get(entry)?.flush]));
		const settling = Math.max(MIN_SETTLING_MS, SETTLING_PER_CALL * Math.max(0, ...this.timings));
		const writtenAt = Date.now();
		const rewrite = async () => {
			const still = written.filter((e) => this.lastWrite.get(e)?.flush === asOf.get(e));
			if (still.length === 0 || (await this.writesAlone(writtenAt, Date.now()))) return;
			const again = kind === 'record' ? this.record(still) : this.forget(still);
			await again.catch(() => undefined);
			for (const entry of still) asOf.set(entry, this.lastWrite.get(entry)?.flush);
		};
		void (async () => {
			for (let time = 0, waited = 0; time < REWRITES; time++) {
				await sleep(settling * 2 ** time - waited);
				waited = settling * 2 ** time;
				await rewrite();
			}
		})().finally(() => {
			for (const entry of written) {
				const known = this.lastWrite.get(entry);
				if (known && --known.waiting <= 0) this.lastWrite.delete(entry);
			}
		});
	}

	/**
	 * One store call, timed, tried a second time if it fails: two processes writing a row's first
	 * entries at once both insert it, and n8n refuses the second. A call that wrote and then failed
	 * errs to "held" on the retry: a row reads as claimed before, never as new.
	 */
	private async call<T>(work: () => Promise<T>): Promise<{ value: T } | { failure: unknown }> {
		for (let attempt = 1; ; attempt++) {
			const started = Date.now();
			try {
				const value = await work();
				this.timings.push(Date.now() - started);
				if (this.timings.length > CALLS_TIMED) this.timings.shift();
				return { value };
			} catch (failure) {
				// A failed call may have written: the size its own calls left is unknown until counted.
				this.ownSize = undefined;
				if (attempt >= 2) return { failure };
				await sleep(50);
			}
		}
	}
}

import type { DeduplicationScope, ICheckProcessedOptions, IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

/**
 * The only code that calls n8n's processed-data store (`checkProcessedAndRecord`,
 * `removeProcessed`, `getProcessedDataCount`): one row of marks per workflow (scope `workflow`) or
 * per node (scope `node`) in n8n's database. Each call reads the whole row and writes it back, so
 * a call costs about the same for one mark as for a hundred.
 *
 * One journal per row in this process, shared by every execution here: what they ask while a call
 * is under way goes into the next call, together (a group commit). Calls go one at a time, in the
 * order asked, so in one process a test-and-set is atomic and a forget is never undone.
 *
 * Never past the row's room: n8n drops a row's oldest marks past `maxEntries`, and a dropped mark
 * is a forgotten payment. The journal knows the row's size (read with the store's one read-only
 * call, then kept up, never below the truth) and refuses a call that could pass ROOM; a caller that would add a transfer
 * the record does not hold stops at ROOM_FOR_NEW, so that transfers it holds can always be looked up.
 *
 * Across n8n processes (queue-mode workers) the store has no lock: a call that read the row before
 * another process wrote it, and writes after, puts back what it read. Where the service guards,
 * the record makes a transfer's state again a settling window later (`again`), which puts back
 * what such a stale write lost. Only where another process writes the row: the journal knows the
 * size its own calls leave, and a count that differs shows another writer (for good). Alone, a
 * state made again costs a whole-row write and, for a forget, a scan of the row per mark in n8n.
 */

/** n8n's limit for the row, which the journal never lets it reach. */
export const MAX_ENTRIES = 60_000;
/** The row's room: no call may leave more marks. */
export const ROOM = 58_000;
/** A transfer the record does not hold is taken on only while the row holds fewer marks than this. */
export const ROOM_FOR_NEW = 50_000;
const OPTIONS: ICheckProcessedOptions = { mode: 'entries', maxEntries: MAX_ENTRIES };

/** How long forgets wait for more before their call. */
const FORGET_LINGER_MS = 50;
/** The row's size is read again (a read-only call) after this many calls: other processes write it too. */
const RECOUNT_EVERY = 200;
/** Near the room, the size is read before every call that records. */
const NEAR = 1_000;
/**
 * A state is made again this many times the slowest recent call later (queue mode): by then
 * another process's call that overlapped the write has ended.
 */
const SETTLING_PER_CALL = 5;
/** How often a state is made again, and how much twice as far apart each time (settling × 1, 2, 4 … 64). */
const AGAIN_TIMES = 7;
const AGAIN_SPACING = 2;
const MIN_SETTLING_MS = 250;
const CALLS_TIMED = 100;
/** Counts asked for by states waiting to be made again go at most this often (a count reads the whole row). */
const COUNT_SPACING_MS = 250;
/** How many marks the journal remembers the presence of (what a forget removes), newest kept. */
const MARKS_DECIDED = 2 * ROOM;
const RETRY_AFTER_MS = 50;

/** What one call found: which of the asked marks were there before it (or asked earlier in it), and the row's size after. */
export interface Recorded {
	seen: Set<string>;
	size?: number;
}

/** The row has no room for the call: nothing was written. */
export class RecordFull extends Error {
	constructor(readonly size: number) {
		super(`the record holds ${size.toLocaleString('en-US')} marks`);
	}
}

type Request =
	| {
			kind: 'record';
			marks: string[];
			limit: number;
			resolve(result: Recorded): void;
			reject(error: unknown): void;
	  }
	| {
			kind: 'forget';
			marks: string[];
			/** Forgotten before the next claim, without waiting for more: asking wrote it, and a kill meanwhile would leave it. */
			now?: boolean;
			resolve(): void;
			reject(error: unknown): void;
	  }
	/** A count of the row, for a state waiting to be made again: has another process written it? */
	| { kind: 'count'; marks: []; resolve(): void; reject(error: unknown): void };

type Helpers = IExecuteFunctions['helpers'];

export class Journal {
	private static readonly journals = new Map<string, Journal>();
	private readonly queue: Request[] = [];
	private running = false;
	private forgetsSince?: number;
	private wake: () => void = () => undefined;
	/** The row's size as this process knows it (read with the read-only count, then kept up). */
	private size?: number;
	private callsSinceCount = 0;
	/** Durations of the last calls, in milliseconds. */
	private lastMs = 0;
	private readonly timings: number[] = [];
	/** Store calls and their time, for n8n's debug log. */
	readonly stats = { calls: 0, ms: 0 };
	/** Another process writes this row: a count was not what this process's own calls left. */
	private othersWrite = false;
	/** The row's size as this process's own calls left it since the last count (undefined: a call it cannot account for). */
	private ownSize?: number;
	/** Marks whose presence this process's calls decided (true: in the row), for what a forget removes. */
	private readonly decided = new Map<string, boolean>();
	/** When the last count started, and the last one that could not be compared with `ownSize`. */
	private countedAt = 0;
	private uncomparedAt = 0;

	private constructor(
		private helpers: Helpers,
		private readonly scope: DeduplicationScope,
	) {}

	/** The journal of this row (the workflow's, or the node's) in this process. */
	static of(context: IExecuteFunctions, workflowId: string, scope: DeduplicationScope): Journal {
		const key = scope === 'node' ? `${workflowId}:${context.getNode().id}` : workflowId;
		const journal = Journal.journals.get(key) ?? new Journal(context.helpers, scope);
		Journal.journals.set(key, journal);
		// The helpers of any execution reach the same row; the latest is surely alive.
		journal.helpers = context.helpers;
		return journal;
	}

	/**
	 * Records `marks` and says which were there before (test-and-set), unless the row could pass
	 * `limit` (ROOM, or ROOM_FOR_NEW for a caller that may add a transfer): then RecordFull, nothing written.
	 */
	async record(wanted: string[], limit = ROOM): Promise<Recorded> {
		return await new Promise<Recorded>((resolve, reject) =>
			this.enqueue({ kind: 'record', marks: wanted, limit, resolve, reject }),
		);
	}

	async forget(unwanted: string[], { now = false } = {}): Promise<void> {
		if (unwanted.length === 0) return;
		await new Promise<void>((resolve, reject) =>
			this.enqueue({ kind: 'forget', marks: unwanted, now, resolve, reject }),
		);
	}

	/** Forgets go now, without waiting for more: a run is ending and waits for its writes. */
	hurry() {
		if (this.forgetsSince !== undefined) this.forgetsSince = 0;
		this.wake();
	}

	/** The row's size as last known (undefined before the first call). */
	knownSize(): number | undefined {
		return this.size;
	}

	/** The last call's duration: how far ahead a batch claims its rows. */
	lastCallMs(): number {
		return this.lastMs;
	}

	private enqueue(request: Request) {
		this.queue.push(request);
		if (request.kind === 'forget') this.forgetsSince ??= Date.now();
		if (request.kind !== 'forget' || request.now) this.wake();
		void this.pump();
	}

	/**
	 * One call at a time. Forgets that undo what asking wrote go first, before the next claim; other
	 * forgets wait a moment for more (a paid answer's, by the group), then go first too; claims
	 * next, as a run waits for them. A call takes every queued request of its kind, unless one
	 * shares a mark with a request of the other kind before it: what one mark goes through keeps
	 * its order.
	 */
	private async pump() {
		if (this.running) return;
		this.running = true;
		try {
			while (this.queue.length > 0) {
				const kind = this.nextKind();
				const waits = {
					forget: this.forgetDue()
						? 0
						: FORGET_LINGER_MS - (Date.now() - (this.forgetsSince ?? Date.now())),
					count: COUNT_SPACING_MS - (Date.now() - this.countedAt),
					record: 0,
				}[kind];
				if (waits > 0) {
					await Promise.race([sleep(waits), new Promise<void>((resolve) => (this.wake = resolve))]);
					continue;
				}
				if (kind === 'count') {
					await this.countedSize([], this.takeCounts());
					continue;
				}
				const batch: Request[] = [];
				const waiting: Request[] = [];
				const overtaken = new Set<string>();
				for (const request of this.queue) {
					if (request.kind === kind && !request.marks.some((mark) => overtaken.has(mark)))
						batch.push(request);
					else {
						waiting.push(request);
						for (const mark of request.marks) overtaken.add(mark);
					}
				}
				this.queue.splice(0, this.queue.length, ...waiting);
				if (kind === 'forget')
					this.forgetsSince = this.queue.some((request) => request.kind === 'forget')
						? Date.now()
						: undefined;
				await (kind === 'forget'
					? this.forgetCall(batch as Array<Extract<Request, { kind: 'forget' }>>)
					: this.recordCall(
							batch as Array<Extract<Request, { kind: 'record' }>>,
							Date.now() - this.countedAt >= COUNT_SPACING_MS ? this.takeCounts() : [],
						));
			}
		} finally {
			this.running = false;
		}
	}

	/**
	 * Forgets that are due go next, unless each is behind a claim of one of its marks; then claims
	 * (a count waiting goes with them); a count alone once no claim waits.
	 */
	private nextKind(): Request['kind'] {
		if (this.forgetDue() && this.canGoFirst('forget')) return 'forget';
		if (this.canGoFirst('record')) return 'record';
		return this.queue.some((request) => request.kind === 'count') ? 'count' : 'forget';
	}

	/** A forget goes now: one undoes what asking wrote, or they waited long enough for more. */
	private forgetDue(): boolean {
		if (this.forgetsSince === undefined) return false;
		return (
			Date.now() - this.forgetsSince >= FORGET_LINGER_MS ||
			this.queue.some((request) => request.kind === 'forget' && request.now)
		);
	}

	/** The counts waiting, taken out of the queue: the next count answers them all. */
	private takeCounts(): Array<Extract<Request, { kind: 'count' }>> {
		const counts = this.queue.filter((request) => request.kind === 'count');
		if (counts.length > 0)
			this.queue.splice(
				0,
				this.queue.length,
				...this.queue.filter((request) => request.kind !== 'count'),
			);
		return counts as Array<Extract<Request, { kind: 'count' }>>;
	}

	private canGoFirst(kind: Request['kind']): boolean {
		const heldBack = new Set<string>();
		for (const request of this.queue) {
			if (request.kind === kind && !request.marks.some((mark) => heldBack.has(mark))) return true;
			for (const mark of request.marks) heldBack.add(mark);
		}
		return false;
	}

	private async forgetCall(batch: Array<Extract<Request, { kind: 'forget' }>>) {
		const unique = [...new Set(batch.flatMap((request) => request.marks))];
		const forgotten = await this.call(
			async () => await this.helpers.removeProcessed(unique, this.scope, OPTIONS),
		);
		for (const request of batch) {
			if ('failure' in forgotten) request.reject(forgotten.failure);
			else request.resolve();
		}
		if ('failure' in forgotten) return this.forgetDecided(unique);
		this.accountForget(unique);
		// The size is not lowered: a mark asked to be forgotten may be gone already (forgotten twice,
		// or by another process), and a size known too low lets a call past the room. Kept high, it
		// is counted again (exactly) before every call near the room.
		this.wrote(unique);
	}

	private async recordCall(
		batch: Array<Extract<Request, { kind: 'record' }>>,
		counts: Array<Extract<Request, { kind: 'count' }>>,
	) {
		let size = await this.countedSize(batch, counts);
		// Each request in turn, while the row has room for it (its marks may all be new).
		const admitted: typeof batch = [];
		for (const request of batch) {
			if (size !== undefined && size + request.marks.length > request.limit)
				request.reject(new RecordFull(size));
			else {
				admitted.push(request);
				if (size !== undefined) size += request.marks.length;
			}
		}
		if (admitted.length === 0) return;
		const unique = [...new Set(admitted.flatMap((request) => request.marks))];
		const recorded = await this.call(
			async () => await this.helpers.checkProcessedAndRecord(unique, this.scope, OPTIONS),
		);
		if ('failure' in recorded) {
			this.forgetDecided(unique);
			for (const request of admitted) request.reject(recorded.failure);
			return;
		}
		const before = new Set(recorded.value.processed.map(String));
		if (this.size !== undefined) this.size += unique.length - before.size;
		if (this.ownSize !== undefined) this.ownSize += unique.length - before.size;
		for (const mark of unique) {
			// A mark not as this process left it: another process wrote the row.
			const present = this.decided.get(mark);
			if (present !== undefined && present !== before.has(mark)) this.othersWrite = true;
			this.decide(mark, true);
		}
		// Two requests in one call asking the same mark: the first finds it new, the next one not.
		const askedEarlier = new Set<string>();
		for (const request of admitted) {
			const seen = new Set(
				request.marks.filter((mark) => before.has(mark) || askedEarlier.has(mark)),
			);
			for (const mark of request.marks) askedEarlier.add(mark);
			request.resolve({ seen, size: this.size });
		}
		this.wrote(unique);
	}

	/**
	 * The row's size before a call that records: read (without writing) at first, every
	 * RECOUNT_EVERY calls (other processes write it too), before every call near the room, and
	 * where `counts` wait for it.
	 */
	private async countedSize(
		batch: Array<Extract<Request, { kind: 'record' }>>,
		counts: Array<Extract<Request, { kind: 'count' }>>,
	): Promise<number | undefined> {
		const near =
			this.size !== undefined &&
			batch.length > 0 &&
			this.size + batch.reduce((total, request) => total + request.marks.length, 0) >
				Math.min(...batch.map((request) => request.limit)) - NEAR;
		if (
			this.size === undefined ||
			near ||
			counts.length > 0 ||
			++this.callsSinceCount >= RECOUNT_EVERY
		) {
			const started = Date.now();
			const counted = await this.call(
				async () => await this.helpers.getProcessedDataCount(this.scope, OPTIONS),
			);
			// A store that cannot count is not a reason to send nothing: the size is then unknown.
			this.size = 'failure' in counted ? undefined : counted.value;
			if (!('failure' in counted)) this.compare(counted.value, started);
			this.callsSinceCount = 0;
		}
		for (const count of counts) count.resolve();
		return this.size;
	}

	/** A count of the row against the size this process's own calls left: another writer, if they differ. */
	private compare(counted: number, started: number) {
		if (this.ownSize === undefined) this.uncomparedAt = started;
		else if (counted !== this.ownSize) this.othersWrite = true;
		this.ownSize = counted;
		this.countedAt = started;
	}

	/** What this process's forget removed from the row: the marks its own calls left there. */
	private accountForget(unique: string[]) {
		for (const mark of unique) {
			const present = this.decided.get(mark);
			if (present === undefined) this.ownSize = undefined;
			else if (present && this.ownSize !== undefined) this.ownSize--;
			this.decide(mark, false);
		}
	}

	/** After a failed call (which may have written): these marks' presence is no longer known. */
	private forgetDecided(marks: string[]) {
		for (const mark of marks) this.decided.delete(mark);
	}

	private decide(mark: string, present: boolean) {
		this.decided.delete(mark);
		this.decided.set(mark, present);
		if (this.decided.size > MARKS_DECIDED)
			this.decided.delete(this.decided.keys().next().value as string);
	}

	/**
	 * Whether a write this process made at `writtenAt` needs no making again at `due`: no other
	 * process has written the row, by a count since `due` that this process's own calls explain
	 * back to before the write.
	 */
	private async writesAlone(writtenAt: number, due: number): Promise<boolean> {
		if (this.othersWrite) return false;
		if (this.countedAt < due)
			await new Promise<void>((resolve) =>
				this.enqueue({ kind: 'count', marks: [], resolve, reject: resolve }),
			);
		return !this.othersWrite && this.countedAt >= due && this.uncomparedAt < writtenAt;
	}

	/** For marks waiting to be written again: their last write by this process, by call (a write made again must still be the last). */
	private readonly lastWrite = new Map<string, { call: number; waiting: number }>();
	private writes = 0;

	private wrote(marks: string[]) {
		const call = ++this.writes;
		for (const mark of marks) {
			const known = this.lastWrite.get(mark);
			if (known) known.call = call;
		}
	}

	/**
	 * A state made again a settling window later: a call of another process that read
	 * the row before this process wrote it and wrote it back after lost the write; made again, it
	 * holds. A mark this process wrote otherwise since is left as it is. `onlyIfOthersSeen`: only where this
	 * process has already seen another writer (a state that must not outlive a settling elsewhere).
	 */
	again(kind: Request['kind'], written: string[], { onlyIfOthersSeen = false } = {}) {
		if (written.length === 0 || (onlyIfOthersSeen && !this.othersWrite)) return;
		for (const mark of written) {
			const known = this.lastWrite.get(mark) ?? { call: this.writes, waiting: 0 };
			known.waiting++;
			this.lastWrite.set(mark, known);
		}
		const asOf = new Map(written.map((mark) => [mark, this.lastWrite.get(mark)?.call]));
		const settling = Math.max(MIN_SETTLING_MS, SETTLING_PER_CALL * Math.max(0, ...this.timings));
		const writtenAt = Date.now();
		const once = async () => {
			const still = written.filter((mark) => this.lastWrite.get(mark)?.call === asOf.get(mark));
			if (still.length === 0 || (await this.writesAlone(writtenAt, Date.now()))) return;
			await (
				kind === 'record' ? this.record(still).then(() => undefined) : this.forget(still)
			).catch(() => undefined);
			for (const mark of still) asOf.set(mark, this.lastWrite.get(mark)?.call);
		};
		const done = () => {
			for (const mark of written) {
				const known = this.lastWrite.get(mark);
				if (known && --known.waiting <= 0) this.lastWrite.delete(mark);
			}
		};
		// Again and again, further apart each time: while other processes write the row back to back,
		// any one write may be lost; the later ones land once their calls have quietened.
		const schedule = async () => {
			let waited = 0;
			for (let time = 0; time < AGAIN_TIMES; time++) {
				const wait = settling * AGAIN_SPACING ** time;
				await sleep(wait - waited);
				waited = wait;
				await once();
			}
		};
		void schedule().finally(done);
	}

	/**
	 * One store call, timed, tried a second time if it fails: two n8n processes that write a row's
	 * first marks at once both find no row and both insert one, and n8n refuses the second insert.
	 * A call that fails wrote nothing; one that wrote and then failed errs to "seen" on the retry,
	 * so a row reads as claimed before, never as new.
	 */
	private async call<T>(work: () => Promise<T>): Promise<{ value: T } | { failure: unknown }> {
		for (let attempt = 1; ; attempt++) {
			const started = Date.now();
			try {
				const value = await work();
				this.lastMs = Date.now() - started;
				this.timings.push(this.lastMs);
				if (this.timings.length > CALLS_TIMED) this.timings.shift();
				this.stats.calls++;
				this.stats.ms += this.lastMs;
				return { value };
			} catch (failure) {
				// A failed call may have written: the size its own calls left is not known until counted.
				this.ownSize = undefined;
				if (attempt >= 2) return { failure };
				await sleep(RETRY_AFTER_MS);
			}
		}
	}
}

import { randomUUID } from 'crypto';
import type { ICheckProcessedOptions, IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { marks } from './marks';

/**
 * The only code that calls n8n's processed-data store (`checkProcessedAndRecord`,
 * `removeProcessed`, `getProcessedDataCount`): one row per workflow and node in n8n's database,
 * holding the md5 of each mark, the oldest dropped past MAX_ENTRIES. Each call reads the whole
 * row and writes it back (about 0.5 µs per entry held, measured on SQLite: 5 ms at 10,000
 * entries, 9 ms at 20,000), so a call costs the same for one mark or a thousand.
 *
 * Hence one journal per node in this process, shared by every execution of the node here (a
 * batch's lanes, and events arriving at once): what they ask while a call is under way goes into
 * the next call, together (a group commit). Calls go one at a time, in the order asked, so in one
 * process a test-and-set is atomic: of two executions claiming the same transfer, exactly one
 * finds it new, and a forget is never undone.
 *
 * Across processes (queue-mode workers) the store has no lock: a call that read the row before
 * another process wrote it, and writes after, puts back what it read. `confirm` tells a call that
 * was kept from one that was written over, by asking about the call's token in a later call that
 * starts a wait after it ended; that holds while no call on another process takes longer than the
 * wait (guardWaitMs: twice the slowest recent call, measured). Forgets cannot be confirmed (asking
 * records): the record uses them only where their loss reads as in doubt (index.ts), and a "no
 * clear answer" mark this process forgot is kept forgotten for a while (`keepForgotten`): each of
 * its forget calls forgets it again, and its own claims do not take it for there.
 */

export const MAX_ENTRIES = 21_000;
/** From here on the row is nearly full: each run says so, before n8n forgets anything. */
export const NEARLY_FULL = 19_000;
const OPTIONS: ICheckProcessedOptions = { mode: 'entries', maxEntries: MAX_ENTRIES };

/** At least a garbage-collection pause of a busy n8n: a call stalled by one outlasts a faster wait. */
const MIN_GUARD_WAIT_MS = 100;
/**
 * The wait is this many times the slowest of the last calls: another process's call that wrote
 * over a claim after its confirmation took longer than the wait, and its slowest calls, not its
 * usual ones, are what the wait must outlast (twice their 90th percentile was outlasted once, in
 * the queue suite on a loaded machine, and a top-up was paid twice).
 */
const GUARD_WAIT_PER_CALL = 2;
const CALLS_TIMED = 100;
const RETRY_AFTER_MS = 50;
const MAX_SERVED_TOKENS = 100;
/** How long forgets wait for more before their call. */
const FORGET_LINGER_MS = 50;
/** The row's size is read again (a read-only call) after this many writes: other processes write it too. */
const RECOUNT_EVERY = 200;
/** The settling window is this many guard waits, at least a second. */
const SETTLING_PER_WAIT = 5;
const MIN_SETTLING_MS = 1000;

type Helpers = IExecuteFunctions['helpers'];

/** How full the node's row is, as far as this process knows: what the run says to the user. */
export interface Fill {
	/** Marks the row holds after the call. */
	marks: number;
	/** The oldest marks n8n dropped to make room for the call's (0: nothing forgotten). */
	dropped: number;
}

/** What one call found: which of the asked marks were there before it (or asked earlier in it). */
export interface Recorded {
	seen: Set<string>;
	/** The call's token, when asked for: `confirm` it before trusting the call across processes. */
	token?: string;
	endedAt: number;
	fill?: Fill;
}

type Request =
	| { kind: 'record'; marks: string[]; withToken: boolean; resolve(result: Recorded): void; reject(error: unknown): void }
	| { kind: 'forget'; marks: string[]; resolve(): void; reject(error: unknown): void };

export class Journal {
	private static readonly journals = new Map<string, Journal>();
	private readonly queue: Request[] = [];
	private running = false;
	/** Durations of the last calls, in milliseconds. */
	private readonly timings: number[] = [];
	/** Since when forgets have been waiting for more. */
	private forgetsSince?: number;
	private wake: () => void = () => undefined;
	/** Tokens of calls whose requests may still ask for a confirmation. */
	private readonly tokens = new Map<string, { waiting: number; confirmation?: Promise<boolean> }>();
	private readonly servedTokens: string[] = [];
	/** Marks this process forgot and keeps forgotten, until when. */
	private readonly keptForgotten = new Map<string, number>();
	private refreshing = false;
	private lastForgetAt = 0;
	/** The row's size as this process knows it (read with the read-only count, then kept up). */
	private size?: number;
	private writesSinceCount = 0;
	/** Store calls and their time, for the run's report in n8n's debug log. */
	readonly stats = { calls: 0, ms: 0 };

	private constructor(private helpers: Helpers) {}

	/** The journal of this node of this workflow, in this process. */
	static of(context: IExecuteFunctions, workflowId: string): Journal {
		const key = `${workflowId}:${context.getNode().id}`;
		const journal = Journal.journals.get(key) ?? new Journal(context.helpers);
		Journal.journals.set(key, journal);
		// The helpers of any execution of the node reach the same row; the latest is surely alive.
		journal.helpers = context.helpers;
		return journal;
	}

	/** Records `marks` and says which were there before (test-and-set). */
	async record(wanted: string[], { withToken = false } = {}): Promise<Recorded> {
		return await new Promise<Recorded>((resolve, reject) => this.enqueue({ kind: 'record', marks: wanted, withToken, resolve, reject }));
	}

	async forget(unwanted: string[]): Promise<void> {
		// Tokens that have served go along with the next forget (a call of their own only when many wait).
		const all = [...unwanted, ...this.servedTokens.splice(0)];
		await new Promise<void>((resolve, reject) => this.enqueue({ kind: 'forget', marks: all, resolve, reject }));
	}

	/**
	 * Forgets `marks` and keeps them forgotten for the settling window: another process's call that
	 * read the row before this forget, and writes after it, writes them back; this process's later
	 * forget calls forget them again (one of its own every half window, when it makes none).
	 */
	async keepForgotten(unwanted: string[]): Promise<void> {
		const until = Date.now() + this.settlingMs();
		for (const mark of unwanted) this.keptForgotten.set(mark, until);
		if (!this.refreshing) void this.refresh();
		await this.forget(unwanted);
	}

	/** How long another process's call that read the row before one of ours could still be writing it back. */
	settlingMs(): number {
		return Math.max(MIN_SETTLING_MS, SETTLING_PER_WAIT * this.guardWaitMs());
	}

	private async refresh() {
		this.refreshing = true;
		try {
			while (this.stillForgotten().length > 0) {
				await sleep(this.settlingMs() / 2);
				if (Date.now() - this.lastForgetAt >= this.settlingMs() / 2) await this.forget([]).catch(() => undefined);
			}
		} finally {
			this.refreshing = false;
		}
	}

	/** The marks kept forgotten now; those whose time has passed are let go. */
	private stillForgotten(): string[] {
		const now = Date.now();
		for (const [mark, until] of this.keptForgotten) if (until < now) this.keptForgotten.delete(mark);
		return [...this.keptForgotten.keys()];
	}

	/** A token no request needs any more: forgotten with the next forget. */
	private retire(token: string) {
		this.tokens.delete(token);
		this.servedTokens.push(token);
		if (this.servedTokens.length >= MAX_SERVED_TOKENS) void this.forget([]).catch(() => undefined);
	}

	/**
	 * Whether the call that recorded `recorded` was kept: a call that starts the guard's wait after
	 * it ended asks about its token. False: another process wrote the row over it.
	 */
	async confirm(recorded: Recorded): Promise<boolean> {
		const { token, endedAt } = recorded;
		const shared = token ? this.tokens.get(token) : undefined;
		if (!token || !shared) return true;
		// Every request of a call shares its token: it is asked about once, then forgotten.
		shared.confirmation ??= this.askAfterWait(token, endedAt);
		return await shared.confirmation;
	}

	/** A request of a call with a token that needs no confirmation: the token goes once no request needs it. */
	dismiss(recorded: Recorded) {
		const shared = recorded.token ? this.tokens.get(recorded.token) : undefined;
		if (!shared || shared.confirmation || --shared.waiting > 0) return;
		this.retire(recorded.token as string);
	}

	private async askAfterWait(token: string, endedAt: number): Promise<boolean> {
		const remaining = endedAt + this.guardWaitMs() - Date.now();
		if (remaining > 0) await sleep(remaining);
		try {
			const { seen } = await this.record([token]);
			return seen.has(token);
		} finally {
			// Asking recorded it if it was gone: either way it has served.
			this.retire(token);
		}
	}

	/** How long a claim waits before it is confirmed: measured, not fixed. */
	guardWaitMs(): number {
		return Math.max(MIN_GUARD_WAIT_MS, Math.ceil(GUARD_WAIT_PER_CALL * Math.max(0, ...this.timings)));
	}

	/** The last call's duration: how far ahead a batch claims its rows. */
	lastCallMs(): number {
		return this.timings.at(-1) ?? 0;
	}

	private enqueue(request: Request) {
		this.queue.push(request);
		if (request.kind === 'record') this.wake();
		else this.forgetsSince ??= Date.now();
		void this.pump();
	}

	/**
	 * One call at a time. Claims come first, as a run waits for them; forgets (what a run no longer
	 * holds true) wait a moment for more, unless a claim would have to overtake them: fewer calls,
	 * so fewer that another process's call can write over. A call takes every queued request of its
	 * kind, also those behind a request of the other kind, unless they share a mark with a request
	 * they would overtake: what one mark goes through keeps its order.
	 */
	private async pump() {
		if (this.running) return;
		this.running = true;
		try {
			while (this.queue.length > 0) {
				const kind = this.nextKind();
				const lingered = Date.now() - (this.forgetsSince ?? Date.now());
				if (kind === 'forget' && lingered < FORGET_LINGER_MS) {
					await Promise.race([sleep(FORGET_LINGER_MS - lingered), new Promise<void>((resolve) => (this.wake = resolve))]);
					continue;
				}
				const batch: Request[] = [];
				const waiting: Request[] = [];
				const overtaken = new Set<string>();
				for (const request of this.queue) {
					if (request.kind === kind && !request.marks.some((mark) => overtaken.has(mark))) batch.push(request);
					else {
						waiting.push(request);
						for (const mark of request.marks) overtaken.add(mark);
					}
				}
				this.queue.splice(0, this.queue.length, ...waiting);
				if (kind === 'forget') this.forgetsSince = this.queue.some((request) => request.kind === 'forget') ? Date.now() : undefined;
				await this.call(batch);
			}
		} finally {
			this.running = false;
		}
	}

	/**
	 * Forgets that waited long enough go next, unless each is behind a claim of one of its marks;
	 * else a claim that no earlier forget of its marks holds back.
	 */
	private nextKind(): Request['kind'] {
		const lingered = this.forgetsSince !== undefined && Date.now() - this.forgetsSince >= FORGET_LINGER_MS;
		if (lingered && this.firstFree('forget')) return 'forget';
		return this.firstFree('record') ? 'record' : 'forget';
	}

	/** Whether a request of this kind is queued that no earlier request of the other kind holds back (by a mark they share). */
	private firstFree(kind: Request['kind']): boolean {
		const heldBack = new Set<string>();
		for (const request of this.queue) {
			if (request.kind === kind && !request.marks.some((mark) => heldBack.has(mark))) return true;
			for (const mark of request.marks) heldBack.add(mark);
		}
		return false;
	}

	private async call(batch: Request[]) {
		const token = batch.some((request) => request.kind === 'record' && request.withToken) ? marks.token(randomUUID()) : undefined;
		// What this process keeps forgotten goes along with each of its forgets.
		const keptForgotten = batch[0].kind === 'forget' ? this.stillForgotten() : [];
		const unique = [...new Set([...(token ? [token] : []), ...batch.flatMap((request) => request.marks), ...keptForgotten])];
		if (unique.length === 0) {
			for (const request of batch) {
				if (request.kind === 'record') request.resolve({ seen: new Set(), endedAt: Date.now() });
				else request.resolve();
			}
			return;
		}
		if (batch[0].kind === 'forget') {
			this.lastForgetAt = Date.now();
			const forgotten = await this.once(async () => await this.helpers.removeProcessed(unique, 'node', OPTIONS));
			// The marks kept forgotten went with it again, mostly gone already: only the batch's own count.
			const own = new Set(batch.flatMap((request) => request.marks)).size;
			if (!('failure' in forgotten) && this.size !== undefined) this.size = Math.max(0, this.size - own);
			for (const request of batch as Array<Extract<Request, { kind: 'forget' }>>) {
				if ('failure' in forgotten) request.reject(forgotten.failure);
				else request.resolve();
			}
			return;
		}
		const counted = await this.countedSize();
		const recorded = await this.once(async () => await this.helpers.checkProcessedAndRecord(unique, 'node', OPTIONS));
		if ('failure' in recorded) {
			for (const request of batch) request.reject(recorded.failure);
			return;
		}
		const { value: { processed }, endedAt } = recorded;
		if (token) this.tokens.set(token, { waiting: batch.filter((request) => request.kind === 'record' && request.withToken).length });
		// A mark this process keeps forgotten, found there, was written back by another process's call.
		const kept = new Set(this.stillForgotten());
		const before = new Set(processed.map(String).filter((mark) => !kept.has(mark)));
		const fill = this.grown(counted, unique.length - before.size);
		// Two requests in one call asking the same mark: the first finds it new, the next one not.
		const askedEarlier = new Set<string>();
		for (const request of batch as Array<Extract<Request, { kind: 'record' }>>) {
			const seen = new Set(request.marks.filter((mark) => before.has(mark) || askedEarlier.has(mark)));
			for (const mark of request.marks) askedEarlier.add(mark);
			request.resolve({ seen, token: request.withToken ? token : undefined, endedAt, fill });
		}
	}

	/** The row's size before a call that records: read (without writing) now and then, else kept up. */
	private async countedSize(): Promise<number | undefined> {
		if (this.size === undefined || this.writesSinceCount >= RECOUNT_EVERY) {
			const counted = await this.once(async () => await this.helpers.getProcessedDataCount('node', OPTIONS));
			// A store that cannot count is not a reason to send nothing: the fill is then unknown.
			this.size = 'failure' in counted ? undefined : counted.value;
			this.writesSinceCount = 0;
		}
		return this.size;
	}

	/** The row after a call that added `added` marks: n8n keeps the last MAX_ENTRIES. */
	private grown(before: number | undefined, added: number): Fill | undefined {
		this.writesSinceCount++;
		if (before === undefined) return undefined;
		const after = before + added;
		this.size = Math.min(MAX_ENTRIES, after);
		return { marks: this.size, dropped: Math.max(0, after - MAX_ENTRIES) };
	}

	/**
	 * One store call, timed, tried a second time if it fails: two n8n processes that write a node's
	 * first marks at once both find no row and both insert one, and n8n refuses the second insert.
	 * A call that fails wrote nothing; one that wrote and then failed errs to "seen" on the retry,
	 * so a row reads as claimed before, never as new.
	 */
	private async once<T>(work: () => Promise<T>): Promise<{ value: T; endedAt: number } | { failure: unknown }> {
		for (let attempt = 1; ; attempt++) {
			const started = Date.now();
			try {
				const value = await work();
				return { value, endedAt: this.timed(started) };
			} catch (failure) {
				if (attempt >= 2) return { failure };
				await sleep(RETRY_AFTER_MS);
			}
		}
	}

	private timed(started: number): number {
		const now = Date.now();
		this.timings.push(now - started);
		if (this.timings.length > CALLS_TIMED) this.timings.shift();
		this.stats.calls++;
		this.stats.ms += now - started;
		return now;
	}
}

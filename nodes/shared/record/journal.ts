import { randomUUID } from 'crypto';
import type { ICheckProcessedOptions, IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { marks } from './marks';

/**
 * The only code that calls n8n's processed-data store (`checkProcessedAndRecord`,
 * `removeProcessed`): one row per workflow and node in n8n's database, holding the md5 of each
 * mark, the oldest dropped past MAX_ENTRIES. Each call reads the whole row and writes it back
 * (about 0.5 µs per entry held, measured on SQLite: 5 ms at 10,000 entries, 18 ms at 40,000), so
 * a call costs the same for one mark or a thousand.
 *
 * Hence one journal per node in this process, shared by every execution of the node here (a
 * batch's lanes, and events arriving at once): what they ask while a call is under way goes into
 * the next call, together (a group commit). Calls go one at a time, in the order asked, so in one
 * process a test-and-set is atomic: of two executions claiming the same transfer, exactly one
 * finds it new.
 *
 * Across processes (queue-mode workers) the store has no lock: a call that read the row before
 * another process wrote it, and writes after, erases what that process wrote. `confirm` tells a
 * call that was kept from one that was erased, by asking about the call's token in a later call
 * that starts a wait after it ended; that holds while no call on another process takes longer
 * than the wait (3× the longest call this process timed in the last minute, at least 25 ms).
 */

export const MAX_ENTRIES = 40_000;
const OPTIONS: ICheckProcessedOptions = { mode: 'entries', maxEntries: MAX_ENTRIES };

const MIN_GUARD_WAIT_MS = 25;
const GUARD_WAIT_PER_CALL = 3;
const TIMING_WINDOW_MS = 60_000;

type Helpers = IExecuteFunctions['helpers'];

/** What one call found: which of the asked marks were there before it (or asked earlier in it). */
export interface Recorded {
	seen: Set<string>;
	/** The call's token, when asked for: `confirm` it before trusting the call across processes. */
	token?: string;
	endedAt: number;
}

type Request =
	| { kind: 'record'; marks: string[]; withToken: boolean; resolve(result: Recorded): void; reject(error: unknown): void }
	| { kind: 'forget'; marks: string[]; resolve(): void; reject(error: unknown): void };

export class Journal {
	private static readonly journals = new Map<string, Journal>();
	private readonly queue: Request[] = [];
	private running = false;
	private readonly timings: Array<{ at: number; ms: number }> = [];
	/** Tokens of calls whose requests may still ask for a confirmation. */
	private readonly tokens = new Map<string, { waiting: number; confirmation?: Promise<boolean> }>();
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
		if (unwanted.length === 0) return;
		await new Promise<void>((resolve, reject) => this.enqueue({ kind: 'forget', marks: unwanted, resolve, reject }));
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
		this.tokens.delete(recorded.token as string);
		void this.forget([recorded.token as string]).catch(() => undefined);
	}

	private async askAfterWait(token: string, endedAt: number): Promise<boolean> {
		const remaining = endedAt + this.guardWaitMs() - Date.now();
		if (remaining > 0) await sleep(remaining);
		try {
			const { seen } = await this.record([token]);
			return seen.has(token);
		} finally {
			// Asking recorded it if it was gone: either way it has served.
			this.tokens.delete(token);
			void this.forget([token]).catch(() => undefined);
		}
	}

	/** How long a claim waits before it is confirmed: measured, not fixed. */
	guardWaitMs(): number {
		const since = Date.now() - TIMING_WINDOW_MS;
		const longest = Math.max(0, ...this.timings.filter((timing) => timing.at >= since).map((timing) => timing.ms));
		return Math.max(MIN_GUARD_WAIT_MS, GUARD_WAIT_PER_CALL * longest);
	}

	/** The last call's duration: how far ahead a batch claims its rows. */
	lastCallMs(): number {
		return this.timings.at(-1)?.ms ?? 0;
	}

	private enqueue(request: Request) {
		this.queue.push(request);
		void this.pump();
	}

	/** One call at a time, each taking every queued request of the same kind at its head. */
	private async pump() {
		if (this.running) return;
		this.running = true;
		try {
			while (this.queue.length > 0) {
				const kind = this.queue[0].kind;
				const batch: Request[] = [];
				while (this.queue.length > 0 && this.queue[0].kind === kind) batch.push(this.queue.shift() as Request);
				await this.call(batch);
			}
		} finally {
			this.running = false;
		}
	}

	private async call(batch: Request[]) {
		const token = batch.some((request) => request.kind === 'record' && request.withToken) ? marks.token(randomUUID()) : undefined;
		const unique = [...new Set([...(token ? [token] : []), ...batch.flatMap((request) => request.marks)])];
		const started = Date.now();
		try {
			if (batch[0].kind === 'forget') {
				await this.helpers.removeProcessed(unique, 'node', OPTIONS);
				this.timed(started);
				for (const request of batch) (request as Extract<Request, { kind: 'forget' }>).resolve();
				return;
			}
			const { processed } = await this.helpers.checkProcessedAndRecord(unique, 'node', OPTIONS);
			const endedAt = this.timed(started);
			if (token) this.tokens.set(token, { waiting: batch.filter((request) => request.kind === 'record' && request.withToken).length });
			const before = new Set(processed.map(String));
			// Two requests in one call asking the same mark: the first finds it new, the next one not.
			const askedEarlier = new Set<string>();
			for (const request of batch as Array<Extract<Request, { kind: 'record' }>>) {
				const seen = new Set(request.marks.filter((mark) => before.has(mark) || askedEarlier.has(mark)));
				for (const mark of request.marks) askedEarlier.add(mark);
				request.resolve({ seen, token: request.withToken ? token : undefined, endedAt });
			}
		} catch (error) {
			for (const request of batch) request.reject(error);
		}
	}

	private timed(started: number): number {
		const now = Date.now();
		this.timings.push({ at: now, ms: now - started });
		while (this.timings.length > 0 && this.timings[0].at < now - TIMING_WINDOW_MS) this.timings.shift();
		this.stats.calls++;
		this.stats.ms += now - started;
		return now;
	}
}

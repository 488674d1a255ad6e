import { randomUUID } from 'crypto';
import { sleep } from 'n8n-workflow';

import { DoneCheck } from './doneCheck';
import type { Lease } from './lease';
import { marks } from './marks';
import type { NodeStore } from './store';
import type { Planned, RecorderSettings, Row, Verdict } from './types';

/**
 * One run's bookkeeping of the transfers it sends, in group commits: one store call records the
 * claims of the next rows, the `done` marks of rows answered meanwhile and the lease, for however
 * many rows that is. A call costs about the same with one row or a thousand, and more the more
 * the row holds, so calls are spaced by nine times the last call's duration (at least 100 ms):
 * at most a tenth of the time goes to the store, whatever the history, and the window of rows
 * claimed ahead grows with the spacing so the lanes never wait for it.
 *
 * What a row's marks mean, and what the run does with it:
 * - no claim: never sent by this node. It is claimed (test-and-set, so the claim is also the
 *   question) and sent; internal transfers only once the next call found this call's token, so a
 *   claim another process overwrote is never acted on;
 * - claim and `done`: answered before: not sent, ALREADY_SUBMITTED;
 * - claim without `done`: sent before without a clear answer, or by a run that stopped before it
 *   recorded the answer. Card and standard transfers are sent again with the same Transfer ID
 *   (the service refuses a duplicate); internal transfers are not (UNKNOWN, until settled).
 * How `done` is read without ever taking an unanswered row for answered: doneCheck.ts.
 */

const MIN_GAP_MS = 100;
const GAP_PER_STORE_MS = 9;
const MAX_CLAIMS_PER_CALL = 5000;
/** Each call checks the tokens of this many calls before it. */
const TOKENS_CHECKED = 4;

interface Call {
	token: string;
	/** Everything the call recorded, to record again if another process overwrote it. */
	items: string[];
	/** Internal rows it claimed, sent only once a later call finds its token. */
	unconfirmed: Row[];
	/** It recorded claims or answers (not only the lease), and no later call has found its token yet. */
	pending: boolean;
}

export class Recorder {
	private readonly rows: Row[] = [];
	private readonly byIndex = new Map<number, Row>();
	/** Rows before this position have been claimed (or checked). */
	private nextToClaim = 0;
	/** How far the lanes have asked: the window of claims runs ahead of it. */
	private wanted = 0;
	/** Rows whose claim another process overwrote before it was confirmed: claimed again first. */
	private readonly reclaim: Row[] = [];
	/** Marks for the next call: `done` marks, and marks of overwritten calls. */
	private readonly toRecord = new Set<string>();
	private readonly toForget = new Set<string>();
	private readonly recentCalls: Call[] = [];
	private lastCallEnd = 0;
	/** Time spent in the store by the last round of calls. */
	private lastStoreMs = 0;
	private readonly startedAt = Date.now();
	private closing = false;
	private checkingForgotten = false;
	private failed?: string;
	private readonly doneCheck: DoneCheck;
	private wake: () => void = () => undefined;
	private readonly loop: Promise<void>;
	private readonly stats = { calls: 0, storeMs: 0, waits: 0, waitedMs: 0, largestCall: 0 };
	/** How far the lanes had asked at recent calls, for the rate they go at now. */
	private readonly pace: Array<{ at: number; wanted: number }> = [];

	constructor(
		private readonly store: NodeStore,
		private readonly lease: Lease,
		private readonly settings: RecorderSettings,
		planned: Planned[],
	) {
		for (const entry of planned) {
			const claim = settings.refusesDuplicates ? marks.sentWith(entry.transferId, entry.print) : marks.sentId(entry.transferId);
			const row: Row = { planned: entry, position: this.rows.length, claim, done: marks.done(entry.transferId, entry.print), waiters: [], claimedNow: false, started: false };
			this.rows.push(row);
			this.byIndex.set(entry.index, row);
		}
		this.doneCheck = new DoneCheck(store, settings);
		this.loop = this.run();
	}

	/** What to do with the item: known once its claim is recorded (and, for internal, confirmed). */
	async verdict(index: number): Promise<Verdict> {
		const row = this.byIndex.get(index);
		if (!row) return { kind: 'recordFailed', reason: 'the item was not planned' };
		this.wanted = Math.max(this.wanted, row.position + 1);
		if (row.verdict) return row.verdict;
		const waiting = Date.now();
		const verdict = new Promise<Verdict>((resolve) => row.waiters.push(resolve));
		this.wake();
		const decided = await verdict;
		this.stats.waits++;
		this.stats.waitedMs += Date.now() - waiting;
		return decided;
	}

	/** The request is about to go out: its claim stays. */
	sending(index: number) {
		const row = this.byIndex.get(index);
		if (row) row.started = true;
	}

	/** A clear answer: SUCCESS, PENDING, or the service's refusal of this node's own repeat. */
	answered(index: number) {
		const row = this.byIndex.get(index);
		if (!row) return;
		this.toRecord.add(row.done);
		this.doneCheck.settled(row);
		this.wake();
	}

	/** A definite refusal: no money moved, so the row may be sent again later. */
	refused(index: number) {
		const row = this.byIndex.get(index);
		if (!row) return;
		this.toForget.add(row.claim);
		this.doneCheck.settled(row);
		this.wake();
	}

	/** Records what is pending, forgets the claims of rows never sent, and ends the run's calls. */
	async close(): Promise<void> {
		this.closing = true;
		this.wake();
		await this.loop;
		const { calls, storeMs, waits, waitedMs, largestCall } = this.stats;
		this.settings.report(`Payouts record: ${this.rows.length} rows, ${calls} store calls (${storeMs} ms in all, the largest for ${largestCall} rows), rows waited for their claim ${waits} times (${waitedMs} ms in all).`);
	}

	/** Why the record could not be written, if so: what happened after it reads as unanswered later. */
	get failure(): string | undefined {
		return this.failed;
	}

	private async run(): Promise<void> {
		while (!this.failed) {
			if (this.closing) this.forgetUnsent();
			if (!this.hasWork()) {
				if (this.closing) break;
				await this.pause(MIN_GAP_MS * 5);
				continue;
			}
			// Calls keep their distance; a closing run keeps only the shortest, so that the call that
			// finds the last call's token comes after any other process's write that overlapped it.
			const gap = this.closing ? MIN_GAP_MS : Math.max(MIN_GAP_MS, this.lastStoreMs * GAP_PER_STORE_MS);
			const wait = this.lastCallEnd + gap - Date.now();
			if (wait > 0) {
				await this.pause(Math.min(wait, MIN_GAP_MS * 2));
				continue;
			}
			try {
				const started = Date.now();
				await this.commit();
				if (this.toForget.size > 0) await this.forget();
				this.lastCallEnd = Date.now();
				this.lastStoreMs = this.lastCallEnd - started;
				this.stats.calls++;
				this.stats.storeMs += this.lastStoreMs;
			} catch (error) {
				this.failed = (error as Error)?.message ?? String(error);
				this.settings.warn(`Payouts: the node's record of sent transfers could not be written: ${this.failed}`);
			}
		}
		// What was not decided will not be: those items are not sent.
		for (const row of this.rows) this.decide(row, { kind: 'recordFailed', reason: this.failed ?? 'the run ended before the item was claimed' });
	}

	/**
	 * A closing run forgets the claims of the rows it never sent, on every turn of its loop: a call
	 * in flight when the run closed records its claims after, and a claim left behind would read
	 * as a transfer sent without an answer (UNKNOWN, never sent) in every later run.
	 */
	private forgetUnsent() {
		for (const row of this.rows) {
			if (!row.claimedNow || row.started) continue;
			this.toForget.add(row.claim);
			row.claimedNow = false;
		}
		// Every row an interrupted check left unproven was settled in this run: its mark can go.
		if (this.doneCheck.clearable && !this.checkingForgotten) {
			this.toForget.add(marks.checking);
			this.checkingForgotten = true;
		}
	}

	private async pause(ms: number) {
		await Promise.race([new Promise<void>((resolve) => (this.wake = resolve)), sleep(ms)]);
	}

	private hasWork(): boolean {
		const pending = this.toRecord.size > 0 || this.toForget.size > 0;
		// A run ends once a later call has found the token of each call that recorded claims or answers.
		if (this.closing) return pending || this.recentCalls.some((call) => call.pending);
		const unconfirmed = this.recentCalls.some((call) => call.unconfirmed.some((row) => !row.verdict));
		return pending || unconfirmed || this.reclaim.length > 0 || this.claimable().length > 0 || this.lease.stale(this.lastCallEnd);
	}

	/** The rows to claim next: enough that the lanes still have rows when the call after next returns. */
	private claimable(): Row[] {
		const now = Date.now();
		const since = this.pace.find((sample) => now - sample.at < 5000) ?? { at: this.startedAt, wanted: 0 };
		const rate = (this.wanted - since.wanted) / Math.max(0.5, (now - since.at) / 1000);
		const period = (Math.max(MIN_GAP_MS, this.lastStoreMs * GAP_PER_STORE_MS) + this.lastStoreMs) / 1000;
		// Internal rows wait one call more, for their confirmation.
		const periods = this.settings.refusesDuplicates ? 3 : 4;
		const ahead = Math.ceil(rate * period * periods) + this.settings.concurrency * 2;
		const until = Math.min(this.rows.length, this.wanted + ahead, this.nextToClaim + MAX_CLAIMS_PER_CALL);
		return this.rows.slice(this.nextToClaim, Math.max(this.nextToClaim, until));
	}

	/** One group commit: the claims of the next rows, the answers, the lease, and recent calls' tokens. */
	private async commit() {
		this.pace.push({ at: Date.now(), wanted: this.wanted });
		while (this.pace.length > 0 && Date.now() - this.pace[0].at > 10_000) this.pace.shift();
		const claims = this.closing ? [] : [...this.reclaim.splice(0), ...this.claimable()];
		this.stats.largestCall = Math.max(this.stats.largestCall, claims.length);
		for (const row of claims) this.nextToClaim = Math.max(this.nextToClaim, row.position + 1);
		const recent = this.recentCalls.splice(0);
		const recorded = [...this.toRecord, ...claims.map((row) => row.claim)];
		const call: Call = { token: marks.token(randomUUID()), items: [this.lease.heartbeat(), ...recorded], unconfirmed: [], pending: recorded.length > 0 };
		this.toRecord.clear();
		const { value: seen } = await this.store.mark([call.token, ...recent.map((earlier) => earlier.token), ...call.items]);

		for (const earlier of recent) {
			if (seen.has(earlier.token)) {
				for (const row of earlier.unconfirmed) this.decide(row, { kind: 'send', resent: false });
				earlier.unconfirmed = [];
				earlier.pending = false;
				this.recentCalls.push(earlier);
			} else this.overwritten(earlier);
		}
		this.recentCalls.push(call);
		this.recentCalls.splice(0, Math.max(0, this.recentCalls.length - TOKENS_CHECKED));

		const before = claims.filter((row) => seen.has(row.claim));
		const mine = claims.filter((row) => !seen.has(row.claim));
		for (const row of mine) row.claimedNow = true;
		if (this.settings.refusesDuplicates) for (const row of mine) this.decide(row, { kind: 'send', resent: false });
		else call.unconfirmed = mine;
		if (before.length > 0) await this.checkDone(before);
	}

	/**
	 * Another process wrote the row over this call (it had read the row before the call): what the
	 * call recorded is recorded again, and its unconfirmed rows are claimed again, which tells
	 * whether someone else claimed them meanwhile.
	 */
	private overwritten(call: Call) {
		this.settings.warn("Payouts: another process overwrote this node's record of sent transfers; recording it again.");
		const again = new Set(call.unconfirmed.map((row) => row.claim));
		for (const row of call.unconfirmed) row.claimedNow = false;
		this.reclaim.push(...call.unconfirmed);
		for (const item of call.items) if (!again.has(item)) this.toRecord.add(item);
	}

	/** Rows claimed before this run: what their `done` marks say (doneCheck.ts). */
	private async checkDone(rows: Row[]) {
		for (const { row, verdict, recordDone } of await this.doneCheck.check(rows)) {
			if (recordDone) this.toRecord.add(row.done);
			this.decide(row, verdict);
		}
	}

	private async forget() {
		const forget = [...this.toForget];
		this.toForget.clear();
		await this.store.forget(forget);
	}

	private decide(row: Row, verdict: Verdict) {
		if (row.verdict) return;
		row.verdict = verdict;
		for (const resolve of row.waiters.splice(0)) resolve(verdict);
	}
}

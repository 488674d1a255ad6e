import type { IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import {
	confirmedAnswer,
	forgetSent,
	rememberAnswer,
	rememberSent,
	sentWithoutAnswer,
	takeTurn,
} from './inProcess';
import type { ConfirmedAnswer } from './inProcess';
import { keys } from './keys';
import {
	ENTRY_LIMIT,
	MAX_ENTRIES,
	NEW_KEY_LIMIT,
	ProcessedDataStore,
	StoreFull,
} from '../processedData/store';
import type { Asked } from '../processedData/store';
import type { DashboardStatus, RepeatGuard } from '../types';

/** The record's capacity in n8n's store: MAX_ENTRIES never reached, ENTRY_LIMIT per call, NEW_KEY_LIMIT for new transfers. */
export { ENTRY_LIMIT, MAX_ENTRIES, NEW_KEY_LIMIT };

/**
 * The record of sent transfers: an idempotency ledger in n8n's processed-data store (store.ts),
 * the workflow's, kept for every transfer whatever the options. This file is its whole interface,
 * used by run/ only. A row's life: `claim` (a test-and-set of its keys, keys.ts), `sending`, then
 * `conclude` with what became of it; `close` ends a run once its writes are done. Which promise
 * each part keeps: docs/internals.md.
 */

/** What the record says of a row, and so what the run does with it. */
export type Claim =
	/** Send it. `earlier: 'inDoubt'`: held in doubt (the service guards: sent again, safely). `unrecorded`: the record is full. */
	| { kind: 'claimed'; earlier: 'none' | 'inDoubt'; unrecorded?: boolean }
	/** Confirmed: this node holds a paid answer to these values, or the dashboard says paid. Not sent. */
	| { kind: 'confirmed'; first?: ConfirmedAnswer; byDashboard?: string; contradiction?: string }
	/** Sent by this node without a clear answer (the node guards): not sent. */
	| { kind: 'inDoubt' }
	/** In doubt, and the dashboard says it did not pay (the node guards): not sent again under it. */
	| { kind: 'notPaid'; word: string }
	/** This Transfer ID was claimed with other values: one Transfer ID is one transfer. */
	| { kind: 'otherValues' }
	/** The record takes on no new transfer (the node guards), or could not be written: not sent. */
	| { kind: 'full'; size: number }
	| { kind: 'recordFailed'; reason: string };

/** What became of a claimed row, as the record keeps it. */
export type Conclusion =
	/** The service answered SUCCESS or PENDING: its status and references are kept for a repeat. */
	| { confirmed: ConfirmedAnswer }
	/** Confirmed before, by what the record says: not sent now. */
	| 'confirmedEarlier'
	/** No money moved by this run's request (a clear refusal, or never sent): the claim is given back. */
	| 'released'
	/** No clear answer, or the service holds it from a request without one: the claim stays, in doubt. */
	| 'inDoubt'
	/** Perhaps not sent (Stop came first): released unless its request went out. */
	| 'notSent';

interface ClaimedRow {
	key: string;
	/** The keys this claim wrote, forgotten if it is released: none where it found the row in doubt. */
	wrote: string[];
	claim: string;
	/** What the record holds of a confirmed transfer: its keys without `unconfirmed`. */
	confirmedKeys: string[];
	unconfirmed: string;
	release: () => void;
	sent: boolean;
}

/**
 * What the record keeps of a conclusion: the keys forgotten now, and the states written again a
 * settling window later where other processes write the row (store.ts `rewriteLater`). Doubt is
 * written again only where the node guards (a lost doubt would be sent again) and another writer
 * was seen already: where the service guards a lost doubt costs only a refused send, and doubt
 * written over a settling elsewhere would read UNKNOWN.
 */
function onConclusion(row: ClaimedRow, conclusion: Conclusion, guard: RepeatGuard) {
	const { unconfirmed, confirmedKeys } = row;
	if (typeof conclusion === 'object')
		return { forget: [unconfirmed], record: confirmedKeys, reforget: [unconfirmed], doubt: [] };
	if (conclusion === 'confirmedEarlier')
		return { forget: [unconfirmed], record: [], reforget: [unconfirmed], doubt: [] };
	if (conclusion === 'inDoubt') {
		const doubt = guard === 'node' ? [...confirmedKeys, unconfirmed] : [];
		return { forget: [], record: [], reforget: [], doubt };
	}
	return { forget: row.wrote, record: [], reforget: [], doubt: [] };
}

/**
 * What a test-and-set of a row's keys says of it, and what asking wrote that is not true: forgotten
 * now, and again later where other workers write (`forgetLater`).
 */
function readClaim(
	{ held: found, size }: Asked,
	{
		id,
		claim,
		unconfirmed,
		asked,
	}: { id: string; claim: string; unconfirmed: string; asked: string[] },
	guard: RepeatGuard,
	{ dashboard, sentHere }: { dashboard?: DashboardStatus; sentHere: boolean },
): { claim: Claim; forget: string[]; forgetLater: string[] } {
	// This process sent these values without a clear answer, and the store holds nothing of them:
	// another process's stale write took them (asking has just written them back). In doubt.
	const held = sentHere && !found.has(claim) ? new Set([...found, ...asked]) : found;
	const read = (found: Claim, forget: string[] = [], forgetLater = forget) => ({
		claim: found,
		forget,
		forgetLater,
	});
	const isNew = !held.has(guard === 'node' ? id : claim);
	const full = isNew && (size ?? 0) > NEW_KEY_LIMIT;
	const saidPaid = dashboard?.meaning === 'paid' ? dashboard.word : undefined;
	// New where the record takes on nothing new: what asking wrote is forgotten, and not kept.
	if (full && saidPaid) return read({ kind: 'confirmed', byDashboard: saidPaid }, asked, []);
	if (full && guard === 'node') return read({ kind: 'full', size: size ?? 0 }, asked, []);
	if (full) return read({ kind: 'claimed', earlier: 'none', unrecorded: true }, asked, []);
	// Never sent by this node, and the user says paid: confirmed from now on.
	if (isNew && saidPaid) return read({ kind: 'confirmed', byDashboard: saidPaid }, [unconfirmed]);
	if (isNew) return read({ kind: 'claimed', earlier: 'none', unrecorded: false });
	// Another transfer has this Transfer ID: what asking wrote is forgotten again.
	if (!held.has(claim)) return read({ kind: 'otherValues' }, [claim, unconfirmed], []);
	// Confirmed (asking wrote `unconfirmed`), or in doubt and the dashboard says paid.
	if (!held.has(unconfirmed)) {
		const contradiction = saidPaid ? undefined : dashboard?.word;
		return read({ kind: 'confirmed', contradiction }, [unconfirmed]);
	}
	if (saidPaid) return read({ kind: 'confirmed', byDashboard: saidPaid }, [unconfirmed]);
	if (guard === 'service') return read({ kind: 'claimed', earlier: 'inDoubt' });
	return read(dashboard ? { kind: 'notPaid', word: dashboard.word } : { kind: 'inDoubt' });
}

const reasonOf = (error: unknown) => (error as Error)?.message ?? String(error);
/** A second look waits 250 ms and a random while more, a few times: longer than another worker's lookup takes to forget what it asked. */
const LOOK_AGAIN_MS = 250;
const LOOKS = 3;

export class TransferRecord {
	private readonly claimedRows = new Map<number, ClaimedRow>();
	private readonly claiming = new Set<Promise<Claim>>();
	private readonly writes: Array<Promise<void>> = [];
	private failedWrite?: string;
	/** The run has ended: a claim that comes now is given back at once (it will never be sent). */
	private closed = false;

	private constructor(
		private readonly store: ProcessedDataStore,
		private readonly workflowId: string,
		readonly guard: RepeatGuard,
	) {}

	/** The workflow's record for one run, which `close` ends. */
	static forWorkflow(context: IExecuteFunctions, workflowId: string, guard: RepeatGuard) {
		return new TransferRecord(ProcessedDataStore.acquire(context, workflowId), workflowId, guard);
	}

	/** What to do with a row: claimed for this run to send, or why not. */
	async claim(index: number, transferId: string, digest: string, dashboard?: DashboardStatus) {
		const claiming = this.claimOnce(index, transferId, digest, dashboard);
		this.claiming.add(claiming);
		try {
			return await claiming;
		} finally {
			this.claiming.delete(claiming);
			if (this.closed) this.conclude(index, 'notSent');
		}
	}

	private async claimOnce(
		index: number,
		transferId: string,
		digest: string,
		dashboard?: DashboardStatus,
	): Promise<Claim> {
		// One execution at a time per transfer in this process: a second one reads what the first left.
		const key = `${this.workflowId}|${transferId}|${digest}`;
		const release = await takeTurn(`${this.workflowId}|${transferId}`);
		// The run ended while this claim waited for its turn (Stop): never sent, nothing written.
		if (this.closed) {
			release();
			return { kind: 'recordFailed', reason: 'the run ended before this row was taken on' };
		}
		const id = keys.transferId(transferId);
		const claim = keys.claim(transferId, digest);
		const unconfirmed = keys.unconfirmed(transferId, digest);
		const asked = this.guard === 'node' ? [id, claim, unconfirmed] : [claim, unconfirmed];
		const confirmedKeys = asked.filter((entry) => entry !== unconfirmed);
		const hold = (found: Claim): Claim => {
			if (found.kind === 'confirmed') forgetSent(key);
			if (found.kind !== 'claimed' || found.unrecorded) release();
			// Found in doubt, the keys are an earlier request's: a release must not take its doubt.
			else {
				const wrote = found.earlier === 'inDoubt' ? [] : asked;
				const row = { key, wrote, claim, confirmedKeys, unconfirmed, release, sent: false };
				this.claimedRows.set(index, row);
				// Where the node guards, a claim another process's stale write took would let a re-run
				// elsewhere pay again: written again a settling window later where others write the row.
				if (this.guard === 'node' && wrote.length > 0) this.store.rewriteLater('record', wrote);
			}
			return found;
		};
		try {
			// This process holds the service's paid answer to these values: that is the evidence.
			const first = confirmedAnswer(key);
			const contradiction = dashboard?.meaning !== 'paid' ? dashboard?.word : undefined;
			if (first) return hold({ kind: 'confirmed', first, contradiction });
			const entries = { id, claim, unconfirmed, asked };
			let read!: ReturnType<typeof readClaim>;
			// What asking wrote that is not true is forgotten in the same step as the answer: before any other claim's call.
			const { undone } = await this.store.record(asked, (found) => {
				const sentHere = sentWithoutAnswer(key);
				read = readClaim(found, entries, this.guard, { dashboard, sentHere });
				return read.forget;
			});
			if (undone)
				this.write(undone.then(() => this.store.rewriteLater('forget', read.forgetLater)));
			return hold(read.claim);
		} catch (error) {
			release();
			if (!(error instanceof StoreFull)) return { kind: 'recordFailed', reason: reasonOf(error) };
			if (this.guard === 'node') return { kind: 'full', size: error.size };
			return { kind: 'claimed', earlier: 'none', unrecorded: true };
		}
	}

	/**
	 * Where the service refused a repeat of a row: looks once more, a moment later. Another worker
	 * asking about the same confirmed transfer a moment ago made it look in doubt, or another
	 * worker's stale write hid it (the paying worker writes its state again later).
	 */
	async confirmedOnSecondLook(index: number): Promise<boolean> {
		const row = this.claimedRows.get(index);
		if (!row) return false;
		// A few looks, a random while apart: workers looking the same transfer up at once stop meeting.
		for (let look = 0; look < LOOKS; look++) {
			await sleep(Math.round(LOOK_AGAIN_MS * (1 + 2 * Math.random())));
			try {
				const { held } = await this.store.record([row.claim, row.unconfirmed]);
				// Both gone is not confirmed: another worker's released claim took them (asking wrote them again).
				if (held.has(row.claim) && !held.has(row.unconfirmed)) return true;
			} catch {
				return false;
			}
		}
		return false;
	}

	/** The request is going out now: from here its claim stays until its answer. */
	sending(index: number) {
		const row = this.claimedRows.get(index);
		if (!row) return;
		row.sent = true;
		rememberSent(row.key);
	}

	/** What became of a claimed row: the record keeps it so, and the row's turn passes on. */
	conclude(index: number, conclusion: Conclusion) {
		const row = this.claimedRows.get(index);
		if (!row || (conclusion === 'notSent' && row.sent)) return;
		this.claimedRows.delete(index);
		if (typeof conclusion === 'object') rememberAnswer(row.key, conclusion.confirmed);
		else if (conclusion !== 'inDoubt') forgetSent(row.key);
		const kept = onConclusion(row, conclusion, this.guard);
		const write = async () => {
			await this.store.forget(kept.forget);
			this.store.rewriteLater('record', kept.record);
			this.store.rewriteLater('forget', kept.reforget);
			this.store.rewriteLater('record', kept.doubt, { onlyIfOthersSeen: true });
		};
		this.write(write().finally(row.release));
	}

	/**
	 * Gives back the rows this run claimed and never sent, each claim still under way as it comes
	 * (none waits for another's turn, which may be another execution's), then waits for the run's
	 * writes: a run ends with its record written.
	 */
	async close(warn: (message: string) => void): Promise<void> {
		this.closed = true;
		for (const index of [...this.claimedRows.keys()]) this.conclude(index, 'notSent');
		await Promise.all(this.claiming);
		this.store.flushNow();
		await Promise.all(this.writes);
		this.store.release();
		if (this.failedWrite) warn(this.failedWrite);
	}

	/** What this process knows of a row without asking the record (Dry Run): the service's clear answer, if it holds one. */
	knownAnswer = (transferId: string, digest: string) =>
		confirmedAnswer(`${this.workflowId}|${transferId}|${digest}`);
	/** The last store call's duration (how far ahead a batch claims), and how full the record is as last known. */
	lastCallMs = () => this.store.lastCallMs();
	knownSize = () => this.store.knownSize();

	private write(done: Promise<void>) {
		this.writes.push(
			done.catch((error) => {
				this.failedWrite = `the record could not be written to the end (${reasonOf(error)}); the rows concerned read as in doubt`;
			}),
		);
	}
}

import { createHash } from 'crypto';
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { Lease } from './lease';
import { Recorder } from './recorder';
import type { Planned, Verdict } from './types';
import { currentRound, finishRound } from './rounds';
import type { Round } from './rounds';
import { MAX_ENTRIES, NodeStore } from './store';

/**
 * The node's record of the transfers it sent: what makes a re-run, n8n's Retry On Fail, n8n's
 * execution retry and a re-run after a crash pay no one twice.
 *
 * Promises, for each of the node's last 100,000 transfers (RECORD_REACH), whatever n8n does:
 * a row is reported paid only on the evidence of a request with its own values; no row moves
 * money twice; a row whose money did not move is never shown paid. A transfer is two marks in
 * n8n's processed-data store (marks.ts), the only durable store a community node can write.
 *
 * Costs: two or three store calls a run to take the node's lease (lease.ts), and group commits
 * while sending (recorder.ts) that keep the store's share of the time to about a tenth, whatever
 * the history and the batch: a call on a full record takes about 0.3 s of n8n's time, so calls
 * then come about every three seconds, each for all the rows of that time.
 *
 * Reach: beyond its last 100,000 transfers the node forgets the oldest. A card or standard row
 * older than that is refused by the service as a duplicate and reported so (never paid twice,
 * never called paid); an internal transfer has no such guard in the service (not documented).
 */

export const RECORD_REACH = 100_000;
export type { Planned, Round, Verdict };

/** A stable digest of what a request would do: the operation and its body, keys sorted. */
export function fingerprint(operation: string, body: object): string {
	const sorted = Object.fromEntries(Object.entries(body).sort(([a], [b]) => a.localeCompare(b)));
	return createHash('sha256').update(JSON.stringify([operation, sorted])).digest('hex');
}

export interface RecordSettings {
	workflowId: string;
	/** The service refuses a repeated Transfer ID (card and standard transfers). */
	refusesDuplicates: boolean;
	concurrency: number;
}

export class TransferRecord {
	private recorder?: Recorder;

	private constructor(
		private readonly context: IExecuteFunctions,
		private readonly store: NodeStore,
		private readonly lease: Lease,
		private readonly settings: RecordSettings,
	) {}

	/** Waits for the node's lease: one run of the node sends at a time. */
	static async open(context: IExecuteFunctions, settings: RecordSettings): Promise<TransferRecord> {
		const store = NodeStore.of(context, settings.workflowId);
		const cancelled = () => context.getExecutionCancelSignal?.()?.aborted === true;
		const unavailable = (reason: string) =>
			new NodeOperationError(context.getNode(), `The node could not start its record of sent transfers: ${reason}`, {
				description: "Nothing was sent. The record lives in n8n's database (its processed-data table): run the node again once the database is reachable.",
			});
		const lease = await Lease.acquire(store, !settings.refusesDuplicates, { onWait: (message) => context.logger.info(message), cancelled }).catch((error: Error) => {
			throw unavailable(error.message);
		});
		if (!lease) throw unavailable('the execution was stopped while the node waited for another run of it to finish');
		return new TransferRecord(context, store, lease, settings);
	}

	/** The node's current top-up round, for internal transfers without a Transfer ID. */
	async round(): Promise<Round> {
		const repeats = this.lease.waited || this.context.getMode() === 'retry';
		return await currentRound(this.store, this.context.getExecutionId(), this.context.getWorkflowStaticData('node'), repeats, async () => await this.full());
	}

	/** Starts recording the run's transfers, in the order they will be sent. */
	track(planned: Planned[]): void {
		const { logger } = this.context;
		this.recorder = new Recorder(this.store, this.lease, { ...this.settings, warn: (message) => logger.warn(message), report: (message) => logger.debug(message) }, planned);
	}

	async verdict(index: number): Promise<Verdict> {
		return (await this.recorder?.verdict(index)) ?? { kind: 'recordFailed', reason: 'the run was not tracked' };
	}

	sending(index: number) {
		this.recorder?.sending(index);
	}

	answered(index: number) {
		this.recorder?.answered(index);
	}

	refused(index: number) {
		this.recorder?.refused(index);
	}

	/** Records what is pending, finishes the round if asked, and frees the node for the next run. */
	async close(finishedRound?: number): Promise<void> {
		try {
			await this.recorder?.close();
			if (finishedRound !== undefined && !this.recorder?.failure) await finishRound(this.store, this.context.getExecutionId(), finishedRound);
		} finally {
			await this.lease.release(this.store).catch((error: Error) => this.context.logger.warn(`Payouts: the node's lease could not be freed (it expires within 30 seconds): ${error.message}`));
		}
	}

	/** Whether the record holds as many marks as it keeps, so it may have forgotten old transfers. */
	async full(): Promise<boolean> {
		return (await this.store.size()) >= MAX_ENTRIES - 1000;
	}
}


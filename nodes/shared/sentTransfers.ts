import { createHash } from 'crypto';
import type { IExecuteFunctions, ICheckProcessedOptions } from 'n8n-workflow';

/**
 * What this node has sent, kept in n8n's own processed-data store (`checkProcessedAndRecord`):
 * a table in n8n's database, per workflow and node, that survives restarts and crashes and is
 * shared by queue-mode workers. It is what makes a re-run, n8n's Retry On Fail and n8n's
 * execution retry pay no one twice.
 *
 * The store only answers "seen before?" for strings, so a transfer is three marks:
 * - `id`: this node used the Transfer ID (with whatever values);
 * - `sent`: this node sent the Transfer ID with exactly these values (the fingerprint);
 * - `inflight`: written before the request goes out, removed once a clear answer came.
 * A definite refusal moved no money: its marks are removed, so the row can be sent again.
 */

/** What the store knew about a transfer before this attempt. */
export type Before =
	/** Never sent by this node: send it. */
	| 'new'
	/** Sent by this node with these values, and a clear answer (SUCCESS or PENDING) came. */
	| 'answered'
	/** Sent by this node with these values, and no clear answer came (or n8n stopped meanwhile). */
	| 'unanswered'
	/** This node sent the Transfer ID with other values: a different transfer. */
	| 'conflict';

/** The store rewrites one row per node on every call: about 3,300 transfers' marks a node. */
const STORE: ICheckProcessedOptions = { mode: 'entries', maxEntries: 10000 };

/**
 * n8n's store reads and rewrites its row without a lock, so calls of one node in this process
 * go one at a time (concurrent lanes, two executions of the workflow at once).
 */
const queues = new Map<string, Promise<unknown>>();
function oneAtATime<T>(key: string, work: () => Promise<T>): Promise<T> {
	const result = (queues.get(key) ?? Promise.resolve()).then(work, work);
	const tail = result.catch(() => undefined);
	queues.set(key, tail);
	void tail.then(() => queues.get(key) === tail && queues.delete(key));
	return result;
}

/** A stable digest of what a request would do: the operation and its body, keys sorted. */
export function fingerprint(operation: string, body: object): string {
	const sorted = Object.fromEntries(Object.entries(body).sort(([a], [b]) => a.localeCompare(b)));
	return createHash('sha256').update(JSON.stringify([operation, sorted])).digest('hex');
}

export class SentTransfers {
	private constructor(
		private readonly helpers: IExecuteFunctions['helpers'],
		private readonly queue: string,
	) {}

	static of(context: IExecuteFunctions, workflowId: string): SentTransfers {
		return new SentTransfers(context.helpers, `${workflowId}:${context.getNode().id}`);
	}

	private marks(transferId: string, print: string) {
		return { id: `id:${transferId}`, sent: `sent:${transferId}:${print}`, inflight: `inflight:${transferId}:${print}` };
	}

	/** Records the attempt before it is sent, and says what came before it. */
	async claim(transferId: string, print: string): Promise<Before> {
		const { id, sent, inflight } = this.marks(transferId, print);
		return await oneAtATime(this.queue, async () => {
			const { processed } = await this.helpers.checkProcessedAndRecord([id, sent, inflight], 'node', STORE);
			if (!processed.includes(id)) return 'new';
			if (!processed.includes(sent)) {
				// Not this transfer's marks: take back what the call just wrote.
				await this.helpers.removeProcessed([sent, inflight], 'node', STORE);
				return 'conflict';
			}
			return processed.includes(inflight) ? 'unanswered' : 'answered';
		});
	}

	/** A clear answer came (or an earlier one stands): the transfer is no longer in flight. */
	async answered(transferId: string, print: string): Promise<void> {
		const { inflight } = this.marks(transferId, print);
		await oneAtATime(this.queue, async () => await this.helpers.removeProcessed([inflight], 'node', STORE));
	}

	/** The service refused the transfer, so no money moved: forget it. */
	async refused(transferId: string, print: string): Promise<void> {
		const { id, sent, inflight } = this.marks(transferId, print);
		await oneAtATime(this.queue, async () => await this.helpers.removeProcessed([id, sent, inflight], 'node', STORE));
	}
}

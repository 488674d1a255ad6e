import { randomUUID } from 'crypto';
import { sleep } from 'n8n-workflow';

import { marks } from './marks';
import type { NodeStore } from './store';

/**
 * One run of a node at a time, in this process and across n8n's processes (queue-mode workers):
 * the record's reads and its top-up rounds assume that no other run of the node writes meanwhile.
 * A second run waits until the first has released the lease, or until the lease has expired after
 * a crash (two time slots without a mark from its holder).
 *
 * Across processes the lease is a mark per time slot, recorded by every call of its holder. The
 * store has no lock, so two processes that find the lease free at the same moment can both record
 * it; where a second holder could pay twice (internal transfers), the new holder waits a moment
 * and checks that its own call's token survived, which fails for one of two overlapping calls.
 * A call that took longer than that moment proves nothing and is tried again.
 */

export const leaseTiming = {
	/** A holder marks every slot it holds the lease in; unmarked for two slots, the lease has expired. */
	slotMs: 15_000,
	/** How often a waiting run looks again. */
	pollMs: 3_000,
	/** Longer than any store call the lease trusts. (The in-process engine tests, one process, shorten it.) */
	confirmMs: 1_500,
};

const slotOf = (time: number) => Math.floor(time / leaseTiming.slotMs);

/** Runs of one node in this process take turns without asking the store. */
const turns = new Map<string, Promise<void>>();
async function takeTurn(key: string): Promise<{ endTurn: () => void; waited: boolean }> {
	const previous = turns.get(key);
	let done!: () => void;
	const mine = new Promise<void>((resolve) => (done = resolve));
	const tail = (previous ?? Promise.resolve()).then(() => mine);
	turns.set(key, tail);
	await previous;
	const endTurn = () => {
		done();
		if (turns.get(key) === tail) turns.delete(key);
	};
	return { endTurn, waited: previous !== undefined };
}

export interface LeaseWaits {
	/** Said once when the lease is held elsewhere, so the execution log shows why the run waits. */
	onWait(message: string): void;
	/** True once n8n asked the execution to stop. */
	cancelled(): boolean;
}

export class Lease {
	private readonly slots = new Set<number>();

	private constructor(
		private readonly endTurn: () => void,
		/** The run had to wait for another run of the node: it overlapped it. */
		readonly waited: boolean,
	) {}

	/** Waits until the node is free and takes its lease; undefined when n8n stopped the execution meanwhile. */
	static async acquire(store: NodeStore, confirm: boolean, waits: LeaseWaits): Promise<Lease | undefined> {
		const turn = await takeTurn(store.key);
		let lease: Lease | undefined;
		try {
			lease = await Lease.take(store, confirm, waits, turn);
			return lease;
		} finally {
			if (!lease) turn.endTurn();
		}
	}

	private static async take(store: NodeStore, confirm: boolean, waits: LeaseWaits, turn: { endTurn: () => void; waited: boolean }): Promise<Lease | undefined> {
		let told = false;
		while (!waits.cancelled()) {
			const lease = new Lease(turn.endTurn, turn.waited || told);
			const recorded: string[] = [];
			const ask = async (wanted: string[]) => {
				const answer = await store.mark(wanted);
				recorded.push(...wanted.filter((mark) => !answer.value.has(mark)));
				return answer;
			};
			const now = lease.heartbeat();
			const before = marks.lease(slotOf(Date.now()) - 1);
			const nonce = marks.token(randomUUID());
			const { value: seen, ms } = await ask([now, before, nonce]);
			const held = seen.has(now) || seen.has(before);
			if (!held && !confirm) return lease;
			if (!held && ms < leaseTiming.confirmMs) {
				await sleep(leaseTiming.confirmMs);
				if ((await ask([nonce, lease.heartbeat()])).value.has(nonce)) return lease;
			}
			// Not this run's turn: what its questions recorded is taken back, or it would find its own
			// marks next time and wait for itself. (A holder records its slot again at every call.)
			await store.forget(recorded);
			if (!told) {
				waits.onWait('Another run of this node is sending transfers (in this n8n or another process): waiting for it to finish, or for its lease to expire within 30 seconds if it stopped.');
				told = true;
			}
			await sleep(leaseTiming.pollMs);
		}
		return undefined;
	}

	/** The lease mark for now; every call of the holder records it, so the lease stays visible. */
	heartbeat(): string {
		const slot = slotOf(Date.now());
		this.slots.add(slot);
		return marks.lease(slot);
	}

	/** Whether the holder must make a call soon to keep the lease visible. */
	stale(lastCallEnd: number): boolean {
		return Date.now() - lastCallEnd > leaseTiming.slotMs / 3;
	}

	/**
	 * Frees the lease: its marks are forgotten, and those of the slots around it, which its own
	 * first question and a waiter's questions recorded.
	 */
	async release(store: NodeStore): Promise<void> {
		try {
			const first = Math.min(...this.slots);
			const last = Math.max(...this.slots);
			await store.forget(Array.from({ length: last - first + 3 }, (_, offset) => marks.lease(first - 1 + offset)));
		} finally {
			this.endTurn();
		}
	}
}

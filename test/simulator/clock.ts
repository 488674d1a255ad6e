/* eslint-disable @n8n/community-nodes/no-restricted-globals -- the simulator runs in Node, never inside n8n: it replaces Node's own timers and clock with virtual ones */
/**
 * Virtual time for the simulator: one event loop that owns every timer and every clock reading of
 * the code it runs (the node's own `sleep`, which is a `setTimeout`, and `Date.now`). Events run
 * in the order of their time; ties in the order they were made, so a seed replays exactly. After
 * each event the promises it settled run to their next wait before the next event fires, as in
 * Node's event loop.
 *
 * Every event belongs to a process (an n8n process of the simulated world): the one whose code was
 * running when it was made. A crashed process's events never fire, so its awaits never return.
 */

interface Event {
	at: number;
	seq: number;
	owner: string;
	fire: () => void;
	cancelled?: boolean;
}

const real = {
	setTimeout,
	clearTimeout,
	setInterval,
	clearInterval,
	setImmediate,
	dateNow: Date.now,
};

export class VirtualClock {
	now = 1_700_000_000_000;
	private seq = 0;
	private readonly events: Event[] = [];
	/** The process whose code runs now; events made now are its own. */
	owner = 'world';
	private readonly dead = new Set<string>();
	private installed = false;

	/** From now on, timers and `Date.now` in this Node process are this clock's. */
	install() {
		if (this.installed) return;
		this.installed = true;
		globalThis.setTimeout = ((fire: (...args: unknown[]) => void, ms = 0, ...args: unknown[]) => {
			const event = this.after(Number(ms) || 0, () => fire(...args));
			// Node's timer handle: code that unrefs its timers (n8n's engine) gets the same object back.
			return Object.assign(event, { unref: () => event, ref: () => event, hasRef: () => true });
		}) as unknown as typeof setTimeout;
		globalThis.clearTimeout = ((event?: Event) => {
			if (event && typeof event === 'object') event.cancelled = true;
		}) as unknown as typeof clearTimeout;
		// n8n's engine keeps housekeeping intervals (idle SSH connections): in a simulated world they never fire.
		globalThis.setInterval = (() => ({ unref() {}, ref() {} })) as unknown as typeof setInterval;
		globalThis.clearInterval = (() => undefined) as unknown as typeof clearInterval;
		Date.now = () => this.now;
	}

	uninstall() {
		if (!this.installed) return;
		this.installed = false;
		Object.assign(globalThis, {
			setTimeout: real.setTimeout,
			clearTimeout: real.clearTimeout,
			setInterval: real.setInterval,
			clearInterval: real.clearInterval,
		});
		Date.now = real.dateNow;
	}

	/** Runs `fire` `ms` from now, as the process whose code runs now. */
	after(ms: number, fire: () => void, owner = this.owner): Event {
		const event: Event = { at: this.now + Math.max(0, ms), seq: this.seq++, owner, fire };
		// Kept sorted by (at, seq): a binary search for the place.
		let low = 0;
		let high = this.events.length;
		while (low < high) {
			const middle = (low + high) >> 1;
			const other = this.events[middle];
			if (other.at < event.at || (other.at === event.at && other.seq < event.seq)) low = middle + 1;
			else high = middle;
		}
		this.events.splice(low, 0, event);
		return event;
	}

	/** A promise that settles `ms` from now (never, if its process crashes first). */
	async sleep(ms: number): Promise<void> {
		await new Promise<void>((resolve) => this.after(ms, resolve));
	}

	/** The process's events are dropped from here on: it crashed. */
	kill(owner: string) {
		this.dead.add(owner);
	}

	/** Whether any event is waiting (of a live process). */
	get pending(): number {
		return this.events.filter((event) => !event.cancelled && !this.dead.has(event.owner)).length;
	}

	/**
	 * Fires events in time order until none is left or `until()` says stop; after each, lets the
	 * promises it settled run. Returns the number of events fired.
	 */
	async run(until: () => boolean = () => false, maxEvents = 2_000_000): Promise<number> {
		let fired = 0;
		while (this.events.length > 0 && !until()) {
			const event = this.events.shift() as Event;
			if (event.cancelled || this.dead.has(event.owner)) continue;
			if (++fired > maxEvents)
				throw new Error(
					`the simulation did not end after ${maxEvents} events (virtual time ${this.now})`,
				);
			this.now = Math.max(this.now, event.at);
			this.owner = event.owner;
			event.fire();
			await settle();
			this.owner = 'world';
		}
		return fired;
	}
}

/** Lets every promise settled so far run to its next wait (Node runs them before the next macrotask). */
export async function settle() {
	await new Promise((resolve) => real.setImmediate(resolve));
}

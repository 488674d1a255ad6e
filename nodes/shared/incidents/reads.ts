import { sleep } from 'n8n-workflow';

/**
 * How the Incident Guard reads from the service: a few requests at a time, and a read without a
 * clear answer tried again.
 */

/** Requests of the guard in flight at once (listing windows, beneficiary lookups). */
const LANES = 4;
/** A listing or lookup without a clear answer (or a 5xx/520) is tried again this often. */
const READ_RETRIES = 2;
const BACKOFF_MS = 250;

/** A read's result: the value, or why there is none and whether asking again may help. */
export type Read<T> = { value: T } | { failed: string; final: boolean };

/** Runs `work` over `list`, at most LANES at a time, until one returns false; every lane has ended on return. */
export async function inLanes<T>(list: T[], work: (entry: T) => Promise<boolean>) {
	let next = 0;
	let stopped = false;
	const lane = async () => {
		while (!stopped && next < list.length) if (!(await work(list[next++]))) stopped = true;
	};
	await Promise.all(Array.from({ length: Math.min(LANES, list.length) }, lane));
}

/** A read tried again when no clear answer came or the service failed (5xx, 520); 4xx is final. */
export async function withRetries<T>(read: () => Promise<Read<T>>): Promise<Read<T>> {
	for (let attempt = 0; ; attempt++) {
		const result = await read();
		if ('value' in result || result.final || attempt >= READ_RETRIES) return result;
		await sleep(BACKOFF_MS * 2 ** attempt);
	}
}

/** An answer that asking again will not change: a subCode, and not a 5xx (none: no clear answer came). */
export const isFinal = (subCode: string) => subCode !== '' && !subCode.startsWith('5');

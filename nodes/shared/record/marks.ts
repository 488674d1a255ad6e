/**
 * Every string the record gives n8n's store, in one place: the store keeps only their md5, so two
 * meanings must never share a string. `print` is a digest of the request's values (index.ts);
 * `attempt` counts the requests of one transfer: 1, and one more after each that moved no money.
 *
 * The store can only test-and-set ("was it there? it is now") and forget, and asking records. So
 * a mark is asked about only where recording it is true, or reads the same as the truth: a later
 * attempt's claim recorded by a run that only looked (its transfer is in doubt) reads as in doubt,
 * as the transfer is. The first attempt keeps the strings of the record's first version, so a
 * record written by it reads the same.
 */
const nth = (attempt: number) => (attempt === 1 ? '' : `:${attempt}`);

export const marks = {
	/** This node claimed this Transfer ID (its first attempt), with these or other values. */
	id: (transferId: string) => `id:${transferId}`,
	/** The claim of an attempt: a request with these values goes out (or went out). */
	sent: (transferId: string, print: string, attempt = 1) => `sent:${transferId}:${print}${nth(attempt)}`,
	/** The attempt has no clear paid answer yet: in flight, in doubt, or it moved no money (`free`). */
	open: (transferId: string, print: string, attempt = 1) => `open:${transferId}:${print}${nth(attempt)}`,
	/** The attempt moved no money (a clear refusal, or it never went out): the next may be sent. */
	free: (transferId: string, print: string, attempt: number) => `free:${transferId}:${print}:${attempt}`,
	/** The dashboard's word that the transfer was not paid has been used: it sends a transfer again once. */
	settled: (transferId: string, print: string) => `settled:${transferId}:${print}`,
	/** Written with a store call, asked about by a later one: found, unless another process wrote over the call. */
	token: (nonce: string) => `token:${nonce}`,
} as const;

/**
 * Every string the record gives n8n's store (which keeps only their md5), in one place: two
 * meanings never share a string. `print` is a digest of the request's values (index.ts).
 *
 * The store can only test-and-set ("was it there? it is now") and forget, so asking records: a
 * mark is asked about only where recording it is true, or reads safer than the truth (asking a
 * paid transfer's `open` records "no clear answer": in doubt, never paid), and is forgotten again.
 */
export const marks = {
	/** The record holds this Transfer ID, with these or other values (where the node is the guard). */
	id: (transferId: string) => `id:${transferId}`,
	/** A request with these values under this Transfer ID goes out (or went out): the claim. */
	sent: (transferId: string, print: string) => `sent:${transferId}:${print}`,
	/** No clear paid answer yet: in flight or in doubt. Forgotten once the service answers SUCCESS or PENDING. */
	open: (transferId: string, print: string) => `open:${transferId}:${print}`,
} as const;

/**
 * The entries the record gives n8n's store, which keeps only their md5, in one place: two meanings
 * never share one. A transfer is its Transfer ID (the idempotency key) and the digest of its values.
 * The strings are what records already written hold: never change them.
 *
 * n8n's store can only test-and-set ("was it there? it is now") and forget, so asking records: an
 * entry is asked about only where recording it is true, or reads safer than the truth (asking a
 * confirmed transfer's `unconfirmed` records it: in doubt, never paid), and is forgotten again.
 */
export const keys = {
	/** The record holds this Transfer ID, with these or other values (where the node guards). */
	transferId: (transferId: string) => `id:${transferId}`,
	/** The claim: a request with these values under this Transfer ID goes out, or went out. */
	claim: (transferId: string, digest: string) => `sent:${transferId}:${digest}`,
	/** No clear paid answer yet: in flight, or in doubt. Forgotten once the payment is confirmed. */
	unconfirmed: (transferId: string, digest: string) => `open:${transferId}:${digest}`,
} as const;

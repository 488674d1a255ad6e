/**
 * Every string the record gives n8n's store, in one place: the store keeps only their md5, so two
 * meanings must never share a string. `print` is a digest of the request's values (index.ts).
 *
 * The store can only test-and-set ("was it there? it is now") and forget. So a mark is only ever
 * asked about where recording it is true or errs safe: asking about `open` when it is not there
 * records it, which reads as "no clear answer" (a row in doubt, never paid on a guess) until the
 * same run forgets it again.
 */
export const marks = {
	/** The claim: this node sent, or is about to send, this Transfer ID with these values. */
	sent: (transferId: string, print: string) => `sent:${transferId}:${print}`,
	/** Where the node is the guard: this node claimed this Transfer ID, with these or other values. */
	id: (transferId: string) => `id:${transferId}`,
	/** Where the node is the guard: the claim has no clear answer yet (in flight, or in doubt). */
	open: (transferId: string, print: string) => `open:${transferId}:${print}`,
	/** The user's dashboard said paid, so `open` was forgotten on the user's word (it can be corrected). */
	paidByDashboard: (transferId: string, print: string) => `dashboard-paid:${transferId}:${print}`,
	/** The user's dashboard said not paid and the node sent the row again: acted on once. */
	notPaidActedOn: (transferId: string, print: string) => `dashboard-not-paid:${transferId}:${print}`,
	/** Written with a store call, asked about by a later one: found, unless another process overwrote the call. */
	token: (nonce: string) => `token:${nonce}`,
} as const;

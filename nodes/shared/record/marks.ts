/**
 * Every string the record gives n8n's store, in one place (the store keeps only their md5, so two
 * meanings must never share a string). A transfer is two marks: its claim, recorded before the
 * request goes out, and `done`, recorded once the service answered it clearly.
 *
 * The names continue those of version 0.1 (`sent:` and `id:`), so a row recorded by 0.1 is a
 * claim without `done`: it reads as unanswered once (card and standard transfers are sent again,
 * and the service refuses the duplicate; internal transfers read UNKNOWN until settled).
 */
export const marks = {
	/** Card and standard: this node may have sent this Transfer ID with these values. */
	sentWith: (transferId: string, print: string) => `sent:${transferId}:${print}`,
	/** Internal: this node may have sent this Transfer ID (with these or other values). */
	sentId: (transferId: string) => `id:${transferId}`,
	/** The service answered this transfer clearly (SUCCESS or PENDING). */
	done: (transferId: string, print: string) => `done:${transferId}:${print}`,
	/** The node sent this transfer again on the user's n-th "not paid" (Options > Dashboard Outcomes). */
	notPaidUsed: (transferId: string, print: string, look: number) => `notpaid:${transferId}:${print}:${look}`,
	/** A check of `done` marks is under way; if it is found set, one was interrupted. */
	checking: 'checking',
	/** Written with a call; found by the next call unless another process overwrote the row. */
	token: (nonce: string) => `token:${nonce}`,
	/** A run of this node holds the lease in this time slot. */
	lease: (slot: number) => `lease:${slot}`,
	/** Top-up rounds of internal transfers without a Transfer ID (rounds.ts). */
	round: (round: number) => `round:${round}`,
	roundOpen: (round: number) => `round:${round}:open`,
	roundShared: (round: number) => `round:${round}:shared`,
	roundChecking: 'round:checking',
} as const;

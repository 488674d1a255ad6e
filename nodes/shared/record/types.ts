/** What the record (recorder.ts, doneCheck.ts) and the routine that uses it (sending.ts) share. */

export type Verdict =
	/** Send it; `resent` when this node sent it before without a clear answer. */
	| { kind: 'send'; resent: boolean }
	/** Answered before (`dashboard`: as Options > Dashboard Outcomes says): ALREADY_SUBMITTED. */
	| { kind: 'answered'; dashboard?: true }
	/** Internal: sent before without a proven answer: UNKNOWN, not sent (`nextLook`: the "not paid" line given was used already). */
	| { kind: 'inDoubt'; unproven: boolean; nextLook?: number }
	/** The record could not be written: nothing was sent. */
	| { kind: 'recordFailed'; reason: string };

export interface Planned {
	index: number;
	transferId: string;
	print: string;
	/** What the payouts dashboard says of it, if the user said (Options > Dashboard Outcomes). */
	dashboard?: { paid: true } | { paid: false; look: number };
}

export interface Row {
	planned: Planned;
	/** Where it is in the run's order of sending. */
	position: number;
	claim: string;
	done: string;
	verdict?: Verdict;
	waiters: Array<(verdict: Verdict) => void>;
	/** This run recorded the claim and holds it (a closing run forgets the claims of rows it never sent). */
	claimedNow: boolean;
	started: boolean;
	/** Found unproven by a check after an interrupted one. */
	checkedUnproven?: boolean;
}

export interface RecorderSettings {
	/** The service refuses a repeated Transfer ID (card, standard): an unanswered row may be sent again. */
	refusesDuplicates: boolean;
	concurrency: number;
	warn(message: string): void;
	/** What the record cost the run, said once at the end (n8n's debug log). */
	report(message: string): void;
}

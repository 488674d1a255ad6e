import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { RunOptions } from './options';
import type { TransferRecord } from './record';
import type { DashboardStatus } from './record/settle';
import type { SendTarget } from './transport';
import type { ApiRequest, Params, PayoutOperation } from './types';

/**
 * What the routine's steps (execute.ts) hand each other: the items as planned, what became of each,
 * and what every step needs to know about the run.
 */

/**
 * What a user does next with a row, in one word the output carries (`nextStep`) beside the hint
 * that says it in full: run it again as it is (after the hint's wait or fix elsewhere), fix the
 * row's own values, settle it from the dashboard's export, take a new export (the one mapped was
 * taken before this node's last request of it), pay it under a new Transfer ID (this one can
 * never pay it), look its Transfer ID up (whose is it?), or settle its claim in the earlier step's table.
 */
export type NextStep = 'runAgain' | 'fixRow' | 'settleFromDashboard' | 'newExport' | 'newTransferId' | 'lookUp' | 'settleClaim';

/** What went wrong for one item, before it becomes a thrown error or an error item. */
export interface Failure {
	/** What happened, naming the item. */
	message: string;
	/** What to do about it. */
	hint: string;
	/**
	 * ERROR: the item failed. UNKNOWN: it may have moved money and no clear answer came.
	 * ALREADY_EXISTS: the service holds its Transfer ID, and this node cannot call it its own.
	 */
	status: 'ERROR' | 'UNKNOWN' | 'ALREADY_EXISTS';
	fromService: boolean;
	subCode?: string;
	serviceMessage?: string;
	/** May be sent again with the same request (same transferId). */
	retryable: boolean;
	nextStep: NextStep;
	/** Says nothing of this row alone: every row of the run would meet it (a refused account, a wrong Base URL, a record that cannot be written); the run sends nothing more. */
	stopsBatch?: true;
	/** Refused by our own checks before anything was sent. */
	invalid?: true;
	/** The service refused the Transfer ID as one it holds ("Transfer Id already exists"). */
	repeatRefused?: true;
	/** No answer of the service's own came (a timeout, a dropped connection, a gateway's page). */
	noAnswer?: true;
	/** The Transfer ID the failure is about, where it is not the row's own (an earlier node's). */
	transferId?: string;
}

export type Outcome = { items: IDataObject[] } | { failure: Failure };

export interface Planned {
	index: number;
	params: Params;
	request: ApiRequest;
	/** The Transfer ID it is sent with (transfers). */
	transferId?: string;
	/** That Transfer ID was made for this run (Options > Pay Again on Every Run): running the row again is a new transfer. */
	madeForRun?: true;
	/** An earlier Payouts Transfer node of this execution sent it under this Transfer ID without a clear answer (a retry branch). */
	earlierInDoubt?: true;
	/** What the payouts dashboard says of it (Options > Settle With Dashboard Status). */
	dashboard?: DashboardStatus;
}

/**
 * Who refuses a second transfer with a row's Transfer ID: the service (card, standard, and internal
 * where the user says so), this node's record (internal), or an earlier step of the workflow that
 * holds the row's claim (internal, Options > Claim Held by an Earlier Step).
 */
export type RepeatGuard = 'service' | 'node' | 'earlierStep';

/** Everything one run needs to send an item, read once. */
export interface Run {
	context: IExecuteFunctions;
	operation: PayoutOperation;
	target: SendTarget;
	options: RunOptions;
	/** Who refuses a repeat of a transfer (transfers only). */
	guard?: RepeatGuard;
	/** What this node sent before (transfers this node or the service guards). */
	record?: TransferRecord;
	workflowId: string;
	executionId: string;
	/** Requests Per Second: waits for the next request's turn. */
	pace?: () => Promise<void>;
	/** The first failure that says nothing of one row alone: the run sends nothing more. */
	stopped?: Failure;
}

/** What became of each item, by its index: filled step by step, output in input order. */
export type Outcomes = Map<number, Outcome>;

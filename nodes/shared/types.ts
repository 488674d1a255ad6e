import type { DateTime } from 'luxon';
import type { IDataObject, IHttpRequestMethods, INodeProperties } from 'n8n-workflow';
import type { z } from 'zod';

/**
 * The words every layer shares: an operation, a row as planned, what became of it. The layers
 * (input/ → transport/ → outcomes/ → output/, record/ and incidents/ beside them, run/ on top)
 * import from here and from below, never from above.
 */

/** The operations of the service, named as the node's `operation` values (and the error table). */
export type OperationName =
	| 'cardTransfer'
	| 'standardTransfer'
	| 'internalTransfer'
	| 'getBeneficiary'
	| 'getIncidents'
	| 'getPaylinkStatus'
	| 'generateToken';

/** What the routine sends: a path under the payout (or verification) base URL. */
export interface ApiRequest {
	method: IHttpRequestMethods;
	path: string;
	qs?: IDataObject;
	body?: IDataObject;
}

/** What the service answered, already read from the body (never from the declared content type). */
export interface Envelope {
	status: string;
	subCode: string;
	message: string;
	data?: IDataObject;
}

/** Where a row runs, for a Transfer ID made for a row that has none. */
export interface TransferOrigin {
	workflowId: string;
	nodeId: string;
	/** The execution's run: n8n's Retry of a failed execution keeps it, a new execution has another. */
	runId: string;
	/** The node's run in this execution (a loop runs it again; Retry On Fail repeats the same run). */
	runIndex: number;
	itemIndex: number;
	/** Options > Pay Again on Every Run. */
	payEveryRun: boolean;
}

/** Values validated by an operation's schema; the routine adds nothing but what the schema returns. */
export type Params = Record<string, unknown>;

/**
 * One operation: what the user sees (properties) and what it does (schema, request, output),
 * side by side in one file. The shared routine in execute.ts runs every operation the same way.
 */
export interface PayoutOperation<P extends Params = Params> {
	/** Value of the node's `operation` parameter (the public name saved in workflows). */
	value: string;
	/** Name of the operation in the service (error table, docs/errors.md). */
	api: OperationName;
	name: string;
	description: string;
	action: string;
	/** A transfer moves money: never re-sent with a new transferId, one at a time by default. */
	movesMoney: boolean;
	/** The token endpoint lives on the verification host and authenticates with the OAuth client. */
	host: 'payout' | 'verification';
	/** Parameters in display order; optional API fields inside an `additionalFields` collection. */
	properties: INodeProperties[];
	/** Every rule of the interface document for this operation's fields (built once per run). */
	schema(clock: Clock): z.ZodType<P, z.ZodTypeDef, unknown>;
	request(params: P): ApiRequest;
	/** Turns a SUCCESS or PENDING answer into output items. */
	output(answer: Envelope, params: P): IDataObject[];
	/** The service refuses a second transfer with a used transferId (its error table has the row),
	 * so sending one again with the same transferId cannot pay twice: the service is the guard. */
	refusesDuplicateTransferId?: boolean;
	/** A Transfer ID for an item that has none, made of what the user set, or what is missing ('Top-Up Key ...'). */
	transferIdWhenEmpty?(
		params: P,
		origin: TransferOrigin,
	): { transferId: string } | { issue: string; hint: string };
	/** Where an item's money goes and how, for the Incident Guard (operations with a transfer mode). */
	incidentGuard?: { transferMode(params: P): string; beneId(params: P): string };
	/** Fields whose values are secrets: never echoed in errors, dry runs or logs. */
	secretFields?: string[];
	/** Shown in the editor, e.g. that the service announced the endpoint's retirement. */
	notice?: string;
}

/** What a date-time rule needs to know: the workflow's timezone and the time of the run. */
export interface Clock {
	timezone: string;
	now: DateTime;
}

/** paid: the service has it and it moved (or is moving) money; failed: the service has it and it
 * moved none (it never will: the service refuses the Transfer ID again); notFound: the export has
 * no transfer with it (an export taken before a request has no word on it). */
export type DashboardMeaning = 'paid' | 'failed' | 'notFound';

export interface DashboardStatus {
	meaning: DashboardMeaning;
	/** The word as the dashboard wrote it, for the output. */
	word: string;
}

/** What an earlier Payouts Transfer node said of a row, read from its error item. */
export interface EarlierReport {
	status: 'UNKNOWN' | 'ALREADY_EXISTS';
	transferId: string;
	hint?: string;
	nextStep?: string;
}

/**
 * What a user does next with a row, in one word the output carries (`nextStep`) beside the hint
 * that says it in full: run it again as it is (after the hint's wait or fix elsewhere), fix the
 * row's own values, settle it from the dashboard's export, take a new export (the one mapped was
 * taken before this node's last request of it), pay it under a new Transfer ID (this one can
 * never pay it), look its Transfer ID up (whose is it?), or settle its claim in the earlier step's table.
 */
export type NextStep =
	| 'runAgain'
	| 'fixRow'
	| 'settleFromDashboard'
	| 'newExport'
	| 'newTransferId'
	| 'lookUp'
	| 'settleClaim';

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
	/** The Transfer ID it is sent with (transfers): the transfer's idempotency key. */
	transferId?: string;
	/** What an earlier Payouts Transfer node of this execution said of the row (its error item reached this node). */
	earlier?: EarlierReport;
	/** That Transfer ID was made for this run (Options > Pay Again on Every Run): running the row again is a new transfer. */
	madeForRun?: true;
	/** What the payouts dashboard says of it (Options > Settle With Dashboard Status). */
	dashboard?: DashboardStatus;
}

/**
 * Who refuses a second transfer with a row's Transfer ID: the service (card, standard, and internal
 * where the user says so) or this node's record (internal). The record is kept either way; an
 * earlier step's claim (Options > Claim Held by an Earlier Step) adds a guard, it replaces none.
 */
export type RepeatGuard = 'service' | 'node';

/** What became of each item, by its index: filled step by step, output in input order. */
export type Outcomes = Map<number, Outcome>;

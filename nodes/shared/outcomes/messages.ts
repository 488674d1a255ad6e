import type { IDataObject } from 'n8n-workflow';

import { DASHBOARD_STATUS_OPTION, DASHBOARD_WORDS } from '../input/dashboardStatus';
import { retryable } from './interpret';
import type { ServiceResult, ServiceMessage } from './interpret';
import type {
	EarlierReport,
	Failure,
	Outcome,
	PayoutOperation,
	Planned,
	RepeatGuard,
} from '../types';

/**
 * Every word the node says of a row that was sent, or that the record kept from being sent: its
 * status, what happened (`message`), what to do (`hint`) and the one-word `nextStep`. run/ decides
 * what became of a row (a RowResult: the answer as interpret.ts result it, or what the record says)
 * and calls `say` once; the table below words each result.
 */

const transferIdOf = (entry: Planned) => entry.transferId ?? '';

/**
 * When a dashboard export can settle a row: a request that timed out may still reach the service a
 * while later, so an export taken too soon may miss it.
 */
const ONCE_SETTLED =
	'Once no run is sending it and 10 minutes have passed (a request that timed out can still arrive)';
const item = (entry: Planned) => `[item ${entry.index}]`;

/** Where an ALREADY_SUBMITTED comes from: this node's paid answer (in this process, or in its record), or the dashboard. */
export interface EarlierAnswer {
	first?: IDataObject;
	byDashboard?: string;
	contradiction?: string;
}

/** This node holds a paid answer (SUCCESS or PENDING) to a request with these values, or the dashboard says it is paid. Not sent now. */
function alreadySubmitted(
	entry: Planned,
	{ first, byDashboard, contradiction }: EarlierAnswer = {},
): IDataObject {
	const json: IDataObject = {
		status: 'ALREADY_SUBMITTED',
		subCode: null,
		message: byDashboard
			? `The payouts dashboard says ${byDashboard} for this transfer (${DASHBOARD_STATUS_OPTION}): not sent`
			: `This node sent this transfer with these values before and the service answered ${first ? String(first.status) : 'SUCCESS or PENDING'}: not sent again`,
		transferId: transferIdOf(entry),
	};
	if (first)
		Object.assign(json, {
			firstStatus: first.status,
			referenceId: first.referenceId ?? null,
			utr: first.utr ?? null,
		});
	json.hint = contradiction
		? `The dashboard says ${contradiction}, but the service answered this node's request with a paid status: the node leaves the transfer as it is. Check it with the service (it may have been reversed), and check that the dashboard row is this transfer's.`
		: 'Not paid again: this is the transfer an earlier run sent. Its outcome and bank reference are in the earlier execution and in the dashboard.';
	return json;
}

/** Fields every failure of a transfer carries, by what the user does next. */
type Words = Pick<Failure, 'message' | 'hint' | 'status' | 'nextStep'> &
	Partial<Pick<Failure, 'subCode' | 'serviceMessage' | 'fromService' | 'stopsBatch' | 'noAnswer'>>;
const failure = (words: Words): Failure => ({ fromService: false, retryable: false, ...words });

/**
 * The service already has a transfer with this Transfer ID, and this node has no record of sending
 * it with these values. Nothing moved now; whose it is, a person finds out.
 */
function alreadyExists(entry: Planned, said: ServiceMessage): Failure {
	const transferId = transferIdOf(entry);
	return failure({
		message: `The service already has a transfer with Transfer ID ${transferId}, and this node has no record of sending it with these values ${item(entry)}`,
		hint: `Not paid by this run. Look Transfer ID ${transferId} up in the dashboard (an export taken now): paid there with this row's amount and payee, it is this payout, paid; failed, or another payout's, give this row a Transfer ID of its own; not there yet, look again later.`,
		status: 'ALREADY_EXISTS',
		nextStep: 'lookUp',
		fromService: true,
		subCode: said.subCode,
		serviceMessage: said.message,
	});
}

/**
 * The service refused a repeat of a Transfer ID this node sent before with these values without a
 * clear answer: the service holds the transfer, which says nothing of its money. `predates`: the
 * dashboard status mapped says NOT_FOUND, so that export was taken before the service had it.
 */
function heldByService(entry: Planned, said: ServiceMessage, predates?: string): Failure {
	const transferId = transferIdOf(entry);
	return failure({
		message: `The outcome of the transfer is unknown: the service holds Transfer ID ${transferId} from this node's request that had no clear answer ${item(entry)}`,
		hint: predates
			? `Not paid again. The dashboard status mapped (${predates}) comes from an export taken before the service had this transfer. Take a new export now and map its status for Transfer ID ${transferId} to ${DASHBOARD_STATUS_OPTION}: SUCCESS or PENDING, it is paid; FAILED, it can never be paid under this Transfer ID.`
			: `Not paid again: the service refuses it as a repeat, and whether its money moved is in the dashboard (the service has no status lookup the node could ask). ${ONCE_SETTLED}, export the dashboard and map its status for Transfer ID ${transferId} to ${DASHBOARD_STATUS_OPTION}: SUCCESS or PENDING, it is paid; FAILED, it can never be paid under this Transfer ID. Never give it a new Transfer ID before that.`,
		status: 'UNKNOWN',
		nextStep: predates ? 'newExport' : 'settleFromDashboard',
		fromService: true,
		subCode: said.subCode,
		serviceMessage: said.message,
	});
}

/** The dashboard says the service holds this Transfer ID and it moved no money: it never will under it (the service refuses it again). */
function cannotPayUnder(entry: Planned, word: string): Failure {
	const transferId = transferIdOf(entry);
	return failure({
		message: `The payouts dashboard says ${word} for Transfer ID ${transferId}: it did not pay, and it can never be paid under this Transfer ID ${item(entry)}`,
		hint: `Nothing was sent now. Pay this row under a new Transfer ID${entry.params.topUpKey !== undefined ? " (or a new 'Top-Up Key')" : ''}; keep Transfer ID ${transferId} out of later runs.`,
		status: 'ERROR',
		nextStep: 'newTransferId',
	});
}

/**
 * Where the node guards: a transfer in doubt that the dashboard says did not pay. It is not sent
 * again under its Transfer ID (the service may book a repeat, and an export can lag): a new one pays it.
 */
function notPaidByDashboard(entry: Planned, word: string): Failure {
	const transferId = transferIdOf(entry);
	return failure({
		message: `The payouts dashboard says ${word} for Transfer ID ${transferId}, which this node sent without a clear answer: it did not pay ${item(entry)}`,
		hint: `Not sent again under it. If that export was taken 10 minutes or more after the run that left it in doubt had ended, pay this top-up under a new ${entry.params.topUpKey !== undefined ? "'Top-Up Key'" : 'Transfer ID'} and keep Transfer ID ${transferId} out of later runs; if it was taken earlier, take a new export and map that.`,
		status: 'ERROR',
		nextStep: 'newTransferId',
	});
}

/** What a transfer without a clear answer means, and the one thing to do, by who guards it. */
function unknownWords(entry: Planned, context: MessageContext): Pick<Failure, 'hint' | 'nextStep'> {
	const transferId = transferIdOf(entry);
	if (entry.madeForRun) return madeForRunWords(entry);
	if (context.options?.claimHeldEarlier) return claimWords(transferId);
	if (guardOf(context) === 'service') {
		return {
			hint: `The transfer may have been paid. Run the row again with the same Transfer ID (${transferId}): the service refuses a second transfer with it, so the row then reads SUCCESS (the first never arrived) or says the service holds it. Never give it a new Transfer ID while its outcome is unknown.`,
			nextStep: 'runAgain',
		};
	}
	return { hint: settleAdvice(transferId), nextStep: 'settleFromDashboard' };
}

/** A row in doubt whose Transfer ID was made for this execution (Options > 'Pay Again on Every Run'). */
function madeForRunWords(entry: Planned): Pick<Failure, 'hint' | 'nextStep'> {
	const transferId = transferIdOf(entry);
	return {
		hint: `The transfer may have been paid. Its Transfer ID ${transferId} was made for this execution (Options > 'Pay Again on Every Run'): n8n's Retry of this execution sends it again under the same Transfer ID and reads what it came to, while running the row in a new execution is a new transfer. ${ONCE_SETTLED}, look Transfer ID ${transferId} up in the dashboard: paid there, it is paid; not there, or failed, run the row again to pay it.`,
		nextStep: 'lookUp',
	};
}

/** Who refuses a repeat: as the run says, else by the operation. */
const guardOf = ({ guard, operation }: MessageContext): RepeatGuard =>
	guard ?? (operation.refusesDuplicateTransferId ? 'service' : 'node');

/**
 * Options > Claim Held by an Earlier Step: a transfer in doubt is settled in the earlier step's
 * table (later deliveries are answered from it), and, as anywhere the node guards, never sent again
 * under its Transfer ID once in doubt.
 */
function claimWords(transferId: string): Pick<Failure, 'hint' | 'nextStep'> {
	return {
		hint: `The transfer may have been paid. Keep its claim in the earlier step's table (never give it a new Transfer ID before you know). ${ONCE_SETTLED}, look up Transfer ID ${transferId} in the payouts dashboard and write what it says as the claim's outcome: SUCCESS or PENDING, it is paid; FAILED, or not there, it did not pay, and this node never sends it again under Transfer ID ${transferId} (its record holds it in doubt): pay it under a new Transfer ID.`,
		nextStep: 'settleClaim',
	};
}

/** Where the node guards a transfer, an unknown outcome is settled from the dashboard. */
export function settleAdvice(transferId: string): string {
	return `The transfer may have been paid, and the service may book a repeated internal transfer, so this node never sends it again on a guess. ${ONCE_SETTLED}, export the payouts dashboard and map its status for Transfer ID ${transferId} to ${DASHBOARD_STATUS_OPTION} (${DASHBOARD_WORDS.paid.join(' or ')}: paid; ${[...DASHBOARD_WORDS.failed, ...DASHBOARD_WORDS.notFound].join(', ')}: not paid, pay it under a new key), then run the row again. Never give it a new Transfer ID before that.`;
}

/** Sent before without a clear answer (or another execution is sending it now), and not sent again now. */
function inDoubt(entry: Planned, context: MessageContext): Failure {
	const words = unknownWords(entry, context);
	return failure({
		message: `The outcome of the transfer is unknown: this node sent it before and no clear answer came, or another execution is sending it right now ${item(entry)}`,
		hint: `Not sent again. ${words.hint}`,
		status: 'UNKNOWN',
		nextStep: words.nextStep,
	});
}

/** A row an earlier Payouts Transfer node of this execution reported in doubt (a retry branch on its error output). */
function earlierNodeInDoubt(entry: Planned, earlier: EarlierReport): Failure {
	return {
		...failure({
			message: `Not sent: an earlier Payouts Transfer node of this workflow reported this row ${earlier.status} under Transfer ID ${earlier.transferId} ${item(entry)}`,
			hint:
				earlier.hint ??
				`Settle Transfer ID ${earlier.transferId} first; sending the row under another Transfer ID could pay it twice.`,
			status: earlier.status === 'ALREADY_EXISTS' ? 'ALREADY_EXISTS' : 'UNKNOWN',
			nextStep:
				(earlier.nextStep as Failure['nextStep'] | undefined) ??
				(earlier.status === 'ALREADY_EXISTS' ? 'lookUp' : 'settleFromDashboard'),
		}),
		transferId: earlier.transferId,
	};
}

function otherValues(entry: Planned): Failure {
	return failure({
		message: `This node sent another transfer with Transfer ID ${transferIdOf(entry)} (other amount or account) ${item(entry)}`,
		hint: "Not sent: one Transfer ID is one transfer. If this row is a new top-up, give it its own 'Transfer ID' or 'Top-Up Key'; if it is the same one, use the values it was sent with.",
		status: 'ERROR',
		nextStep: 'fixRow',
	});
}

/** A re-send of a transfer in doubt, refused: the refusal says nothing of the earlier request, which may have paid. */
function refusedResend(entry: Planned, refusal: Failure): Failure {
	return {
		...refusal,
		message: `The outcome of the transfer is unknown: this node sent it before without a clear answer, and sending it again was refused: ${refusal.serviceMessage ?? refusal.message} ${item(entry)}`,
		hint: `${refusal.hint} The earlier request may have paid: once that is fixed, run the row again with Transfer ID ${transferIdOf(entry)}; the service then says whether it holds it. Never give it a new Transfer ID before you know.`,
		status: 'UNKNOWN',
		nextStep: 'runAgain',
		retryable: false,
	};
}

function stoppedBeforeSending(entry: Planned): Failure {
	return failure({
		message: `Not sent: the execution was stopped before this transfer went out ${item(entry)}`,
		hint: 'Nothing was sent for this row. Run it again to pay it.',
		status: 'ERROR',
		nextStep: 'runAgain',
	});
}

/** Not sent: a failure that says nothing of this row alone stopped the run first. */
function notSentAfter(entry: Planned, stopped: Failure): Failure {
	return failure({
		message: `Not sent: the run stopped sending after "${stopped.message.replace(/ \[item \d+\]$/, '')}" ${item(entry)}`,
		hint: `Nothing was sent for this row. ${stopped.hint}`,
		status: 'ERROR',
		nextStep: 'runAgain',
	});
}

function recordFailure(entry: Planned, reason: string): Failure {
	return failure({
		message: `The node could not record the transfer before sending it ${item(entry)}`,
		hint: `Nothing was sent. n8n's processed-data store answered: ${reason}. Running the row again is safe (no money moved); if it keeps failing, check that n8n's database is reachable and not overloaded.`,
		status: 'ERROR',
		nextStep: 'runAgain',
		stopsBatch: true,
	});
}

/** Where the node guards: the record takes on no new top-up, so that n8n never forgets one it holds. */
function recordFull(entry: Planned, size: number): Failure {
	return failure({
		message: `Not sent: this workflow's record of sent top-ups is full (${size.toLocaleString('en-US')} entries) ${item(entry)}`,
		hint: "Nothing was sent. The node takes on no new top-up so that it never forgets one it paid. Send new top-ups from a copy of this workflow (a new, empty record: a key this workflow paid would be paid again there, so give the copy new keys only), or, if your service refuses a repeated internal Transfer ID, turn on Options > 'Service Refuses Repeated Transfer IDs'.",
		status: 'ERROR',
		nextStep: 'fixRow',
		stopsBatch: true,
	});
}

/** A queue-mode worker (or webhook process), where the node's record alone cannot keep a top-up to one execution. */
function unguardedInQueueMode(entry: Planned, process: string): Failure {
	return failure({
		message: `Not sent: this n8n runs in queue mode (a ${process} process), where this node alone cannot keep a top-up to one execution ${item(entry)}`,
		hint: "Nothing was sent. Two workers can each find a top-up new and both pay it: the node's record holds in one n8n process only. Put a claim that one execution wins before the node (docs: Queue mode claims) and turn on Options > 'Claim Held by an Earlier Step', or, if your service confirms it refuses a repeated internal Transfer ID, turn on Options > 'Service Refuses Repeated Transfer IDs'.",
		status: 'ERROR',
		nextStep: 'fixRow',
	});
}

/** Transfers in a row without any answer after which the service looks down: the run sends nothing more. */
export const NO_ANSWER_IN_A_ROW = 3;

/** Several transfers in a row without any answer: the service looks down, and the run sends nothing more. */
export function serviceDown(last: Failure): Failure {
	return failure({
		message: `The service gave no answer to ${NO_ANSWER_IN_A_ROW} transfers in a row, so the run sent nothing more (last: ${last.message.replace(/ \[item \d+\]$/, '')})`,
		hint: 'The rows without an answer are in doubt: each says what to do. Run the rows not sent again once the service answers.',
		nextStep: 'runAgain',
		status: 'ERROR',
	});
}

/** A wrong Base URL: nothing reached the service, so nothing was paid; the run sends nothing more. */
export function notTheService(httpStatus: number, said: string, where: string): Failure {
	return failure({
		message: `The Base URL does not answer as the payouts service: HTTP ${httpStatus}, ${said} ${where}`,
		hint: "Nothing was sent to the payouts service: the address has no such API. Check 'Base URL' in the Payouts API credential: take it from your payouts dashboard (production and test hosts differ), without the /payout/... path.",
		nextStep: 'runAgain',
		status: 'ERROR',
		stopsBatch: true,
	});
}

/** What an answer says, by how interpret.ts result it. */
const SERVICE_RESULT_MESSAGES: {
	[K in ServiceResult['kind']]: (
		entry: Planned,
		result: Extract<ServiceResult, { kind: K }>,
		context: MessageContext,
	) => Outcome;
} = {
	paid: (_, { items }) => ({ items }),
	refused: (entry, { said, row }) => ({
		failure: failure({
			message: `${said.message} ${item(entry)}`,
			hint: row.hint,
			nextStep: row.nextStep ?? 'runAgain',
			status: 'ERROR',
			fromService: true,
			subCode: said.subCode,
			serviceMessage: said.message,
			...(row.account ? { stopsBatch: true as const } : {}),
		}),
	}),
	repeatRefused: (entry, { said }) => ({ failure: alreadyExists(entry, said) }),
	unclear: (entry, { what, subCode, said, rowHint, noAnswer }, context) => {
		const { operation } = context;
		if (!operation.movesMoney) {
			return {
				failure: failure({
					message: `The service did not answer clearly: ${what} ${item(entry)}`,
					hint: 'Run the node again later; raise Options > Retries to retry automatically.',
					nextStep: 'runAgain',
					status: 'ERROR',
					fromService: true,
					subCode,
					...(noAnswer ? { noAnswer } : {}),
				}),
			};
		}
		// A transfer without a clear answer may have moved money: say so, never guess.
		const words = unknownWords(entry, context);
		return {
			failure: failure({
				message: `The outcome of the transfer is unknown: ${what} ${item(entry)}`,
				hint: `${rowHint ? `${rowHint} ` : ''}${words.hint}`,
				nextStep: words.nextStep,
				status: 'UNKNOWN',
				fromService: true,
				subCode,
				serviceMessage: said?.message,
				...(noAnswer ? { noAnswer } : {}),
			}),
		};
	},
	unreachable: (entry, { reason }) => ({
		failure: failure({
			message: `The service could not be reached: ${reason} ${item(entry)}`,
			hint: "Nothing was sent. Check 'Base URL' in the Payouts API credential and the network, then run again.",
			nextStep: 'runAgain',
			status: 'ERROR',
			fromService: true,
			noAnswer: true,
		}),
	}),
	notTheService: (entry, { httpStatus, said }) => ({
		failure: notTheService(httpStatus, said, item(entry)),
	}),
	tokenRefused: (entry, { said }) => ({
		failure: failure({
			message: `The token request was refused: ${said.message} ${item(entry)}`,
			hint: "Check 'Client ID', 'Client Secret' and 'API Version' in the Payouts API credential, and that the authorisation code is fresh: each code works once.",
			nextStep: 'fixRow',
			status: 'ERROR',
			fromService: true,
			subCode: said.subCode,
			serviceMessage: said.message,
		}),
	}),
};

/** What became of a row that the record or the run kept from being sent, or result with what the record knows. */
export type RunResult =
	/** This node holds a paid answer to these values (or the dashboard says paid): not sent now. */
	| { kind: 'alreadySubmitted'; earlier?: EarlierAnswer }
	/** The service holds the Transfer ID, and this node has no record of sending it with these values. */
	| { kind: 'alreadyExists'; said: ServiceMessage }
	/** The service refused a repeat of a transfer this node sent without a clear answer. */
	| { kind: 'heldByService'; said: ServiceMessage; predates?: string }
	/** The dashboard says FAILED where the service guards: never payable under this Transfer ID. */
	| { kind: 'cannotPayUnder'; word: string }
	/** The dashboard says a transfer in doubt did not pay, where the node guards. */
	| { kind: 'notPaidByDashboard'; word: string }
	| { kind: 'inDoubt' }
	| { kind: 'otherValues' }
	/** A re-send of a transfer in doubt, refused: says nothing of the earlier request. */
	| { kind: 'refusedResend'; refusal: ServiceResult }
	| { kind: 'stoppedBeforeSending' }
	| { kind: 'notSentAfter'; stopped: Failure }
	| { kind: 'recordFailed'; reason: string }
	| { kind: 'recordFull'; size: number }
	| { kind: 'earlierNodeInDoubt'; earlier: EarlierReport }
	/** A top-up only this node would guard, on a queue-mode worker: not sent. */
	| { kind: 'unguardedInQueueMode'; process: string };

export type RowResult = ServiceResult | RunResult;

/** Who speaks: the operation, who refuses a repeat of its transfers, and the options that change the words. */
export interface MessageContext {
	operation: PayoutOperation;
	guard?: RepeatGuard;
	options?: { claimHeldEarlier?: boolean; payEveryRun?: boolean };
}

const RUN_RESULT_MESSAGES: {
	[K in RunResult['kind']]: (
		entry: Planned,
		result: Extract<RunResult, { kind: K }>,
		context: MessageContext,
	) => Outcome;
} = {
	alreadySubmitted: (entry, { earlier }) => ({ items: [alreadySubmitted(entry, earlier)] }),
	alreadyExists: (entry, { said }) => ({ failure: alreadyExists(entry, said) }),
	heldByService: (entry, { said, predates }) => ({ failure: heldByService(entry, said, predates) }),
	cannotPayUnder: (entry, { word }) => ({ failure: cannotPayUnder(entry, word) }),
	notPaidByDashboard: (entry, { word }) => ({ failure: notPaidByDashboard(entry, word) }),
	inDoubt: (entry, _result, context) => ({ failure: inDoubt(entry, context) }),
	otherValues: (entry) => ({ failure: otherValues(entry) }),
	refusedResend: (entry, { refusal }, context) => {
		const said = messagesOf(entry, refusal, context);
		return 'failure' in said ? { failure: refusedResend(entry, said.failure) } : said;
	},
	stoppedBeforeSending: (entry) => ({ failure: stoppedBeforeSending(entry) }),
	notSentAfter: (entry, { stopped }) => ({ failure: notSentAfter(entry, stopped) }),
	recordFailed: (entry, { reason }) => ({ failure: recordFailure(entry, reason) }),
	recordFull: (entry, { size }) => ({ failure: recordFull(entry, size) }),
	earlierNodeInDoubt: (entry, { earlier }) => ({ failure: earlierNodeInDoubt(entry, earlier) }),
	unguardedInQueueMode: (entry, { process }) => ({
		failure: unguardedInQueueMode(entry, process),
	}),
};

/** What the node says of a row: its output items, or a failure in the user's words. */
export function rowOutcome(entry: Planned, result: RowResult, context: MessageContext): Outcome {
	const outcome = messagesOf(entry, result, context);
	if (!('failure' in outcome) || !entry.madeForRun) return outcome;
	// A Transfer ID made for this execution: running the row in a new one is a new transfer, so a
	// row in doubt is looked up first, whatever made it so, and a row run again is run alone.
	const { failure } = outcome;
	if (failure.status === 'UNKNOWN') Object.assign(failure, madeForRunWords(entry));
	else if (RUN_AGAIN.includes(failure.nextStep)) failure.hint = `${failure.hint} ${ONLY_THIS_ROW}`;
	return outcome;
}

/** Steps that run a row again: under Pay Again on Every Run, running the whole batch again pays its paid rows again. */
const RUN_AGAIN: Failure['nextStep'][] = ['runAgain', 'fixRow'];
const ONLY_THIS_ROW =
	"Run only this row again: with Options > 'Pay Again on Every Run' a new execution pays every row it is given again, the ones paid in this execution too.";

function messagesOf(entry: Planned, result: RowResult, context: MessageContext): Outcome {
	if (result.kind in SERVICE_RESULT_MESSAGES) {
		const answered = result as ServiceResult;
		const outcome = (
			SERVICE_RESULT_MESSAGES[answered.kind] as (
				entry: Planned,
				answered: ServiceResult,
				context: MessageContext,
			) => Outcome
		)(entry, answered, context);
		if ('failure' in outcome)
			outcome.failure.retryable = retryable(answered, context.operation, context.guard);
		return outcome;
	}
	const row = result as RunResult;
	return (
		RUN_RESULT_MESSAGES[row.kind] as (
			entry: Planned,
			result: RunResult,
			context: MessageContext,
		) => Outcome
	)(entry, row, context);
}

import type { IDataObject } from 'n8n-workflow';

import { DASHBOARD_STATUS_OPTION } from '../input/dashboardStatus';
import type { EarlierReport, Failure, Outcome, Planned } from '../types';
import type { ServiceMessage, ServiceResult } from './interpret';
import { inDoubtAdvice } from './inDoubtMessages';
import { ONCE_SETTLED, alreadyExists, failure, item, transferIdOf } from './messageParts';
import type { MessageContext } from './messageParts';

/** What became of a row that the record or the run kept from being sent, or an answer read with what the record knows. */
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

/** Where an ALREADY_SUBMITTED comes from: this node's paid answer (in this process, or in its record), or the dashboard. */
interface EarlierAnswer {
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

/** Sent before without a clear answer (or another execution is sending it now), and not sent again now. */
function inDoubt(entry: Planned, context: MessageContext): Failure {
	const advice = inDoubtAdvice(entry, context);
	return failure({
		message: `The outcome of the transfer is unknown: this node sent it before and no clear answer came, or another execution is sending it right now ${item(entry)}`,
		hint: `Not sent again. ${advice.hint}`,
		status: 'UNKNOWN',
		nextStep: advice.nextStep,
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
export function refusedResend(entry: Planned, refusal: Failure): Failure {
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

/** What the node says of a row the record or the run kept from being sent (a refused re-send is worded in messages.ts, from the refusal's own words). */
export const RUN_RESULT_MESSAGES: {
	[K in Exclude<RunResult['kind'], 'refusedResend'>]: (
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
	stoppedBeforeSending: (entry) => ({ failure: stoppedBeforeSending(entry) }),
	notSentAfter: (entry, { stopped }) => ({ failure: notSentAfter(entry, stopped) }),
	recordFailed: (entry, { reason }) => ({ failure: recordFailure(entry, reason) }),
	recordFull: (entry, { size }) => ({ failure: recordFull(entry, size) }),
	earlierNodeInDoubt: (entry, { earlier }) => ({ failure: earlierNodeInDoubt(entry, earlier) }),
	unguardedInQueueMode: (entry, { process }) => ({
		failure: unguardedInQueueMode(entry, process),
	}),
};

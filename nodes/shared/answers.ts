import type { IDataObject } from 'n8n-workflow';

import { findErrorRow } from './errors';
import { DASHBOARD_STATUS_OPTION, DASHBOARD_WORDS } from './record/settle';
import type { Failure, Outcome, Planned, RepeatGuard } from './routine';
import { excerpt } from './transport';
import type { Answer } from './transport';
import type { Envelope, PayoutOperation } from './types';

/**
 * Step 3 of the routine: each answer read by its body and judged (`interpret`, a pure function of
 * the answer, which transport.ts read): outcomes for SUCCESS and PENDING, a failure with the error
 * table's hint (errors.ts) for ERROR, UNKNOWN for a transfer that may have moved money without a
 * clear answer. And every word the node says of a transfer that needs the user, in one place: its
 * status, what happened, what to do (`hint`) and the one-word `nextStep` (routine.ts).
 */

const transferIdOf = (entry: Planned) => String(entry.transferId ?? entry.params.transferId);

/**
 * When a dashboard export can settle a row: a request that timed out may still reach the service a
 * while later, so an export taken too soon may miss it.
 */
const ONCE_SETTLED = 'Once no run is sending it and 10 minutes have passed (a request that timed out can still arrive)';
const item = (entry: Planned) => `[item ${entry.index}]`;

/** Where an ALREADY_SUBMITTED comes from: this node's paid answer (in this process, or in its record), or the dashboard. */
export interface EarlierAnswer {
	first?: IDataObject;
	byDashboard?: string;
	contradiction?: string;
}

/** This node holds a paid answer (SUCCESS or PENDING) to a request with these values, or the dashboard says it is paid. Not sent now. */
export function alreadySubmitted(entry: Planned, { first, byDashboard, contradiction }: EarlierAnswer = {}): IDataObject {
	const json: IDataObject = {
		status: 'ALREADY_SUBMITTED',
		subCode: null,
		message: byDashboard
			? `The payouts dashboard says ${byDashboard} for this transfer (${DASHBOARD_STATUS_OPTION}): not sent`
			: `This node sent this transfer with these values before and the service answered ${first ? String(first.status) : 'SUCCESS or PENDING'}: not sent again`,
		transferId: transferIdOf(entry),
	};
	if (first) Object.assign(json, { firstStatus: first.status, referenceId: first.referenceId ?? null, utr: first.utr ?? null });
	json.hint = contradiction
		? `The dashboard says ${contradiction}, but the service answered this node's request with a paid status: the node leaves the transfer as it is. Check it with the service (it may have been reversed), and check that the dashboard row is this transfer's.`
		: 'Not paid again: this is the transfer an earlier run sent. Its outcome and bank reference are in the earlier execution and in the dashboard.';
	return json;
}

/** Fields every failure of a transfer carries, by what the user does next. */
type Words = Pick<Failure, 'message' | 'hint' | 'status' | 'nextStep'> & Partial<Pick<Failure, 'subCode' | 'serviceMessage' | 'fromService' | 'stopsBatch'>>;
const failure = (words: Words): Failure => ({ fromService: false, retryable: false, ...words });

/**
 * The service already has a transfer with this Transfer ID, and this node has no record of sending
 * it with these values. Nothing moved now; whose it is, a person finds out.
 */
export function alreadyExists(entry: Planned, said: { subCode?: string; message: string }): Failure {
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
export function heldByService(entry: Planned, said: { subCode?: string; message: string }, predates?: string): Failure {
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
export function cannotPayUnder(entry: Planned, word: string, said?: { subCode?: string; message: string }): Failure {
	const transferId = transferIdOf(entry);
	return failure({
		message: `The payouts dashboard says ${word} for Transfer ID ${transferId}: it did not pay, and it can never be paid under this Transfer ID ${item(entry)}`,
		hint: `Nothing was sent now. Pay this row under a new Transfer ID${entry.params.topUpKey !== undefined ? " (or a new 'Top-Up Key')" : ''}; keep Transfer ID ${transferId} out of later runs.`,
		status: 'ERROR',
		nextStep: 'newTransferId',
		fromService: said !== undefined,
		subCode: said?.subCode,
		serviceMessage: said?.message,
	});
}

/**
 * Where the node guards: a transfer in doubt that the dashboard says did not pay. It is not sent
 * again under its Transfer ID (the service may book a repeat, and an export can lag): a new one pays it.
 */
export function notPaidByDashboard(entry: Planned, word: string): Failure {
	const transferId = transferIdOf(entry);
	return failure({
		message: `The payouts dashboard says ${word} for Transfer ID ${transferId}, which this node sent without a clear answer: it did not pay ${item(entry)}`,
		hint: `Not sent again under it. If that export was taken 10 minutes or more after the run that left it in doubt had ended, pay this top-up under a new ${entry.params.topUpKey !== undefined ? "'Top-Up Key'" : 'Transfer ID'} and keep Transfer ID ${transferId} out of later runs; if it was taken earlier, take a new export and map that.`,
		status: 'ERROR',
		nextStep: 'newTransferId',
	});
}

/** What a transfer without a clear answer means, and the one thing to do, by who guards it. */
function unknownWords(entry: Planned, guard: RepeatGuard): Pick<Failure, 'hint' | 'nextStep'> {
	const transferId = transferIdOf(entry);
	if (entry.madeForRun) {
		return {
			hint: `The transfer may have been paid. Its Transfer ID ${transferId} was made for this run (Options > 'Pay Again on Every Run'), so running the row again is a new transfer. ${ONCE_SETTLED}, look Transfer ID ${transferId} up in the dashboard: paid there, it is paid; not there, or failed, run the row again to pay it.`,
			nextStep: 'lookUp',
		};
	}
	if (guard === 'earlierStep') {
		return {
			hint: `The transfer may have been paid. Keep its claim in the earlier step's table (never give it a new Transfer ID). ${ONCE_SETTLED}, look up Transfer ID ${transferId} in the payouts dashboard and write what it says as the claim's outcome.`,
			nextStep: 'settleClaim',
		};
	}
	if (guard === 'service') {
		return {
			hint: `The transfer may have been paid. Run the row again with the same Transfer ID (${transferId}): the service refuses a second transfer with it, so the row then reads SUCCESS (the first never arrived) or says the service holds it. Never give it a new Transfer ID while its outcome is unknown.`,
			nextStep: 'runAgain',
		};
	}
	return { hint: settleAdvice(transferId), nextStep: 'settleFromDashboard' };
}

/** Where the node guards a transfer, an unknown outcome is settled from the dashboard. */
export function settleAdvice(transferId: string): string {
	return `The transfer may have been paid, and the service may book a repeated internal transfer, so this node never sends it again on a guess. ${ONCE_SETTLED}, export the payouts dashboard and map its status for Transfer ID ${transferId} to ${DASHBOARD_STATUS_OPTION} (${DASHBOARD_WORDS.paid.join(' or ')}: paid; ${[...DASHBOARD_WORDS.failed, ...DASHBOARD_WORDS.notFound].join(', ')}: not paid, pay it under a new key), then run the row again. Never give it a new Transfer ID before that.`;
}

/** Where the node guards: sent before without a clear answer (or another execution is sending it now): not sent again. */
export function inDoubt(entry: Planned): Failure {
	return failure({
		message: `The outcome of the transfer is unknown: this node sent it before and no clear answer came, or another execution is sending it right now ${item(entry)}`,
		hint: `Not sent again. ${settleAdvice(transferIdOf(entry))}`,
		status: 'UNKNOWN',
		nextStep: 'settleFromDashboard',
	});
}

/** A row an earlier Payouts Transfer node of this execution reported in doubt (a retry branch on its error output). */
export function earlierNodeInDoubt(entry: Planned, earlier: { status: string; transferId: string; hint?: string; nextStep?: string }): Failure {
	return {
		...failure({
			message: `Not sent: an earlier Payouts Transfer node of this workflow reported this row ${earlier.status} under Transfer ID ${earlier.transferId} ${item(entry)}`,
			hint: earlier.hint ?? `Settle Transfer ID ${earlier.transferId} first; sending the row under another Transfer ID could pay it twice.`,
			status: earlier.status === 'ALREADY_EXISTS' ? 'ALREADY_EXISTS' : 'UNKNOWN',
			nextStep: (earlier.nextStep as Failure['nextStep'] | undefined) ?? (earlier.status === 'ALREADY_EXISTS' ? 'lookUp' : 'settleFromDashboard'),
		}),
		transferId: earlier.transferId,
	};
}

export function otherValues(entry: Planned): Failure {
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

export function stoppedBeforeSending(entry: Planned): Failure {
	return failure({
		message: `Not sent: the execution was stopped before this transfer went out ${item(entry)}`,
		hint: 'Nothing was sent for this row. Run it again to pay it.',
		status: 'ERROR',
		nextStep: 'runAgain',
	});
}

/** Not sent: a failure that says nothing of this row alone stopped the run first. */
export function notSentAfter(entry: Planned, stopped: Failure): Failure {
	return failure({
		message: `Not sent: the run stopped sending after "${stopped.message.replace(/ \[item \d+\]$/, '')}" ${item(entry)}`,
		hint: `Nothing was sent for this row. ${stopped.hint}`,
		status: 'ERROR',
		nextStep: 'runAgain',
	});
}

export function recordFailure(entry: Planned, reason: string): Failure {
	return failure({
		message: `The node could not record the transfer before sending it ${item(entry)}`,
		hint: `Nothing was sent. n8n's processed-data store answered: ${reason}. Running the row again is safe (no money moved); if it keeps failing, check that n8n's database is reachable and not overloaded.`,
		status: 'ERROR',
		nextStep: 'runAgain',
		stopsBatch: true,
	});
}

/** Where the node guards: the record takes on no new top-up, so that n8n never forgets one it holds. */
export function recordFull(entry: Planned, size: number): Failure {
	return failure({
		message: `Not sent: this workflow's record of sent top-ups is full (${size.toLocaleString('en-US')} marks) ${item(entry)}`,
		hint: "Nothing was sent. The node takes on no new top-up so that it never forgets one it paid. Move new top-ups to a copy of this workflow (a new record), or, in queue mode, to a Postgres claim (Options > 'Claim Held by an Earlier Step'), or, if your service refuses a repeated internal Transfer ID, turn on Options > 'Service Refuses Repeated Transfer IDs'.",
		status: 'ERROR',
		nextStep: 'fixRow',
		stopsBatch: true,
	});
}

/** Turns one answer into output items or a failure; the only place that judges answers. */
export function interpret(operation: PayoutOperation, answer: Answer, entry: Planned, redact: (text: string) => string, guard: RepeatGuard = operation.refusesDuplicateTransferId ? 'service' : 'node'): Outcome {
	// A transfer without a clear answer may have moved money: say so, never guess.
	const unclear = (what: string, httpStatus?: number): Failure =>
		operation.movesMoney
			? { message: redact(`The outcome of the transfer is unknown: ${what} ${item(entry)}`), ...unknownWords(entry, guard), status: 'UNKNOWN', fromService: true, subCode: httpStatus ? String(httpStatus) : undefined, retryable: guard === 'service', noAnswer: true }
			: { message: redact(`The service did not answer clearly: ${what} ${item(entry)}`), hint: 'Run the node again later; raise Options > Retries to retry automatically.', nextStep: 'runAgain', status: 'ERROR', fromService: true, subCode: httpStatus ? String(httpStatus) : undefined, retryable: true, noAnswer: true };

	// Something answered that is not the payouts service: the path is unknown there (a wrong Base URL).
	if ((answer.kind === 'unreadable' || answer.kind === 'object') && NOT_THE_SERVICE.includes(answer.httpStatus) && operation.host === 'payout') {
		const said = answer.kind === 'unreadable' ? excerpt(redact(answer.text)) : excerpt(redact(JSON.stringify(answer.body)));
		return { failure: notTheService(answer.httpStatus, said, item(entry)) };
	}

	switch (answer.kind) {
		case 'noAnswer':
			if (!answer.reachedService) {
				return {
					failure: {
						message: `The service could not be reached: ${answer.reason} ${item(entry)}`,
						hint: "Nothing was sent. Check 'Base URL' in the Payouts API credential and the network, then run again.",
						nextStep: 'runAgain',
						status: 'ERROR',
						fromService: true,
						retryable: true,
						noAnswer: true,
					},
				};
			}
			return { failure: unclear(answer.reason) };
		case 'unreadable':
			return { failure: unclear(`the service answered HTTP ${answer.httpStatus} with a body that is not its JSON: ${excerpt(redact(answer.text))}`, answer.httpStatus) };
		case 'object':
			if (operation.host === 'verification' && answer.httpStatus >= 200 && answer.httpStatus < 300) {
				return { items: operation.output({ status: 'SUCCESS', subCode: String(answer.httpStatus), message: '', data: answer.body }, entry.params) };
			}
			if (operation.host === 'verification') return { failure: tokenFailure(answer.httpStatus, answer.body, item(entry), redact) };
			return { failure: unclear(`the service answered HTTP ${answer.httpStatus} without its status envelope`, answer.httpStatus) };
		case 'envelope':
			if (operation.host === 'verification' && answer.envelope.status === 'ERROR') {
				return { failure: tokenFailure(answer.httpStatus, answer.envelope as unknown as IDataObject, item(entry), redact) };
			}
			return envelopeOutcome(operation, answer.envelope, entry, redact, guard);
	}
}

export function envelopeOutcome(operation: PayoutOperation, envelope: Envelope, entry: Planned, redact: (text: string) => string, guard: RepeatGuard): Outcome {
	if (envelope.status !== 'ERROR') return { items: operation.output(envelope, entry.params) };
	const row = findErrorRow(operation.api, envelope.subCode, envelope.message);
	const serviceMessage = redact(envelope.message);
	if (operation.movesMoney && REPEAT_REFUSED.test(envelope.message)) {
		// Whose the Transfer ID is, the record tells (sending.ts); alone, the answer says only this.
		return { failure: { ...alreadyExists(entry, { subCode: envelope.subCode, message: serviceMessage }), repeatRefused: true } };
	}
	const serverSide = envelope.subCode === '520' || envelope.subCode.startsWith('5');
	if (operation.movesMoney && (row.unknownOutcome === true || serverSide)) {
		const words = unknownWords(entry, guard);
		// A row of its own (201 "no response from bank") says it; a server fault needs the general advice.
		return { failure: { message: `The outcome of the transfer is unknown: ${serviceMessage} ${item(entry)}`, hint: `${row.unknownOutcome ? `${row.hint} ` : ''}${words.hint}`, nextStep: words.nextStep, status: 'UNKNOWN', fromService: true, subCode: envelope.subCode, serviceMessage, retryable: guard === 'service', ...(serverSide ? { noAnswer: true as const } : {}) } };
	}
	return {
		failure: {
			message: `${serviceMessage} ${item(entry)}`,
			hint: row.hint,
			nextStep: row.nextStep ?? 'runAgain',
			status: 'ERROR',
			fromService: true,
			subCode: envelope.subCode,
			serviceMessage,
			retryable: serverSide,
			...(row.account ? { stopsBatch: true as const } : {}),
		},
	};
}

/** The service's refusal of a Transfer ID it holds ("Transfer Id already exists"). */
export const REPEAT_REFUSED = /transfer id already exists/i;

/** HTTP statuses by which a server says it has no such path: what answered is not the service's API. */
const NOT_THE_SERVICE = [404, 405];

/** A wrong Base URL: nothing reached the service, so nothing was paid; the run sends nothing more. */
export function notTheService(httpStatus: number, said: string, where: string): Failure {
	return {
		message: `The Base URL does not answer as the payouts service: HTTP ${httpStatus}, ${said} ${where}`,
		hint: "Nothing was sent to the payouts service: the address has no such API. Check 'Base URL' in the Payouts API credential: take it from your payouts dashboard (production and test hosts differ), without the /payout/... path.",
		nextStep: 'runAgain',
		status: 'ERROR',
		fromService: false,
		retryable: false,
		stopsBatch: true,
	};
}

/** The token endpoint's errors are not in the interface document: report what it said. */
export function tokenFailure(httpStatus: number, body: IDataObject, where: string, redact: (text: string) => string): Failure {
	const said = [body.message, body.error, body.error_description].find((value) => typeof value === 'string') as string | undefined;
	const serviceMessage = redact(said ?? `HTTP ${httpStatus}`);
	const subCode = typeof body.subCode === 'string' ? body.subCode : String(httpStatus);
	return {
		message: `The token request was refused: ${serviceMessage} ${where}`,
		hint: "Check 'Client ID', 'Client Secret' and 'API Version' in the Payouts API credential, and that the authorisation code is fresh: each code works once.",
		nextStep: 'fixRow',
		status: 'ERROR',
		fromService: true,
		subCode,
		serviceMessage,
		retryable: false,
	};
}

import type { IDataObject } from 'n8n-workflow';

import { findErrorRow } from './errors';
import { DASHBOARD_STATUS_OPTION } from './record/settle';
import type { Failure, Outcome, Planned, RepeatGuard } from './routine';
import { excerpt } from './transport';
import type { Answer } from './transport';
import type { Envelope, PayoutOperation } from './types';

/**
 * Step 3 of the routine: each answer read by its body and judged, a pure function of the answer
 * (transport.ts read it): outcomes for SUCCESS and PENDING, a failure with the error table's hint
 * (errors.ts) for ERROR, UNKNOWN for a transfer that may have moved money without a clear answer,
 * and ALREADY_SUBMITTED for this node's own repeat that the service refused as a duplicate. The
 * items for rows the record did not let go out (ALREADY_SUBMITTED, ALREADY_EXISTS) are made here too.
 */

/** Where an ALREADY_SUBMITTED comes from: this node's paid answer (in this process, or in its record), or the dashboard. */
export interface EarlierAnswer {
	/** The service refused the repeat, and the record holds a paid answer to these values. */
	service?: { subCode: string | null; message: string };
	first?: IDataObject;
	byDashboard?: string;
	contradiction?: string;
}

/** This node holds a paid answer (SUCCESS or PENDING) to a request with these values, or the dashboard says it is paid. */
export function alreadySubmitted(entry: Planned, earlier: EarlierAnswer = {}): IDataObject {
	const { first, byDashboard, contradiction, service } = earlier;
	const item: IDataObject = {
		status: 'ALREADY_SUBMITTED',
		subCode: service?.subCode ?? null,
		message: byDashboard
			? `The payouts dashboard says ${byDashboard} for this transfer (${DASHBOARD_STATUS_OPTION}): not sent again`
			: `This node sent this transfer with these values before and the service answered ${first ? String(first.status) : 'it'}${service ? ` (now: ${service.message})` : ''}: not sent again`,
		transferId: entry.params.transferId as string,
	};
	if (first) Object.assign(item, { firstStatus: first.status, referenceId: first.referenceId ?? null, utr: first.utr ?? null });
	item.hint = contradiction
		? `The dashboard says ${contradiction}, but the service answered this node's request clearly: the node leaves the transfer as it is. Check it with the service (it may have been reversed), and check that the dashboard row is this transfer's.`
		: 'Not paid again: this is the transfer an earlier run sent. Its outcome and bank reference are in the earlier execution and in the dashboard.';
	return item;
}

/**
 * The service already has a transfer with this Transfer ID, and this node has no record of sending
 * it with these values (or only the dashboard says so). Nothing moved now; whose it is, the node
 * cannot tell, so it never says "use a new Transfer ID" before the user has looked: a person must.
 */
export function alreadyExists(entry: Planned, said: { subCode?: string; message: string; fromService: boolean }, reach?: number): Failure {
	const transferId = String(entry.params.transferId);
	return {
		message: `The service already has a transfer with Transfer ID ${transferId}, and this node has no record of sending it with these values [item ${entry.index}]`,
		hint: `Not paid by this run. Look Transfer ID ${transferId} up in the dashboard: if it is this payout (sent from elsewhere, by this node ${reach ? `longer ago than its last ${reach.toLocaleString('en-US')} transfers` : 'long ago'}, or by another execution at the same moment), it is paid; only if it is another payout, give this row a Transfer ID of its own.`,
		status: 'ALREADY_EXISTS',
		fromService: said.fromService,
		subCode: said.subCode,
		serviceMessage: said.message,
		retryable: false,
	};
}

/**
 * The service refused a repeat of a Transfer ID this node sent before with these values, and no
 * clear paid answer came to it: the service holds the transfer, but that says nothing of the money
 * (it may have failed at the bank, or still wait for it).
 */
export function heldByService(entry: Planned, said: { subCode?: string; message: string }): Failure {
	const transferId = String(entry.params.transferId);
	return {
		message: `The outcome of the transfer is unknown: the service holds Transfer ID ${transferId} from this node's earlier request, which had no clear answer [item ${entry.index}]`,
		hint: `Not sent again. The service has this Transfer ID and refuses it again, but whether its money moved is in the dashboard (the service has no status lookup the node could ask): SUCCESS or PENDING, it is paid; FAILED, it can never be paid under this Transfer ID: pay it under a new one. Map that status to ${DASHBOARD_STATUS_OPTION} and this row reads so from then on.`,
		status: 'UNKNOWN',
		fromService: true,
		subCode: said.subCode,
		serviceMessage: said.message,
		retryable: false,
	};
}

/**
 * Where the node guards: a transfer sent again after an attempt that moved no money (refused, or
 * not paid as the dashboard says) was refused as a repeat: the service keeps that Transfer ID.
 */
export function heldAfterFreed(entry: Planned, said: { subCode?: string; message: string }): Failure {
	const transferId = String(entry.params.transferId);
	return {
		message: `The service refused Transfer ID ${transferId} as already used: this node sent it before, and it did not pay [item ${entry.index}]`,
		hint: `Nothing moved now. The service keeps Transfer ID ${transferId} from the earlier request, whose money did not move (refused, or not paid as the dashboard said), so it can never be paid under it: pay it under a new Transfer ID or Top-Up Key.`,
		status: 'ERROR',
		fromService: true,
		subCode: said.subCode,
		serviceMessage: said.message,
		retryable: false,
	};
}

/** What a transfer without a clear answer means, and the one thing to do, by who guards it. */
export function unknownOutcomeHint(entry: Planned, guard: RepeatGuard): string {
	const transferId = String(entry.params.transferId);
	if (guard === 'earlierStep') {
		return `The transfer may have been paid. Keep its claim in the earlier step's table (never give it a new Transfer ID): look up Transfer ID ${transferId} in the payouts dashboard and write what it says as the claim's outcome.`;
	}
	return guard === 'service'
		? `The transfer may have been paid. Run the row again with the same Transfer ID (${transferId}): the service refuses a second transfer with it, so the row then reads SUCCESS or ALREADY_SUBMITTED. Never give it a new Transfer ID while its outcome is unknown.`
		: settleAdvice(transferId);
}

/** Where the node guards a transfer, an unknown outcome is settled from the dashboard. */
export function settleAdvice(transferId: string): string {
	return `The transfer may have been paid, and the service may book a repeated internal transfer, so this node never sends it again on a guess. Once no run is sending it any more, look up Transfer ID ${transferId} in the payouts dashboard and map its status to ${DASHBOARD_STATUS_OPTION} (SUCCESS or PENDING: paid; FAILED, REJECTED or NOT_FOUND: not paid, sent once), then run the row again. Never give it a new Transfer ID while its outcome is unknown.`;
}

/** Turns one answer into output items or a failure; the only place that judges answers. */
export function interpret(operation: PayoutOperation, answer: Answer, entry: Planned, redact: (text: string) => string, guard: RepeatGuard = operation.refusesDuplicateTransferId ? 'service' : 'node'): Outcome {
	const serviceGuards = guard === 'service';
	const item = `[item ${entry.index}]`;
	// A transfer without a clear answer may have moved money: say so, never guess.
	const unclear = (what: string, httpStatus?: number): Failure =>
		operation.movesMoney
			? {
					message: redact(`The outcome of the transfer is unknown: ${what} ${item}`),
					hint: unknownOutcomeHint(entry, guard),
					status: 'UNKNOWN',
					fromService: true,
					subCode: httpStatus ? String(httpStatus) : undefined,
					retryable: serviceGuards,
				}
			: {
					message: redact(`The service did not answer clearly: ${what} ${item}`),
					hint: 'Run the node again later; raise Options > Retries to retry automatically.',
					status: 'ERROR',
					fromService: true,
					subCode: httpStatus ? String(httpStatus) : undefined,
					retryable: true,
				};

	// Something answered that is not the payouts service: the path is unknown there (a wrong Base URL).
	if ((answer.kind === 'unreadable' || answer.kind === 'object') && NOT_THE_SERVICE.includes(answer.httpStatus) && operation.host === 'payout') {
		const said = answer.kind === 'unreadable' ? excerpt(redact(answer.text)) : excerpt(redact(JSON.stringify(answer.body)));
		return { failure: notTheService(answer.httpStatus, said, item) };
	}

	switch (answer.kind) {
		case 'noAnswer':
			if (!answer.reachedService) {
				return {
					failure: {
						message: `The service could not be reached: ${answer.reason} ${item}`,
						hint: "Nothing was sent. Check 'Base URL' in the Payouts API credential and the network, then run again.",
						status: 'ERROR',
						fromService: true,
						retryable: true,
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
			if (operation.host === 'verification') return { failure: tokenFailure(answer.httpStatus, answer.body, item, redact) };
			return { failure: unclear(`the service answered HTTP ${answer.httpStatus} without its status envelope`, answer.httpStatus) };
		case 'envelope':
			if (operation.host === 'verification' && answer.envelope.status === 'ERROR') {
				return { failure: tokenFailure(answer.httpStatus, answer.envelope as unknown as IDataObject, item, redact) };
			}
			return envelopeOutcome(operation, answer.envelope, entry, redact, guard);
	}
}

export function envelopeOutcome(operation: PayoutOperation, envelope: Envelope, entry: Planned, redact: (text: string) => string, guard: RepeatGuard): Outcome {
	const serviceGuards = guard === 'service';
	if (envelope.status !== 'ERROR') return { items: operation.output(envelope, entry.params) };
	const row = findErrorRow(operation.api, envelope.subCode, envelope.message);
	const serviceMessage = redact(envelope.message);
	const item = `[item ${entry.index}]`;
	if (operation.movesMoney && REPEAT_REFUSED.test(envelope.message)) {
		// Whose the Transfer ID is, the record tells (sending.ts); alone, the answer says only this.
		return { failure: { ...alreadyExists(entry, { subCode: envelope.subCode, message: serviceMessage, fromService: true }), repeatRefused: true } };
	}
	const serverSide = envelope.subCode === '520' || envelope.subCode.startsWith('5');
	const unknown = operation.movesMoney && (row.unknownOutcome === true || serverSide);
	return {
		failure: {
			message: `${unknown ? 'The outcome of the transfer is unknown: ' : ''}${serviceMessage} ${item}`,
			// A row of its own (201 "no response from bank") says it; a server fault needs the general advice.
			hint: unknown ? `${row.unknownOutcome ? `${row.hint} ` : ''}${unknownOutcomeHint(entry, guard)}` : row.hint,
			status: unknown ? 'UNKNOWN' : 'ERROR',
			fromService: true,
			subCode: envelope.subCode,
			serviceMessage,
			retryable: unknown ? serviceGuards : serverSide,
		},
	};
}

/** The service's refusal of a Transfer ID it holds ("Transfer Id already exists"). */
export const REPEAT_REFUSED = /transfer id already exists/i;

/** HTTP statuses by which a server says it has no such path: what answered is not the service's API. */
const NOT_THE_SERVICE = [404, 405];

/** A wrong Base URL: nothing reached the service, so nothing was paid; the run sends nothing more. */
export function notTheService(httpStatus: number, said: string, item: string): Failure {
	return {
		message: `The Base URL does not answer as the payouts service: HTTP ${httpStatus}, ${said} ${item}`,
		hint: "Nothing was sent to the payouts service: the address has no such API. Check 'Base URL' in the Payouts API credential: take it from your payouts dashboard (production and test hosts differ), without the /payout/... path.",
		status: 'ERROR',
		fromService: false,
		retryable: false,
		notTheService: true,
	};
}

/** The token endpoint's errors are not in the interface document: report what it said. */
export function tokenFailure(httpStatus: number, body: IDataObject, item: string, redact: (text: string) => string): Failure {
	const said = [body.message, body.error, body.error_description].find((value) => typeof value === 'string') as string | undefined;
	const serviceMessage = redact(said ?? `HTTP ${httpStatus}`);
	const subCode = typeof body.subCode === 'string' ? body.subCode : String(httpStatus);
	return {
		message: `The token request was refused: ${serviceMessage} ${item}`,
		hint: "Check 'Client ID', 'Client Secret' and 'API Version' in the Payouts API credential, and that the authorisation code is fresh: each code works once.",
		status: 'ERROR',
		fromService: true,
		subCode,
		serviceMessage,
		retryable: false,
	};
}

import type { IDataObject } from 'n8n-workflow';

import { findErrorRow } from './errors';
import type { Failure, Outcome, Planned } from './routine';
import { excerpt } from './transport';
import type { Answer } from './transport';
import type { Envelope, PayoutOperation } from './types';

/**
 * Step 3 of the routine: each answer read by its body and judged, a pure function of the answer
 * (transport.ts read it): outcomes for SUCCESS and PENDING, a failure with the error table's hint
 * (errors.ts) for ERROR, UNKNOWN for a transfer that may have moved money without a clear answer,
 * and ALREADY_SUBMITTED for this node's own repeat that the service refused as a duplicate.
 */

/**
 * This node's own earlier request with this row's values reached the service: from the node's
 * record (answered then), or from the service refusing the repeat as a duplicate (`answer`).
 */
export function alreadySubmitted(entry: Planned, answer?: { subCode: string | null; message: string }): IDataObject {
	return {
		status: 'ALREADY_SUBMITTED',
		subCode: answer?.subCode ?? null,
		message: answer?.message ?? 'This node sent this transfer with these values before, and the service answered it then',
		transferId: entry.params.transferId as string,
		hint: 'Not paid again: an earlier request of this node with this Transfer ID and these values reached the service. Its outcome is in the dashboard (and in the earlier execution).',
	};
}

export function unknownOutcomeHint(entry: Planned, operation: PayoutOperation): string {
	const { transferId } = entry.params;
	const resend = operation.refusesDuplicateTransferId
		? 'sending it again with the same Transfer ID is safe because the service refuses a duplicate.'
		: 'this node will not send it again, because the service may not refuse a repeated internal transfer.';
	return `The request may have reached the service. Look up Transfer ID ${String(transferId)} in the dashboard before doing anything else; ${resend}`;
}

/** Turns one answer into output items or a failure; the only place that judges answers. */
export function interpret(operation: PayoutOperation, answer: Answer, entry: Planned, resent: boolean, redact: (text: string) => string): Outcome {
	const item = `[item ${entry.index}]`;
	// A transfer without a clear answer may have moved money: say so, never guess.
	const unclear = (what: string, httpStatus?: number): Failure =>
		operation.movesMoney
			? {
					message: redact(`The outcome of the transfer is unknown: ${what} ${item}`),
					hint: unknownOutcomeHint(entry, operation),
					status: 'UNKNOWN',
					fromService: true,
					subCode: httpStatus ? String(httpStatus) : undefined,
					retryable: operation.refusesDuplicateTransferId === true,
				}
			: {
					message: redact(`The service did not answer clearly: ${what} ${item}`),
					hint: 'Run the node again later; raise Options > Retries to retry automatically.',
					status: 'ERROR',
					fromService: true,
					subCode: httpStatus ? String(httpStatus) : undefined,
					retryable: true,
				};

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
			return envelopeOutcome(operation, answer.envelope, entry, resent, redact);
	}
}

export function envelopeOutcome(operation: PayoutOperation, envelope: Envelope, entry: Planned, resent: boolean, redact: (text: string) => string): Outcome {
	if (envelope.status !== 'ERROR') return { items: operation.output(envelope, entry.params) };
	const row = findErrorRow(operation.api, envelope.subCode, envelope.message);
	const serviceMessage = redact(envelope.message);
	const item = `[item ${entry.index}]`;
	if (operation.movesMoney && resent && /transfer id already exists/i.test(envelope.message)) {
		// This node's own earlier request with these values reached the service: submitted once, not twice.
		return { items: [alreadySubmitted(entry, { subCode: envelope.subCode, message: serviceMessage })] };
	}
	const serverSide = envelope.subCode === '520' || envelope.subCode.startsWith('5');
	const unknown = operation.movesMoney && (row.unknownOutcome === true || serverSide);
	return {
		failure: {
			message: `${unknown ? 'The outcome of the transfer is unknown: ' : ''}${serviceMessage} ${item}`,
			// A row of its own (201 "no response from bank") says it; a server fault needs the general advice.
			hint: unknown && !row.unknownOutcome ? unknownOutcomeHint(entry, operation) : row.hint,
			status: unknown ? 'UNKNOWN' : 'ERROR',
			fromService: true,
			subCode: envelope.subCode,
			serviceMessage,
			retryable: unknown ? operation.refusesDuplicateTransferId === true : serverSide,
		},
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

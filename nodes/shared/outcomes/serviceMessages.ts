import type { Failure, Outcome, Planned } from '../types';
import type { ServiceResult } from './interpret';
import { alreadyExists, failure, item } from './messageParts';
import type { MessageContext } from './messageParts';
import { inDoubtAdvice } from './inDoubtMessages';

/** What the node says of an answer, by how interpret.ts read it. */
export const SERVICE_RESULT_MESSAGES: {
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
		if (!context.operation.movesMoney) {
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
		const advice = inDoubtAdvice(entry, context);
		return {
			failure: failure({
				message: `The outcome of the transfer is unknown: ${what} ${item(entry)}`,
				hint: `${rowHint ? `${rowHint} ` : ''}${advice.hint}`,
				nextStep: advice.nextStep,
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

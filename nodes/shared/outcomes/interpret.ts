import type { IDataObject } from 'n8n-workflow';

import { findErrorRow } from './errors';
import type { ErrorRow } from './errors';
import { excerpt } from '../transport/answer';
import type { Answer } from '../transport/answer';
import type { Params, PayoutOperation, RepeatGuard } from '../types';

/**
 * The only place that judges an answer: what it says about the row's money, as data. What the
 * node then says of the row is messages.ts's; what the record keeps, run/'s. Every text taken from
 * the service is redacted here, before anything else sees it.
 */

/** What the service said when it refused: its subCode and its (redacted) message. */
export interface ServiceMessage {
	subCode?: string;
	message: string;
}

export type ServiceResult =
	/** SUCCESS or PENDING (or the token endpoint's token): the operation's output items. */
	| { kind: 'paid'; items: IDataObject[] }
	/** A clear ERROR of the error table. `serverSide`: a 5xx subCode, which may pass (non-transfers). */
	| {
			kind: 'refused';
			said: ServiceMessage & { subCode: string };
			row: ErrorRow;
			serverSide: boolean;
	  }
	/** The service holds this Transfer ID ("Transfer Id already exists"): whose it is, the record tells. */
	| { kind: 'repeatRefused'; said: ServiceMessage }
	/** No clear answer: a transfer may have moved money. `said`: the service's own ERROR (a 5xx, or a row that
	 * says so); `noAnswer`: nothing of the service's own came (a server fault counts). */
	| {
			kind: 'unclear';
			what: string;
			subCode?: string;
			said?: ServiceMessage;
			rowHint?: string;
			noAnswer: boolean;
	  }
	/** The connection was never made: nothing was sent. */
	| { kind: 'unreachable'; reason: string }
	/** Something answered that is not the payouts service (a wrong Base URL). */
	| { kind: 'notTheService'; httpStatus: number; said: string }
	/** The token endpoint refused (its errors are not in the interface document). */
	| { kind: 'tokenRefused'; said: ServiceMessage & { subCode: string } };

/** The service's refusal of a Transfer ID it holds ("Transfer Id already exists"). */
const REPEAT_REFUSED = /transfer id already exists/i;

/** HTTP statuses by which a server says it has no such path: what answered is not the service's API. */
const NOT_THE_SERVICE = [404, 405];

export function interpret(
	operation: PayoutOperation,
	answer: Answer,
	params: Params,
	redact: (text: string) => string,
): ServiceResult {
	// Something answered that is not the payouts service: the path is unknown there (a wrong Base URL).
	if (
		(answer.kind === 'unreadable' || answer.kind === 'object') &&
		NOT_THE_SERVICE.includes(answer.httpStatus) &&
		operation.host === 'payout'
	) {
		const said =
			answer.kind === 'unreadable'
				? excerpt(redact(answer.text))
				: excerpt(redact(JSON.stringify(answer.body)));
		return { kind: 'notTheService', httpStatus: answer.httpStatus, said };
	}
	const unclear = (what: string, httpStatus: number | undefined): ServiceResult => ({
		kind: 'unclear',
		what: redact(what),
		subCode: httpStatus ? String(httpStatus) : undefined,
		noAnswer: true,
	});
	switch (answer.kind) {
		case 'noAnswer':
			return answer.reachedService
				? unclear(answer.reason, undefined)
				: { kind: 'unreachable', reason: answer.reason };
		case 'unreadable':
			return unclear(
				`the service answered HTTP ${answer.httpStatus} with a body that is not its JSON: ${excerpt(redact(answer.text))}`,
				answer.httpStatus,
			);
		case 'object':
			if (
				operation.host === 'verification' &&
				answer.httpStatus >= 200 &&
				answer.httpStatus < 300
			) {
				return {
					kind: 'paid',
					items: operation.output(
						{
							status: 'SUCCESS',
							subCode: String(answer.httpStatus),
							message: '',
							data: answer.body,
						},
						params,
					),
				};
			}
			if (operation.host === 'verification')
				return tokenRefused(answer.httpStatus, answer.body, redact);
			return unclear(
				`the service answered HTTP ${answer.httpStatus} without its status envelope`,
				answer.httpStatus,
			);
		case 'envelope': {
			const { envelope } = answer;
			if (operation.host === 'verification' && envelope.status === 'ERROR')
				return tokenRefused(answer.httpStatus, envelope as unknown as IDataObject, redact);
			// A paid answer's words reach the output as they are: redacted like every other (a service may echo a card token).
			if (envelope.status !== 'ERROR')
				return { kind: 'paid', items: operation.output(redacted(envelope, redact), params) };
			const said = { subCode: envelope.subCode, message: redact(envelope.message) };
			if (operation.movesMoney && REPEAT_REFUSED.test(envelope.message))
				return { kind: 'repeatRefused', said };
			const row = findErrorRow(operation.api, envelope.subCode, envelope.message);
			const serverSide = envelope.subCode === '520' || envelope.subCode.startsWith('5');
			// A row of its own (201 "no response from bank") says the outcome is unknown; a server fault too.
			if (operation.movesMoney && (row.unknownOutcome === true || serverSide))
				return {
					kind: 'unclear',
					what: said.message,
					subCode: said.subCode,
					said,
					rowHint: row.unknownOutcome ? row.hint : undefined,
					noAnswer: serverSide,
				};
			return { kind: 'refused', said, row, serverSide };
		}
	}
}

/** May the same request go out again (same Transfer ID)? Where the service refuses a repeat, an unclear transfer may. */
export function retryable(
	result: ServiceResult,
	operation: PayoutOperation,
	guard: RepeatGuard | undefined,
): boolean {
	switch (result.kind) {
		case 'unclear':
			return !operation.movesMoney || guard === 'service';
		case 'unreachable':
			return true;
		case 'refused':
			return result.serverSide;
		default:
			return false;
	}
}

function tokenRefused(
	httpStatus: number,
	body: IDataObject,
	redact: (text: string) => string,
): ServiceResult {
	const said = [body.message, body.error, body.error_description].find(
		(value) => typeof value === 'string',
	) as string | undefined;
	const subCode = typeof body.subCode === 'string' ? body.subCode : String(httpStatus);
	return { kind: 'tokenRefused', said: { subCode, message: redact(said ?? `HTTP ${httpStatus}`) } };
}

/** Every string in a value, redacted: a paid answer goes to the output whole. */
function redacted<T>(value: T, redact: (text: string) => string): T {
	if (typeof value === 'string') return redact(value) as T;
	if (Array.isArray(value)) return value.map((entry) => redacted(entry, redact)) as T;
	if (value && typeof value === 'object')
		return Object.fromEntries(
			Object.entries(value).map(([key, entry]) => [key, redacted(entry, redact)]),
		) as T;
	return value;
}

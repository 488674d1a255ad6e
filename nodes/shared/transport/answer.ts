import type { IDataObject } from 'n8n-workflow';

import type { Envelope } from '../types';

/**
 * An HTTP answer read by its body, never by its declared content type: a card transfer's 200 is
 * declared text/plain, and a service may answer 200 with an ERROR envelope or mirror the subCode in
 * the HTTP status. What it means for a row is judged in outcomes/.
 */

const OUTCOME_STATUSES = ['SUCCESS', 'PENDING', 'ERROR'];

export type Answer =
	/** The service's envelope: status, subCode, message and perhaps data. */
	| { kind: 'envelope'; httpStatus: number; envelope: Envelope }
	/** A JSON object without the envelope (the OAuth token endpoint answers so). */
	| { kind: 'object'; httpStatus: number; body: IDataObject }
	/** Anything else: an HTML error page, an empty or malformed body (whole: it may echo a secret,
	 * so it is redacted before it is shortened with `excerpt`). */
	| { kind: 'unreadable'; httpStatus: number; text: string }
	/** No answer at all: a timeout or a dropped connection. `reachedService` is false only when
	 * the connection was never made, so the request cannot have been processed. */
	| { kind: 'noAnswer'; reason: string; reachedService: boolean };

const EXCERPT_LENGTH = 120;

/**
 * Connection errors that prove the request never reached the service, in words: n8n replaces an
 * error message that contains a raw code such as ECONNRESET with its own generic text.
 */
const NEVER_CONNECTED: Record<string, string> = {
	ECONNREFUSED: 'the service refused the connection',
	ENOTFOUND: 'the host name could not be resolved',
	EAI_AGAIN: 'the host name could not be resolved',
	EHOSTUNREACH: 'the host could not be reached',
	ENETUNREACH: 'the network could not be reached',
	ERR_INVALID_URL: 'the address is not a valid URL',
};

export function readAnswer(httpStatus: number, text: string): Answer {
	let parsed: unknown;
	try {
		parsed = JSON.parse(text);
	} catch {
		return { kind: 'unreadable', httpStatus, text };
	}
	if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
		return { kind: 'unreadable', httpStatus, text };
	}
	const body = parsed as IDataObject;
	if (
		typeof body.status === 'string' &&
		OUTCOME_STATUSES.includes(body.status) &&
		body.subCode !== undefined
	) {
		const data =
			body.data !== null && typeof body.data === 'object' && !Array.isArray(body.data)
				? (body.data as IDataObject)
				: undefined;
		const envelope: Envelope = {
			status: body.status,
			subCode: String(body.subCode),
			message: String(body.message ?? ''),
		};
		if (data) envelope.data = data;
		return { kind: 'envelope', httpStatus, envelope };
	}
	return { kind: 'object', httpStatus, body };
}

/** A short, one-line view of a body for a message: only ever of text already redacted. */
export function excerpt(text: string): string {
	const flat = text.replace(/\s+/g, ' ').trim();
	if (flat === '') return '(empty body)';
	return flat.length > EXCERPT_LENGTH ? `${flat.slice(0, EXCERPT_LENGTH)}…` : flat;
}

/**
 * A short, secret-free reason from an HTTP-layer error. Only its code and message are read: the
 * error itself (n8n wraps axios's) carries the request, headers included, and is never passed on.
 */
export function noAnswer(error: unknown): Answer {
	const {
		code: ownCode,
		httpCode,
		message = '',
	} = (error ?? {}) as { code?: string; httpCode?: string; message?: string };
	const code = ownCode ?? httpCode ?? undefined;
	// A timeout that fires while the body is still arriving aborts the stream.
	const timedOut =
		code === 'ECONNABORTED' || code === 'ETIMEDOUT' || /timeout|timed out|aborted/i.test(message);
	if (code && code in NEVER_CONNECTED)
		return { kind: 'noAnswer', reason: NEVER_CONNECTED[code], reachedService: false };
	return {
		kind: 'noAnswer',
		reason: timedOut ? 'the request timed out' : 'the connection was dropped before an answer came',
		reachedService: true,
	};
}

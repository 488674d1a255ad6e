import type { ICredentialDataDecryptedObject, IDataObject, IExecuteFunctions, IHttpRequestOptions, INode, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { RunOptions } from './options';
import type { ApiRequest, Envelope, PayoutOperation } from './types';

/**
 * The only place that talks HTTP. It sends with n8n's own helpers (the credential's
 * `authenticate` block adds the bearer token) and reads the answer by its body: a card
 * transfer's 200 is declared text/plain, and a service may answer 200 with an ERROR envelope
 * or mirror the subCode in the HTTP status.
 */

export const CREDENTIAL_TYPE = 'payoutsApi';

/** The fields of the `payoutsApi` credential. */
export interface PayoutsCredentials {
	baseUrl: string;
	accessToken: string;
	verificationUrl?: string;
	clientId?: string;
	clientSecret?: string;
	apiVersion?: string;
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** What is wrong with a base address, or its usable form: the bearer token never travels in clear. */
export function baseUrlOf(url: string | undefined, field: string): { url: string } | { problem: string; fix: string } {
	if (String(url ?? '').trim() === '') {
		return { problem: `The credential has no '${field}'`, fix: `Fill in '${field}' in the Payouts API credential with the service's address from your payouts dashboard, e.g. https://payout-api.example.com` };
	}
	let parsed: URL;
	try {
		parsed = new URL(String(url ?? '').trim());
	} catch {
		return { problem: `The credential's '${field}' is not a valid URL`, fix: `Set '${field}' in the Payouts API credential to the service's address, e.g. https://payout-api.example.com` };
	}
	const isLoopback = LOOPBACK.test(parsed.hostname);
	if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && isLoopback)) {
		return {
			problem: `The credential's '${field}' must use https`,
			fix: `Secrets would travel unencrypted to ${parsed.host}. Use an https:// address; plain http:// is accepted only for a loopback address such as the local sandbox.`,
		};
	}
	return { url: parsed.toString().replace(/\/+$/, '') };
}

export function checkedBaseUrl(node: INode, url: string | undefined, field: string): string {
	const checked = baseUrlOf(url, field);
	if ('problem' in checked) throw new NodeOperationError(node, checked.problem, { description: checked.fix });
	return checked.url;
}


/** Where an operation's requests go and how they authenticate, from the credential. */
export function targetFor(context: IExecuteFunctions, operation: PayoutOperation, credentials: PayoutsCredentials, options: Pick<RunOptions, 'timeout'>): SendTarget {
	if (operation.host === 'payout') {
		if (!credentials.accessToken) {
			throw new NodeOperationError(context.getNode(), "The credential has no 'Access Token'", {
				description: "Fill in 'Access Token' in the Payouts API credential: every payout call carries it as a bearer token.",
			});
		}
		return { baseUrl: checkedBaseUrl(context.getNode(), credentials.baseUrl, 'Base URL'), timeoutMs: options.timeout, authenticated: true, credentials };
	}
	const missing = (['clientId', 'clientSecret', 'apiVersion'] as const).filter((field) => !credentials[field]);
	if (missing.length > 0) {
		throw new NodeOperationError(context.getNode(), `The credential lacks ${missing.join(', ')}`, {
			description: "The token endpoint needs 'Client ID', 'Client Secret' and 'API Version' in the Payouts API credential.",
		});
	}
	if (!/^\d{4}-\d{2}-\d{2}$/.test(String(credentials.apiVersion))) {
		throw new NodeOperationError(context.getNode(), "The credential's 'API Version' must be a date such as 2024-01-01", {
			description: "Set 'API Version' in the Payouts API credential in the format YYYY-MM-DD.",
		});
	}
	return {
		baseUrl: checkedBaseUrl(context.getNode(), credentials.verificationUrl, 'Verification URL'),
		timeoutMs: options.timeout,
		authenticated: false,
		// The token endpoint authenticates with the OAuth client, not the bearer token.
		headers: { 'x-client-id': credentials.clientId, 'x-client-secret': credentials.clientSecret, 'x-api-version': credentials.apiVersion },
	};
}

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

export interface SendTarget {
	baseUrl: string;
	timeoutMs: number;
	/** Credential-based bearer auth for the payout API; the OAuth endpoint sends its own headers. */
	authenticated: boolean;
	headers?: IDataObject;
	/** The credential as read once per run: n8n would otherwise load and decrypt it per request. */
	credentials?: PayoutsCredentials;
}

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
	if (typeof body.status === 'string' && OUTCOME_STATUSES.includes(body.status) && body.subCode !== undefined) {
		const data = body.data !== null && typeof body.data === 'object' && !Array.isArray(body.data) ? (body.data as IDataObject) : undefined;
		const envelope: Envelope = { status: body.status, subCode: String(body.subCode), message: String(body.message ?? '') };
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
	const { code: ownCode, httpCode, message = '' } = (error ?? {}) as { code?: string; httpCode?: string; message?: string };
	const code = ownCode ?? httpCode ?? undefined;
	// A timeout that fires while the body is still arriving aborts the stream.
	const timedOut = code === 'ECONNABORTED' || code === 'ETIMEDOUT' || /timeout|timed out|aborted/i.test(message);
	if (code && code in NEVER_CONNECTED) return { kind: 'noAnswer', reason: NEVER_CONNECTED[code], reachedService: false };
	return { kind: 'noAnswer', reason: timedOut ? 'the request timed out' : 'the connection was dropped before an answer came', reachedService: true };
}

export async function send(context: IExecuteFunctions | IPollFunctions, target: SendTarget, request: ApiRequest): Promise<Answer> {
	const options: IHttpRequestOptions = {
		method: request.method,
		baseURL: target.baseUrl,
		url: request.path,
		qs: request.qs,
		headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...target.headers },
		// Our own JSON, so the amounts go out exactly as validated.
		body: request.body ? JSON.stringify(request.body) : undefined,
		encoding: 'text',
		json: false,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: target.timeoutMs,
	};
	try {
		const response = (target.authenticated
			? await context.helpers.httpRequestWithAuthentication.call(
					context as IExecuteFunctions,
					CREDENTIAL_TYPE,
					options,
					target.credentials ? { credentialsDecrypted: { id: '', name: CREDENTIAL_TYPE, type: CREDENTIAL_TYPE, data: target.credentials as unknown as ICredentialDataDecryptedObject } } : undefined,
				)
			: await context.helpers.httpRequest(options)) as { statusCode: number; body: unknown };
		const text = typeof response.body === 'string' ? response.body : JSON.stringify(response.body ?? '');
		return readAnswer(response.statusCode, text);
	} catch (error) {
		return noAnswer(error);
	}
}

import type {
	ICredentialDataDecryptedObject,
	IExecuteFunctions,
	IHttpRequestOptions,
	IPollFunctions,
} from 'n8n-workflow';

import { noAnswer, readAnswer } from './answer';
import type { Answer } from './answer';
import { CREDENTIAL_TYPE } from './target';
import type { SendTarget } from './target';
import type { ApiRequest } from '../types';

/**
 * The only place that talks HTTP. It sends with n8n's own helpers (the credential's
 * `authenticate` block adds the bearer token) and hands back the answer as read by answer.ts.
 */

export async function send(
	context: IExecuteFunctions | IPollFunctions,
	target: SendTarget,
	request: ApiRequest,
): Promise<Answer> {
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
		const response = (
			target.authenticated
				? await context.helpers.httpRequestWithAuthentication.call(
						context as IExecuteFunctions,
						CREDENTIAL_TYPE,
						options,
						target.credentials
							? {
									credentialsDecrypted: {
										id: '',
										name: CREDENTIAL_TYPE,
										type: CREDENTIAL_TYPE,
										data: target.credentials as unknown as ICredentialDataDecryptedObject,
									},
								}
							: undefined,
					)
				: await context.helpers.httpRequest(options)
		) as { statusCode: number; body: unknown };
		const text =
			typeof response.body === 'string' ? response.body : JSON.stringify(response.body ?? '');
		return readAnswer(response.statusCode, text);
	} catch (error) {
		return noAnswer(error);
	}
}

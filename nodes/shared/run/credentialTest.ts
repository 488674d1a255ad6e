import type {
	ICredentialDataDecryptedObject,
	ICredentialsDecrypted,
	ICredentialTestFunctions,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { notTheService } from '../outcomes/messages';
import { findErrorRow } from '../outcomes/errors';
import { redactor } from '../redact';
import { baseUrlOf } from '../transport/target';
import { excerpt, noAnswer, readAnswer } from '../transport/answer';
import type { Answer } from '../transport/answer';

/**
 * The credential's Test button: lists today's incidents (a request that needs nothing but a valid
 * token and moves no money) and says what the service said, in its own words with the error
 * table's hint: a refused token, an IP not on the allow-list and payout APIs not enabled each read
 * as themselves. Every node names it (`testedBy`), as n8n asks of a test that reads the answer.
 */
export async function testPayoutsCredential(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted<ICredentialDataDecryptedObject>,
): Promise<INodeCredentialTestResult> {
	const data = credential.data ?? {};
	const base = baseUrlOf(data.baseUrl as string | undefined, 'Base URL');
	if ('problem' in base) return { status: 'Error', message: `${base.problem}: ${base.fix}` };
	const token = String(data.accessToken ?? '');
	const redact = redactor([token, data.clientSecret]);
	let answer: Answer;
	try {
		// n8n gives a credential test function only `request` (ICredentialTestFunctions has no
		// httpRequest), and a declarative test cannot quote the service's answer or tell an HTML page
		// from the service. n8n's scanner asks for httpRequest where a node has it; here it has not.
		const { request } = this.helpers;
		const response = (await request({
			method: 'GET',
			uri: `${base.url}/payout/v1/incidents`,
			headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' },
			json: false,
			simple: false,
			resolveWithFullResponse: true,
			timeout: 30000,
		})) as { statusCode: number; body: unknown };
		answer = readAnswer(
			response.statusCode,
			typeof response.body === 'string' ? response.body : JSON.stringify(response.body ?? ''),
		);
	} catch (error) {
		answer = noAnswer(error);
	}
	return result(answer, base.url, redact);
}

function result(
	answer: Answer,
	base: string,
	redact: (text: string) => string,
): INodeCredentialTestResult {
	switch (answer.kind) {
		case 'envelope': {
			const { status, subCode, message } = answer.envelope;
			if (status !== 'ERROR')
				return {
					status: 'OK',
					message: 'Connection tested: the service accepted the access token',
				};
			return {
				status: 'Error',
				message: `The service answered ${subCode} "${redact(message)}": ${findErrorRow('getIncidents', subCode, message).hint}`,
			};
		}
		case 'noAnswer':
			return {
				status: 'Error',
				message: `No answer from ${base}: ${answer.reason}. Check 'Base URL' and that this n8n server can reach it.`,
			};
		default: {
			const said =
				answer.kind === 'unreadable'
					? excerpt(redact(answer.text))
					: excerpt(redact(JSON.stringify(answer.body)));
			const wrong = notTheService(answer.httpStatus, said, '');
			return {
				status: 'Error',
				message: `${wrong.message.trim()}. ${wrong.hint.replace(/^Nothing was sent to the payouts service: /, '')}`,
			};
		}
	}
}

import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { findErrorRow } from '../outcomes/errors';
import { redactor } from '../redact';
import { inLanes, isFinal, withRetries } from './reads';
import type { Read } from './reads';
import { endpoints } from '../transport/endpoints';
import { send } from '../transport/send';
import type { SendTarget } from '../transport/target';

/**
 * The bank of each beneficiary, for the Incident Guard's Match Bank: the first four letters of its
 * IFSC, looked up with Get Beneficiary Details.
 */

/** The bank code of each beneficiary (first four letters of its IFSC), or why it is unknown. */
export async function bankCodes(
	context: IExecuteFunctions,
	target: SendTarget,
	beneIds: string[],
): Promise<Map<string, { bankCode: string } | { unchecked: string }>> {
	const codes = new Map<string, { bankCode: string } | { unchecked: string }>();
	await inLanes(beneIds, async (beneId) => {
		const found = await withRetries(() => lookUp(context, target, beneId));
		if ('failed' in found) {
			codes.set(beneId, {
				unchecked: `beneficiary ${beneId} could not be looked up: ${found.failed}`,
			});
			return true;
		}
		const ifsc = String(found.value.ifsc ?? '');
		const code = ifsc.slice(0, 4).toUpperCase();
		codes.set(
			beneId,
			/^[A-Z]{4}$/.test(code)
				? { bankCode: code }
				: {
						unchecked: `beneficiary ${beneId} has no IFSC whose first four characters are letters (given: ${JSON.stringify(ifsc)})`,
					},
		);
		return true;
	});
	return codes;
}

async function lookUp(
	context: IExecuteFunctions,
	target: SendTarget,
	beneId: string,
): Promise<Read<IDataObject>> {
	const answer = await send(context, target, endpoints.getBeneficiary(beneId));
	if (answer.kind === 'envelope' && answer.envelope.status !== 'ERROR')
		return { value: answer.envelope.data ?? {} };
	const redact = redactor([target.credentials?.accessToken, target.credentials?.clientSecret]);
	if (answer.kind === 'envelope') {
		const { subCode, message } = answer.envelope;
		return {
			failed: `${redact(message)} (subCode ${subCode}). ${findErrorRow('getBeneficiary', subCode, message).hint}`,
			final: isFinal(subCode),
		};
	}
	return {
		failed:
			answer.kind === 'noAnswer'
				? redact(answer.reason)
				: `HTTP ${answer.httpStatus} without the service's envelope`,
		final: false,
	};
}

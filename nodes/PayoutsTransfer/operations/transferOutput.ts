import type { IDataObject } from 'n8n-workflow';

import type { Envelope, Params } from '../../shared/types';

/** Card and standard transfers answer alike: one flat item with the outcome and the references. */
export function transferOutput(answer: Envelope, params: Params): IDataObject[] {
	const data = answer.data ?? {};
	return [
		{
			status: answer.status,
			subCode: answer.subCode,
			message: answer.message,
			transferId: params.transferId as string,
			referenceId: data.referenceId ?? null,
			utr: data.utr ?? null,
			acknowledged: data.acknowledged ?? null,
		},
	];
}

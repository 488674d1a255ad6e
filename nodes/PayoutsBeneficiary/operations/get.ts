import type { z } from 'zod';

import { itemSchema, text } from '../../shared/rules';
import type { PayoutOperation } from '../../shared/types';

const schema = itemSchema({ beneId: text({ required: true }) });

export const get: PayoutOperation<z.output<typeof schema>> = {
	value: 'get',
	api: 'getBeneficiary',
	name: 'Get',
	description: 'Get the stored details of one beneficiary',
	action: 'Get a beneficiary',
	movesMoney: false,
	host: 'payout',
	notice: 'The service has announced that this beneficiary API (v1) will be retired in favour of its second-generation beneficiary API.',
	properties: [
		{
			displayName: 'Beneficiary ID',
			name: 'beneId',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. JOHN18011343',
			description: 'Unique ID of the beneficiary',
		},
	],
	schema: () => schema,
	request: ({ beneId }) => ({ method: 'GET', path: `/payout/v1/getBeneficiary/${encodeURIComponent(beneId as string)}` }),
	output: (answer) => [answer.data ?? {}],
};

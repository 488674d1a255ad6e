import type { z } from 'zod';

import { itemSchema, text } from '../../shared/input/rules';
import type { PayoutOperation } from '../../shared/types';
import { endpoints } from '../../shared/transport/endpoints';

const schema = itemSchema({ paylinkId: text({ required: true }) });

export const getStatus: PayoutOperation<z.output<typeof schema>> = {
	value: 'getStatus',
	api: 'getPaylinkStatus',
	name: 'Get Paylink Status',
	description: 'Get the status of a paylink created earlier',
	action: 'Get the status of a paylink',
	movesMoney: false,
	host: 'payout',
	properties: [
		{
			displayName: 'Paylink ID',
			name: 'paylinkId',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. invoice_2026_0042',
			description: 'The ID chosen when the paylink was created',
		},
	],
	schema: () => schema,
	request: ({ paylinkId }) => endpoints.getPaylinkStatus(paylinkId),
	output: (answer) => [answer.data ?? {}],
};

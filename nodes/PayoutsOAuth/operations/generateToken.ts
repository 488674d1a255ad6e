import type { z } from 'zod';

import { itemSchema, text } from '../../shared/input/rules';
import type { PayoutOperation } from '../../shared/types';
import { endpoints } from '../../shared/transport/endpoints';

const schema = itemSchema({ authCode: text({ required: true }) });

export const generateToken: PayoutOperation<z.output<typeof schema>> = {
	value: 'generateToken',
	api: 'generateToken',
	name: 'Generate Token',
	description: 'Exchange the authorisation code of a one-click OAuth flow for an access token',
	action: 'Generate an access token',
	movesMoney: false,
	host: 'verification',
	properties: [
		{
			displayName: 'Auth Code',
			name: 'authCode',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. {{ $json.query.auth_code }}',
			description:
				'The authorisation code delivered to your redirect URL after the user consented. Each code works once.',
		},
	],
	schema: () => schema,
	request: ({ authCode }) => endpoints.generateToken(authCode),
	// The token endpoint answers without the envelope: its fields are the item.
	output: (answer) => [answer.data ?? {}],
};

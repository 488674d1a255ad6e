import type { z } from 'zod';

import { fields, itemSchema, text } from '../../shared/input/rules';
import { simplified, simplifyProperties, simplifyRule } from '../../shared/output/simplify';
import type { PayoutOperation } from '../../shared/types';
import { endpoints } from '../../shared/transport/endpoints';

const schema = itemSchema({
	beneId: text({ required: true, ...fields.pathSegment }),
	simplify: simplifyRule,
});

/** What a payout needs to know about a beneficiary; the postal address is left out. */
const SIMPLIFIED = [
	'beneId',
	'name',
	'status',
	'groupName',
	'email',
	'phone',
	'bankAccount',
	'ifsc',
] as const;

export const get: PayoutOperation<z.output<typeof schema>> = {
	value: 'get',
	api: 'getBeneficiary',
	name: 'Get Beneficiary',
	description: 'Get the stored details of one beneficiary',
	action: 'Get a beneficiary',
	movesMoney: false,
	host: 'payout',
	notice:
		'The service has announced that this beneficiary API (v1) will be retired in favour of its second-generation beneficiary API.',
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
		...simplifyProperties(SIMPLIFIED),
	],
	schema: () => schema,
	request: ({ beneId }) => endpoints.getBeneficiary(beneId),
	output: (answer, { simplify }) => [
		simplify ? simplified(answer.data ?? {}, SIMPLIFIED) : (answer.data ?? {}),
	],
};

import type { IDataObject, INodeProperties } from 'n8n-workflow';

import type { FieldRule } from '../input/rules';

/**
 * n8n's "Simplify" convention for outputs of more than 10 fields: a boolean `simplify` that keeps
 * the fields most workflows use. On by default from node version 2, as n8n's guidelines ask;
 * version 1 keeps the full output by default, so workflows saved with it are unchanged.
 */
export function simplifyProperties(kept: readonly string[]): INodeProperties[] {
	const description = `Whether to return a simplified version of the response instead of the raw data: only ${kept.join(', ')}`;
	return [
		{
			displayName: 'Simplify',
			name: 'simplify',
			type: 'boolean',
			default: false,
			description,
			displayOptions: { show: { '@version': [1] } },
		},
		{
			displayName: 'Simplify',
			name: 'simplify',
			type: 'boolean',
			default: true,
			description,
			displayOptions: { show: { '@version': [{ _cnd: { gte: 2 } }] } },
		},
	];
}

/** The switch as the schema reads it: only `true` simplifies (an expression may give the text "true"). */
export const simplifyRule: FieldRule<boolean> = (value) => {
	if (value === true || value === 'true') return { value: true };
	if (value === undefined || value === null || value === '' || value === false || value === 'false')
		return { value: false };
	return { issue: 'must be true or false' };
};

/** The kept fields of one output item, in the listed order; fields the answer lacks stay out. */
export function simplified(item: IDataObject, kept: readonly string[]): IDataObject {
	return Object.fromEntries(
		kept.filter((field) => field in item).map((field) => [field, item[field]]),
	);
}

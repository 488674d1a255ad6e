import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { Params, PayoutOperation } from '../types';

/**
 * An item's parameters as the node reads them, once per item, before any rule is checked; and a
 * value the user gave, as a message shows it.
 */

/** The item's parameters, Additional Fields among them; empty ones are left out. */
export function readParameters(
	context: IExecuteFunctions,
	operation: PayoutOperation,
	index: number,
	item: INodeExecutionData | undefined,
): Params {
	const raw: Params = {};
	for (const property of operation.properties) {
		if (property.type === 'notice') continue;
		if (property.type === 'collection')
			Object.assign(raw, collectionValue(context, property.name, index, item));
		else raw[property.name] = parameterValue(context, property.name, index, item);
	}
	return Object.fromEntries(
		Object.entries(raw).filter(([, value]) => value !== undefined && value !== ''),
	);
}

/** `={{ $json.<field> }}`: the parameter is a column of the row. */
const ITEM_FIELD = /^=\{\{\s*\$json\.([A-Za-z_$][\w$]*)\s*\}\}$/;

/**
 * A parameter's value for one item. n8n evaluates each expression in an isolate, the largest cost
 * of a row (docs/performance.md); an expression that only names a field of the item is that field
 * (n8n returns it as the item holds it), so it is read from the item. Anything else is n8n's.
 */
export function parameterValue(
	context: IExecuteFunctions,
	name: string,
	index: number,
	item: INodeExecutionData | undefined,
): unknown {
	const raw = context.getNodeParameter(name, index, '', { rawExpressions: true });
	if (raw === '') return undefined;
	const field = typeof raw === 'string' ? ITEM_FIELD.exec(raw)?.[1] : undefined;
	if (field !== undefined && item && !(field in Object.prototype)) return item.json[field];
	return context.getNodeParameter(name, index, '');
}

function collectionValue(
	context: IExecuteFunctions,
	name: string,
	index: number,
	item: INodeExecutionData | undefined,
): Params {
	const raw = context.getNodeParameter(name, index, {}, { rawExpressions: true }) as IDataObject;
	return Object.fromEntries(
		Object.keys(raw).map((key) => [key, parameterValue(context, `${name}.${key}`, index, item)]),
	);
}

/** A value as the user gave it, short enough for a message. */
export function shown(value: unknown): string {
	const text =
		typeof value === 'string' ? JSON.stringify(value) : String(JSON.stringify(value) ?? value);
	return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

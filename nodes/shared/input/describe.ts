import type { INodeProperties } from 'n8n-workflow';

import { optionsFor } from './options';
import type { PayoutOperation } from '../types';

/**
 * A node's parameters from its operations: the operation selector, then each operation's own
 * parameters and options, shown only for that operation. The display rules live here, once.
 */
export function describeOperations(
	operations: PayoutOperation[],
	defaultOperation = operations[0].value,
): INodeProperties[] {
	const selector: INodeProperties = {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		options: operations
			.map(({ name, value, description, action }) => ({ name, value, description, action }))
			.sort((a, b) => a.name.localeCompare(b.name)),
		default: defaultOperation,
	};
	const perOperation = operations.flatMap((operation) => {
		const notice: INodeProperties[] = operation.notice
			? [
					{
						displayName: operation.notice,
						name: `${operation.value}Notice`,
						type: 'notice',
						default: '',
					},
				]
			: [];
		// A property's own display rules (e.g. by node version) are kept, the operation's added.
		return [...notice, ...operation.properties, optionsFor(operation)].map((property) => ({
			...property,
			displayOptions: {
				...property.displayOptions,
				show: { ...property.displayOptions?.show, operation: [operation.value] },
			},
		}));
	});
	return [selector, ...perOperation];
}

/** The optional API fields of an operation, in an "Additional Fields" collection, as n8n's own nodes do. */
export function additionalFields(options: INodeProperties[]): INodeProperties {
	return {
		displayName: 'Additional Fields',
		name: 'additionalFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		options,
	};
}

/** Display names by parameter name (collections included), so errors name what the user sees. */
export function displayNames(operation: PayoutOperation): Map<string, string> {
	const names = new Map<string, string>();
	for (const property of operation.properties) {
		names.set(property.name, property.displayName);
		for (const option of property.options ?? []) {
			if ('displayName' in option && 'name' in option) names.set(option.name, option.displayName);
		}
	}
	return names;
}

/** The canvas subtitle: the chosen operation's name ("Standard Transfer"), not its value. */
export function operationSubtitle(operations: PayoutOperation[]): string {
	const names = Object.fromEntries(operations.map(({ value, name }) => [value, name]));
	return `={{ ${JSON.stringify(names)}[$parameter["operation"]] }}`;
}

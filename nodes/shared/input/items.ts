import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { redactor } from '../redact';
import { readParameters, shown } from './parameters';
import { plannedTransfer, sharedTransferIds } from './planned';
import type { RunOrigin } from './planned';
import type { Failure, Outcomes, Params, PayoutOperation, Planned } from '../types';

/**
 * The routine's first step: every item's parameters read (parameters.ts) and checked against the
 * operation's rules (rules.ts, one zod schema per operation) before the first request, so that a
 * batch with a bad row moves no money. Owns the messages that name the item, the field and the
 * rule; what a valid row becomes, and the rule that one Transfer ID is one transfer within a
 * batch, are planned.ts.
 */

interface CheckedItems {
	planned: Planned[];
	outcomes: Outcomes;
	/** Per item, the values no message may show: the credential's secrets and the item's secret fields. */
	secretsOf: Map<number, unknown[]>;
}

export async function checkItems(
	context: IExecuteFunctions,
	operation: PayoutOperation,
	schema: ReturnType<PayoutOperation['schema']>,
	names: Map<string, string>,
	credentialSecrets: unknown[],
	origin: RunOrigin,
): Promise<CheckedItems> {
	const items = context.getInputData();
	const outcomes: Outcomes = new Map();
	const secretsOf = new Map<number, unknown[]>();
	let planned: Planned[] = [];
	const turn = yieldingTurns();
	for (let index = 0; index < items.length; index++) {
		await turn();
		const checked = checkItem(context, operation, schema, names, index, items[index], origin);
		secretsOf.set(index, [...credentialSecrets, ...checked.secrets]);
		if ('failure' in checked) outcomes.set(index, { failure: checked.failure });
		else planned.push(checked.entry);
	}
	if (operation.movesMoney) {
		for (const [index, { rule, hint }] of sharedTransferIds(planned))
			outcomes.set(index, { failure: invalid(index, rule, hint) });
		planned = planned.filter((entry) => !outcomes.has(entry.index));
	}
	return { planned, outcomes, secretsOf };
}

/**
 * Long loops give n8n's event loop a turn now and then, so its editor and REST API keep answering
 * while a large batch is checked.
 */
function yieldingTurns(everyMs = 50) {
	let since = Date.now();
	return async () => {
		if (Date.now() - since < everyMs) return;
		await sleep(0);
		since = Date.now();
	};
}

/** Reads one item's parameters and checks them against the operation's rules; never throws. */
function checkItem(
	context: IExecuteFunctions,
	operation: PayoutOperation,
	schema: ReturnType<PayoutOperation['schema']>,
	names: Map<string, string>,
	index: number,
	item: INodeExecutionData | undefined,
	origin: RunOrigin,
): ({ entry: Planned } | { failure: Failure }) & { secrets: unknown[] } {
	const secretFields = operation.secretFields ?? [];
	let raw: Params = {};
	try {
		raw = readParameters(context, operation, index, item);
		const secrets = secretFields.map((field) => raw[field]);
		const result = schema.safeParse(raw);
		if (result.success) {
			// What is sent counts as a secret too: the rules trim white space.
			const sentSecrets = [...secrets, ...secretFields.map((field) => result.data[field])];
			const planned = plannedTransfer(context, operation, names, index, item, result.data, origin);
			if ('refused' in planned) {
				const { rule, hint } = planned.refused;
				return { failure: invalid(index, rule, hint), secrets: sentSecrets };
			}
			return { entry: planned.entry, secrets: sentSecrets };
		}
		const fields = [...new Set(result.error.issues.map((issue) => String(issue.path[0] ?? '')))];
		const label = (field: string) => `'${names.get(field) ?? (field || 'a parameter')}'`;
		const broken = result.error.issues.map((issue) => {
			const field = String(issue.path[0] ?? '');
			const given =
				secretFields.includes(field) || raw[field] === undefined
					? ''
					: ` (given: ${shown(raw[field])})`;
			return `${label(field)} ${issue.message}${given}`;
		});
		return {
			failure: invalid(
				index,
				broken.join('; '),
				`Correct ${listed(fields.map(label))} in item ${index}.`,
			),
			secrets,
		};
	} catch (error) {
		const secrets = secretFields.map((field) => raw[field]);
		const reason = redactor(secrets)((error as Error).message ?? String(error));
		return {
			failure: invalid(
				index,
				`The parameters could not be read: ${reason}`,
				'Fix the expression or value of the parameter the message names.',
			),
			secrets,
		};
	}
}

const listed = (names: string[]) =>
	names.length < 2
		? names.join('')
		: `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;

/** A row refused before anything is sent: the rule it breaks, with the item, and what to do. */
export function invalid(index: number, rule: string, hint: string): Failure {
	return {
		message: `${rule} [item ${index}]`,
		hint,
		status: 'ERROR',
		nextStep: 'fixRow',
		fromService: false,
		retryable: false,
		invalid: true,
	};
}

import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { redactor } from '../redact';
import { DASHBOARD_STATUS_OPTION, readDashboardStatus } from './dashboardStatus';
import type {
	EarlierReport,
	Failure,
	Outcomes,
	Params,
	PayoutOperation,
	Planned,
	TransferOrigin,
} from '../types';

/**
 * The routine's first step: every item's parameters read and checked against the operation's rules
 * (rules.ts, one zod schema per operation) before the first request, so that a batch with a bad
 * row moves no money. Owns reading parameters, the messages that name the item, the field and the
 * rule, the Transfer IDs made for internal rows without one, and the rule that one Transfer ID is
 * one transfer within a batch.
 */

export interface CheckedItems {
	planned: Planned[];
	outcomes: Outcomes;
	/** Per item, the values no message may show: the credential's secrets and the item's secret fields. */
	secretsOf: Map<number, unknown[]>;
}

/** Where the run is, for Transfer IDs made for rows without one (TransferOrigin without the row). */
export type RunOrigin = Omit<TransferOrigin, 'itemIndex'>;

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
		for (const [index, failure] of sharedTransferIds(planned)) outcomes.set(index, { failure });
		planned = planned.filter((entry) => !outcomes.has(entry.index));
	}
	return { planned, outcomes, secretsOf };
}

function readParameters(
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
	return raw;
}

/** `={{ $json.<field> }}`: the parameter is a column of the row. */
const ITEM_FIELD = /^=\{\{\s*\$json\.([A-Za-z_$][\w$]*)\s*\}\}$/;

/**
 * A parameter's value for one item. n8n evaluates each expression in an isolate, the largest cost
 * of a row (docs/performance.md); an expression that only names a field of the item is that field
 * (n8n returns it as the item holds it), so it is read from the item. Anything else is n8n's.
 */
function parameterValue(
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
		raw = definedOnly(readParameters(context, operation, index, item));
		const secrets = secretFields.map((field) => raw[field]);
		const result = schema.safeParse(raw);
		if (result.success) {
			// What is sent counts as a secret too: the rules trim white space.
			const sentSecrets = [...secrets, ...secretFields.map((field) => result.data[field])];
			const planned = plannedTransfer(context, operation, names, index, item, result.data, origin);
			return { ...planned, secrets: sentSecrets };
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

/**
 * A valid row as it will be sent: for an internal row without a Transfer ID, the one made of its
 * Top-Up Key (or of the run, where every run pays); for a transfer the node guards, what the
 * dashboard says of it (Options > Dashboard Status).
 */
function plannedTransfer(
	context: IExecuteFunctions,
	operation: PayoutOperation,
	names: Map<string, string>,
	index: number,
	item: INodeExecutionData | undefined,
	checked: Params,
	origin: RunOrigin,
): { entry: Planned } | { failure: Failure } {
	let params = checked;
	let madeForRun = false;
	if (operation.transferIdWhenEmpty && params.transferId === undefined) {
		const made = operation.transferIdWhenEmpty(params, { ...origin, itemIndex: index });
		if ('issue' in made)
			return {
				failure: invalid(
					index,
					`'${names.get('topUpKey') ?? 'Top-Up Key'}' ${made.issue}`,
					made.hint,
				),
			};
		params = { ...params, transferId: made.transferId };
		madeForRun = params.topUpKey === undefined;
	}
	const entry: Planned = {
		index,
		params,
		request: operation.request(params),
		...(madeForRun ? { madeForRun: true as const } : {}),
	};
	if (!operation.movesMoney) return { entry };
	entry.transferId = String(params.transferId);
	const given = parameterValue(context, 'options.dashboardStatus', index, item);
	const dashboard = readDashboardStatus(given);
	const option = DASHBOARD_STATUS_OPTION.replace(/^Options > /, '');
	if (dashboard && 'issue' in dashboard)
		return {
			failure: invalid(
				index,
				`${option} ${dashboard.issue} (given: ${shown(given)})`,
				`Map ${option} to the dashboard's status of this row's Transfer ID, or leave it empty.`,
			),
		};
	// What an earlier Payouts Transfer node said of the row (a retry branch on its error output): run/ judges it.
	const earlier = earlierReport(item);
	if (earlier) entry.earlier = earlier;
	return { entry: dashboard ? { ...entry, dashboard } : entry };
}

/** What an earlier Payouts Transfer node said of the row, where its error item reaches this node (On Error: Continue (using error output)). */
function earlierReport(item: INodeExecutionData | undefined): EarlierReport | undefined {
	const error = item?.json.error as IDataObject | undefined;
	if (!error || typeof error !== 'object' || typeof error.transferId !== 'string') return undefined;
	if (error.status !== 'UNKNOWN' && error.status !== 'ALREADY_EXISTS') return undefined;
	return {
		status: error.status,
		transferId: error.transferId,
		hint: typeof error.hint === 'string' ? error.hint : undefined,
		nextStep: typeof error.nextStep === 'string' ? error.nextStep : undefined,
	};
}

/** A value as the user gave it, short enough for a message. */
function shown(value: unknown): string {
	const text =
		typeof value === 'string' ? JSON.stringify(value) : String(JSON.stringify(value) ?? value);
	return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

const listed = (names: string[]) =>
	names.length < 2
		? names.join('')
		: `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;

function definedOnly(raw: Params): Params {
	return Object.fromEntries(
		Object.entries(raw).filter(([, value]) => value !== undefined && value !== ''),
	);
}

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

/** Two rows with one Transfer ID would be one transfer: neither is sent, and each names the other. */
function sharedTransferIds(planned: Planned[]): Map<number, Failure> {
	const byId = new Map<string, number[]>();
	for (const { index, params } of planned) {
		if (typeof params.transferId === 'string')
			byId.set(params.transferId, [...(byId.get(params.transferId) ?? []), index]);
	}
	const failures = new Map<number, Failure>();
	for (const [transferId, indexes] of byId) {
		if (indexes.length < 2) continue;
		for (const index of indexes) {
			const others = indexes.filter((other) => other !== index).join(', ');
			const key = planned.find((entry) => entry.index === index)?.params.topUpKey;
			failures.set(
				index,
				key === undefined
					? invalid(
							index,
							`'Transfer ID' ${transferId} is also used by item ${others}`,
							"Give each row its own 'Transfer ID': one Transfer ID is one transfer.",
						)
					: invalid(
							index,
							`'Top-Up Key' ${shown(key)} is also used by item ${others}`,
							"Give each top-up its own 'Top-Up Key' (e.g. add the row's own column to it): one key is one transfer, paid once.",
						),
			);
		}
	}
	return failures;
}

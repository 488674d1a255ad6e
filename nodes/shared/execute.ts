import { DateTime } from 'luxon';
import type { IDataObject, IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { displayNames } from './describe';
import { findErrorRow } from './errors';
import { readOptions } from './options';
import type { RunOptions } from './options';
import { checkedBaseUrl, CREDENTIAL_TYPE, send } from './transport';
import type { Answer, PayoutsCredentials, SendTarget } from './transport';
import type { ApiRequest, Envelope, Params, PayoutOperation } from './types';

/**
 * The one execute routine of every payouts node:
 * 1. read and validate every item before the first request (a bad row moves no money),
 * 2. send the good items (bounded concurrency, optional pacing, retries where safe),
 * 3. read each answer by its body and map ERROR subCodes to errors with hints,
 * 4. output in input order, every item paired with the item it came from.
 */

/** What went wrong for one item, before it becomes a thrown error or an error item. */
interface Failure {
	/** What happened, naming the item. */
	message: string;
	/** What to do about it. */
	hint: string;
	/** ERROR: the item failed. UNKNOWN: it may have moved money and no clear answer came. */
	status: 'ERROR' | 'UNKNOWN';
	fromService: boolean;
	subCode?: string;
	serviceMessage?: string;
	/** May be sent again with the same request (same transferId). */
	retryable: boolean;
}

type Outcome = { items: IDataObject[] } | { failure: Failure };

interface Planned {
	index: number;
	params: Params;
	request: ApiRequest;
}

/**
 * What this node sent per execution, for n8n's "Retry On Fail", which re-runs the whole node in
 * the same execution: a transfer that already has an outcome is not sent again (its outcome is
 * output again), and one that was sent without a clear answer is re-sent with the same
 * transferId, its duplicate answer then reported as ALREADY_SUBMITTED. Kept only for nodes with
 * Retry On Fail on, for a bounded number of executions.
 */
type SentTransfers = Map<string, IDataObject[] | 'sent'>;
const sentByExecution = new Map<string, SentTransfers>();
const REMEMBERED_EXECUTIONS = 50;

function sentTransfersOf(context: IExecuteFunctions): SentTransfers | undefined {
	const node = context.getNode();
	const executionId = context.getExecutionId();
	if (!node.retryOnFail || !executionId) return undefined;
	const key = `${executionId}:${node.id}`;
	let sent = sentByExecution.get(key);
	if (!sent) {
		sent = new Map();
		sentByExecution.set(key, sent);
		if (sentByExecution.size > REMEMBERED_EXECUTIONS) sentByExecution.delete(sentByExecution.keys().next().value as string);
	}
	return sent;
}

function targetFor(context: IExecuteFunctions, operation: PayoutOperation, credentials: PayoutsCredentials, options: RunOptions): SendTarget {
	if (operation.host === 'payout') {
		if (!credentials.accessToken) {
			throw new NodeOperationError(context.getNode(), "The credential has no 'Access Token'", {
				description: "Fill in 'Access Token' in the Payouts API credential: every payout call carries it as a bearer token.",
			});
		}
		return { baseUrl: checkedBaseUrl(context.getNode(), credentials.baseUrl, 'Base URL'), timeoutMs: options.timeout, authenticated: true, credentials };
	}
	const missing = (['clientId', 'clientSecret', 'apiVersion'] as const).filter((field) => !credentials[field]);
	if (missing.length > 0) {
		throw new NodeOperationError(context.getNode(), `The credential lacks ${missing.join(', ')}`, {
			description: "The token endpoint needs 'Client ID', 'Client Secret' and 'API Version' in the Payouts API credential.",
		});
	}
	if (!/^\d{4}-\d{2}-\d{2}$/.test(String(credentials.apiVersion))) {
		throw new NodeOperationError(context.getNode(), "The credential's 'API Version' must be a date such as 2024-01-01", {
			description: "Set 'API Version' in the Payouts API credential in the format YYYY-MM-DD.",
		});
	}
	return {
		baseUrl: checkedBaseUrl(context.getNode(), credentials.verificationUrl, 'Verification URL'),
		timeoutMs: options.timeout,
		authenticated: false,
		// The token endpoint authenticates with the OAuth client, not the bearer token.
		headers: { 'x-client-id': credentials.clientId, 'x-client-secret': credentials.clientSecret, 'x-api-version': credentials.apiVersion },
	};
}

/** Replaces every secret in a text, whatever the service or the HTTP layer put there. */
function redactor(secrets: unknown[]) {
	const values = secrets.filter((secret): secret is string => typeof secret === 'string' && secret.length >= 4);
	return (text: string) => values.reduce((result, secret) => result.split(secret).join('***'), text);
}

function readParameters(context: IExecuteFunctions, operation: PayoutOperation, index: number): Params {
	const raw: Params = {};
	for (const property of operation.properties) {
		if (property.type === 'notice') continue;
		const value = context.getNodeParameter(property.name, index, property.type === 'collection' ? {} : undefined);
		if (property.type === 'collection') Object.assign(raw, value as IDataObject);
		else raw[property.name] = value;
	}
	return raw;
}

const BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 4000;

/** Runs `work` over `list` with at most `limit` in flight and at most `perSecond` starts a second. */
async function forEachBounded<T>(list: T[], limit: number, perSecond: number, work: (entry: T) => Promise<boolean>) {
	let next = 0;
	let stopped = false;
	let nextStart = Date.now();
	const interval = perSecond > 0 ? 1000 / perSecond : 0;
	const lane = async () => {
		while (!stopped && next < list.length) {
			const entry = list[next++];
			if (interval > 0) {
				const wait = nextStart - Date.now();
				nextStart = Math.max(Date.now(), nextStart) + interval;
				if (wait > 0) await sleep(wait);
			}
			if (!(await work(entry))) stopped = true;
		}
	};
	await Promise.all(Array.from({ length: Math.min(limit, list.length) }, lane));
}

export async function runOperations(this: IExecuteFunctions, operations: PayoutOperation[]): Promise<INodeExecutionData[][]> {
	const node = this.getNode();
	const items = this.getInputData();
	const operationValue = this.getNodeParameter('operation', 0) as string;
	const operation = operations.find((candidate) => candidate.value === operationValue);
	if (!operation) throw new NodeOperationError(node, `The operation '${operationValue}' is not known`);

	const options = readOptions(operation, this.getNodeParameter('options', 0, {}) as Partial<RunOptions>);
	// n8n gives a node used as an AI agent's tool the type "<node type>Tool".
	if (node.type.endsWith('Tool') && !options.allowAgentUse) {
		throw new NodeOperationError(node, `${node.name} does not run as an AI agent's tool unless allowed`, {
			description: "This operation moves money or hands out secrets. Turn on 'Allow Use by AI Agents' in the node's Options only if the agent's inputs are checked, e.g. by a human approval step.",
		});
	}
	const credentials = await this.getCredentials<PayoutsCredentials>(CREDENTIAL_TYPE);
	const target = targetFor(this, operation, credentials, options);
	const continueOnFail = this.continueOnFail();
	const timezone = this.getTimezone();
	const schema = operation.schema({ timezone, now: DateTime.now().setZone(timezone) });
	const names = displayNames(operation);
	const credentialSecrets = [credentials.accessToken, credentials.clientSecret];
	const sentBefore = operation.movesMoney ? sentTransfersOf(this) : undefined;

	// 1. Validate every item before anything is sent.
	const planned: Planned[] = [];
	const outcomes = new Map<number, Outcome>();
	const secretsOf = new Map<number, unknown[]>();
	for (let index = 0; index < items.length; index++) {
		const checked = checkItem(this, operation, schema, names, index);
		secretsOf.set(index, [...credentialSecrets, ...checked.secrets]);
		if ('failure' in checked) outcomes.set(index, { failure: checked.failure });
		else planned.push(checked.entry);
	}
	const firstInvalid = [...outcomes.entries()][0];
	if (firstInvalid && !continueOnFail) {
		throw toNodeError(node, firstInvalid[0], (firstInvalid[1] as { failure: Failure }).failure, 'No item was sent: every item is checked before the first request.');
	}

	// 2. Send the valid items (or describe them, in a dry run).
	const sentBeforeFailure: number[] = [];
	let stoppingFailure: { index: number; failure: Failure } | undefined;
	const perform = async (entry: Planned): Promise<boolean> => {
		const redact = redactor(secretsOf.get(entry.index) ?? credentialSecrets);
		const outcome = options.dryRun
			? { items: [dryRunItem(operation, target, entry.request)] }
			: await sendWithRetries(this, operation, target, entry, options.retries, sentBefore, redact);
		outcomes.set(entry.index, outcome);
		if ('failure' in outcome && !continueOnFail) {
			stoppingFailure ??= { index: entry.index, failure: outcome.failure };
			return false;
		}
		sentBeforeFailure.push(entry.index);
		return true;
	};
	await forEachBounded(planned, options.concurrency, options.requestsPerSecond, perform);
	if (stoppingFailure) {
		const sent = sentBeforeFailure.sort((a, b) => a - b);
		const note = operation.movesMoney && sent.length > 0 ? `Items already sent in this run: ${sent.join(', ')}. Do not send them again with new Transfer IDs.` : '';
		throw toNodeError(node, stoppingFailure.index, stoppingFailure.failure, note);
	}

	// 3. Output in input order, paired with the input item.
	const errorOutput = node.onError === 'continueErrorOutput';
	const paramsOf = new Map(planned.map((entry) => [entry.index, entry.params]));
	const output: INodeExecutionData[] = [];
	for (let index = 0; index < items.length; index++) {
		const outcome = outcomes.get(index);
		if (!outcome) continue;
		if ('items' in outcome) {
			for (const json of outcome.items) output.push({ json, pairedItem: { item: index } });
		} else {
			const params = paramsOf.get(index);
			output.push({ json: errorOutput ? errorOutputItem(outcome.failure, params) : errorItem(outcome.failure, params), pairedItem: { item: index } });
		}
	}
	return [output];
}

/** Reads one item's parameters and checks them against the operation's rules; never throws. */
function checkItem(
	context: IExecuteFunctions,
	operation: PayoutOperation,
	schema: ReturnType<PayoutOperation['schema']>,
	names: Map<string, string>,
	index: number,
): ({ entry: Planned } | { failure: Failure }) & { secrets: unknown[] } {
	let raw: Params = {};
	try {
		const defaults = operation.itemDefaults?.({ executionId: context.getExecutionId(), nodeId: context.getNode().id, index });
		raw = { ...defaults, ...definedOnly(readParameters(context, operation, index)) };
		const secrets = (operation.secretFields ?? []).map((field) => raw[field]);
		const result = schema.safeParse(raw);
		if (result.success) return { entry: { index, params: result.data, request: operation.request(result.data) }, secrets };
		const issue = result.error.issues[0];
		const label = names.get(String(issue.path[0] ?? '')) ?? String(issue.path[0] ?? 'a parameter');
		return { failure: invalid(index, `'${label}' ${issue.message}`, `Correct '${label}' in item ${index}. Nothing was sent for this item.`), secrets };
	} catch (error) {
		const secrets = (operation.secretFields ?? []).map((field) => raw[field]);
		const reason = redactor(secrets)((error as Error).message ?? String(error));
		return { failure: invalid(index, `The parameters could not be read: ${reason}`, 'Fix the expression or value of the parameter the message names. Nothing was sent for this item.'), secrets };
	}
}

function definedOnly(raw: Params): Params {
	return Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== undefined && value !== ''));
}

function invalid(index: number, rule: string, hint: string): Failure {
	return { message: `${rule} [item ${index}]`, hint, status: 'ERROR', fromService: false, retryable: false };
}

function toNodeError(node: ReturnType<IExecuteFunctions['getNode']>, itemIndex: number, failure: Failure, note: string) {
	const description = note ? `${failure.hint} ${note}` : failure.hint;
	if (!failure.fromService) return new NodeOperationError(node, failure.message, { itemIndex, description });
	const response: JsonObject = { status: failure.status, subCode: failure.subCode ?? null, message: failure.serviceMessage ?? failure.message };
	return new NodeApiError(node, response, { message: failure.message, description, httpCode: failure.subCode, itemIndex });
}

function errorItem(failure: Failure, params: Params | undefined): IDataObject {
	const item: IDataObject = {
		error: failure.message,
		status: failure.status,
		subCode: failure.subCode ?? null,
		message: failure.serviceMessage ?? failure.message,
		hint: failure.hint,
	};
	if (typeof params?.transferId === 'string') item.transferId = params.transferId;
	return item;
}

/**
 * For On Error "Continue (using error output)": n8n routes an item whose only field is `error`
 * to the error output and adds the input item's fields to it, so the failed row arrives whole,
 * with the details under `error`.
 */
function errorOutputItem(failure: Failure, params: Params | undefined): IDataObject {
	const { error, message, ...details } = errorItem(failure, params);
	return { error: { message: error, serviceMessage: message, ...details } };
}

function dryRunItem(operation: PayoutOperation, target: SendTarget, request: ApiRequest): IDataObject {
	const body = request.body ? { ...request.body } : undefined;
	for (const field of operation.secretFields ?? []) if (body && body[field] !== undefined) body[field] = '***';
	const query = request.qs ? `?${new URLSearchParams(request.qs as Record<string, string>).toString()}` : '';
	const item: IDataObject = { dryRun: true, method: request.method, url: `${target.baseUrl}${request.path}${query}` };
	if (body) item.body = body;
	return item;
}

async function sendWithRetries(
	context: IExecuteFunctions,
	operation: PayoutOperation,
	target: SendTarget,
	entry: Planned,
	retries: number,
	sentBefore: SentTransfers | undefined,
	redact: (text: string) => string,
): Promise<Outcome> {
	const transferId = typeof entry.params.transferId === 'string' ? entry.params.transferId : undefined;
	const earlier = transferId === undefined ? undefined : sentBefore?.get(transferId);
	if (Array.isArray(earlier)) return { items: earlier };
	for (let attempt = 0; ; attempt++) {
		const answer = await send(context, target, entry.request);
		const outcome = interpret(operation, answer, entry, attempt > 0 || earlier === 'sent', redact);
		if (transferId !== undefined) sentBefore?.set(transferId, 'items' in outcome ? outcome.items : 'sent');
		if (!('failure' in outcome) || !outcome.failure.retryable || attempt >= retries) return outcome;
		await sleep(Math.min(MAX_BACKOFF_MS, BACKOFF_MS * 2 ** attempt));
	}
}

function unknownOutcomeHint(entry: Planned): string {
	const { transferId } = entry.params;
	if (transferId === undefined) {
		return 'The request may have reached the service, and no Transfer ID was sent, so the service chose one. Check the dashboard before running this item again.';
	}
	return `The request may have reached the service. Look up Transfer ID ${String(transferId)} in the dashboard before doing anything else; sending it again with the same Transfer ID is safe because the service refuses a duplicate.`;
}

/** Turns one answer into output items or a failure; the only place that judges answers. */
function interpret(operation: PayoutOperation, answer: Answer, entry: Planned, resent: boolean, redact: (text: string) => string): Outcome {
	const item = `[item ${entry.index}]`;
	const transferId = entry.params.transferId;
	// A transfer without a clear answer may have moved money: say so, never guess.
	const unclear = (what: string, httpStatus?: number): Failure =>
		operation.movesMoney
			? {
					message: redact(`The outcome of the transfer is unknown: ${what} ${item}`),
					hint: unknownOutcomeHint(entry),
					status: 'UNKNOWN',
					fromService: true,
					subCode: httpStatus ? String(httpStatus) : undefined,
					retryable: transferId !== undefined,
				}
			: {
					message: redact(`The service did not answer clearly: ${what} ${item}`),
					hint: 'Run the node again later; raise Options > Retries to retry automatically.',
					status: 'ERROR',
					fromService: true,
					subCode: httpStatus ? String(httpStatus) : undefined,
					retryable: true,
				};

	switch (answer.kind) {
		case 'noAnswer':
			if (!answer.reachedService) {
				return {
					failure: {
						message: `The service could not be reached: ${answer.reason} ${item}`,
						hint: "Nothing was sent. Check 'Base URL' in the Payouts API credential and the network, then run again.",
						status: 'ERROR',
						fromService: true,
						retryable: true,
					},
				};
			}
			return { failure: unclear(answer.reason) };
		case 'unreadable':
			return { failure: unclear(`the service answered HTTP ${answer.httpStatus} with a body that is not its JSON: ${answer.excerpt}`, answer.httpStatus) };
		case 'object':
			if (operation.host === 'verification' && answer.httpStatus >= 200 && answer.httpStatus < 300) {
				return { items: operation.output({ status: 'SUCCESS', subCode: String(answer.httpStatus), message: '', data: answer.body }, entry.params) };
			}
			if (operation.host === 'verification') return { failure: tokenFailure(answer.httpStatus, answer.body, item, redact) };
			return { failure: unclear(`the service answered HTTP ${answer.httpStatus} without its status envelope`, answer.httpStatus) };
		case 'envelope':
			if (operation.host === 'verification' && answer.envelope.status === 'ERROR') {
				return { failure: tokenFailure(answer.httpStatus, answer.envelope as unknown as IDataObject, item, redact) };
			}
			return envelopeOutcome(operation, answer.envelope, entry, resent, redact);
	}
}

function envelopeOutcome(operation: PayoutOperation, envelope: Envelope, entry: Planned, resent: boolean, redact: (text: string) => string): Outcome {
	if (envelope.status !== 'ERROR') return { items: operation.output(envelope, entry.params) };
	const row = findErrorRow(operation.api, envelope.subCode, envelope.message);
	const serviceMessage = redact(envelope.message);
	const item = `[item ${entry.index}]`;
	if (operation.movesMoney && resent && /transfer id already exists/i.test(envelope.message)) {
		// Our own earlier attempt reached the service: the transfer was submitted once, not twice.
		return {
			items: [
				{
					status: 'ALREADY_SUBMITTED',
					subCode: envelope.subCode,
					message: serviceMessage,
					transferId: entry.params.transferId as string,
					hint: 'An earlier attempt with this Transfer ID reached the service, so it was not sent twice. Check its outcome in the dashboard.',
				},
			],
		};
	}
	const serverSide = envelope.subCode === '520' || envelope.subCode.startsWith('5');
	const unknown = operation.movesMoney && (row.unknownOutcome === true || serverSide);
	return {
		failure: {
			message: `${unknown ? 'The outcome of the transfer is unknown: ' : ''}${serviceMessage} ${item}`,
			// A row of its own (201 "no response from bank") says it; a server fault needs the general advice.
			hint: unknown && !row.unknownOutcome ? unknownOutcomeHint(entry) : row.hint,
			status: unknown ? 'UNKNOWN' : 'ERROR',
			fromService: true,
			subCode: envelope.subCode,
			serviceMessage,
			retryable: unknown ? entry.params.transferId !== undefined : serverSide,
		},
	};
}

/** The token endpoint's errors are not in the interface document: report what it said. */
function tokenFailure(httpStatus: number, body: IDataObject, item: string, redact: (text: string) => string): Failure {
	const said = [body.message, body.error, body.error_description].find((value) => typeof value === 'string') as string | undefined;
	const serviceMessage = redact(said ?? `HTTP ${httpStatus}`);
	const subCode = typeof body.subCode === 'string' ? body.subCode : String(httpStatus);
	return {
		message: `The token request was refused: ${serviceMessage} ${item}`,
		hint: "Check 'Client ID', 'Client Secret' and 'API Version' in the Payouts API credential, and that the authorisation code is fresh: each code works once.",
		status: 'ERROR',
		fromService: true,
		subCode,
		serviceMessage,
		retryable: false,
	};
}

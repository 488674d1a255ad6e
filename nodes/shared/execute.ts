import { DateTime } from 'luxon';
import type { IDataObject, IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { displayNames } from './describe';
import { findErrorRow } from './errors';
import { guardIncidents } from './incidentGuard';
import { readOptions } from './options';
import type { RunOptions } from './options';
import { redactor } from './redact';
import { fingerprint, SentTransfers } from './sentTransfers';
import type { Before } from './sentTransfers';
import { checkedBaseUrl, CREDENTIAL_TYPE, excerpt, send } from './transport';
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
	/** Refused by our own checks before anything was sent. */
	invalid?: true;
}

type Outcome = { items: IDataObject[] } | { failure: Failure };

interface Planned {
	index: number;
	params: Params;
	request: ApiRequest;
}

/** Everything one run needs to send an item, read once. */
interface Run {
	context: IExecuteFunctions;
	operation: PayoutOperation;
	target: SendTarget;
	options: RunOptions;
	/** What this node sent before (transfers only, not in a dry run). */
	sent?: SentTransfers;
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

/** The workflow's id keys the node's record of sent transfers; n8n gives every saved workflow one. */
function workflowIdOf(context: IExecuteFunctions): string {
	const { id } = context.getWorkflow();
	if (!id) {
		throw new NodeOperationError(context.getNode(), 'Save the workflow before it sends transfers', {
			description: 'The node keeps its record of sent transfers under the workflow, so that no re-run pays twice. Nothing was sent.',
		});
	}
	return String(id);
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

	const options = readOptions(operation, this.getNodeParameter('options', 0, {}) as Parameters<typeof readOptions>[1]);
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
	const workflowId = operation.movesMoney ? workflowIdOf(this) : '';
	const run: Run = { context: this, operation, target, options, sent: operation.movesMoney && !options.dryRun ? SentTransfers.of(this, workflowId) : undefined };

	// 1. Validate every item before anything is sent.
	const outcomes = new Map<number, Outcome>();
	const secretsOf = new Map<number, unknown[]>();
	let planned: Planned[] = [];
	for (let index = 0; index < items.length; index++) {
		const checked = checkItem(this, operation, schema, names, index);
		secretsOf.set(index, [...credentialSecrets, ...checked.secrets]);
		if ('failure' in checked) outcomes.set(index, { failure: checked.failure });
		else planned.push(checked.entry);
	}
	if (operation.movesMoney) {
		for (const [index, failure] of sharedTransferIds(planned)) outcomes.set(index, { failure });
		planned = planned.filter((entry) => !outcomes.has(entry.index));
		if (operation.transferIdWhenEmpty) planned = withTransferIds(operation, planned, { workflowId, nodeId: node.id });
	}
	refuseBatchIfAny(node, outcomes, continueOnFail, 'invalid');
	const paramsOf = new Map(planned.map((entry) => [entry.index, entry.params]));

	// 1b. The Incident Guard, when chosen: every item checked against open incidents before anything is sent.
	const notes = new Map<number, IDataObject>();
	if (operation.incidentGuard && options.incidentGuard) {
		const { transferMode, beneId } = operation.incidentGuard;
		const guarded = planned.map(({ index, params }) => ({ index, params, transferMode: transferMode(params), beneId: beneId(params) }));
		const verdicts = await guardIncidents(this, target, options.incidentGuard, guarded, timezone);
		for (const [index, item] of verdicts.held) outcomes.set(index, { items: [item] });
		for (const [index, { rule, hint }] of verdicts.refused) outcomes.set(index, { failure: invalid(index, rule, hint) });
		for (const [index, note] of verdicts.notes) notes.set(index, note);
		planned = planned.filter((entry) => !outcomes.has(entry.index));
		refuseBatchIfAny(node, outcomes, continueOnFail, 'refused by the Incident Guard');
	}

	// 2. Send the valid items (or describe them, in a dry run).
	const sentItems: number[] = [];
	let stoppingFailure: { index: number; failure: Failure } | undefined;
	const perform = async (entry: Planned): Promise<boolean> => {
		const redact = redactor(secretsOf.get(entry.index) ?? credentialSecrets);
		const outcome = options.dryRun ? { items: [dryRunItem(operation, target, entry.request)] } : await sendOnce(run, entry, redact, () => sentItems.push(entry.index));
		outcomes.set(entry.index, outcome);
		if ('failure' in outcome && !continueOnFail) {
			stoppingFailure ??= { index: entry.index, failure: outcome.failure };
			return false;
		}
		return true;
	};
	await forEachBounded(planned, options.concurrency, options.requestsPerSecond, perform);
	if (stoppingFailure) {
		throw toNodeError(node, stoppingFailure.index, stoppingFailure.failure, operation.movesMoney ? stoppedBatchNote(sentItems, outcomes) : '');
	}

	// 3. Output in input order, paired with the input item.
	const errorOutput = node.onError === 'continueErrorOutput';
	const output: INodeExecutionData[] = [];
	for (let index = 0; index < items.length; index++) {
		const outcome = outcomes.get(index);
		if (!outcome) continue;
		const note = notes.get(index);
		if ('items' in outcome) {
			for (const json of outcome.items) output.push({ json: { ...json, ...note }, pairedItem: { item: index } });
		} else {
			const params = paramsOf.get(index);
			const json = errorOutput ? errorOutputItem(outcome.failure, params) : errorItem(outcome.failure, params);
			// The error output routes items whose only field is `error`: a note goes inside it.
			if (note && errorOutput) Object.assign(json.error as IDataObject, note);
			else if (note) Object.assign(json, note);
			output.push({ json, pairedItem: { item: index } });
		}
	}
	return [output];
}

/**
 * Items refused before the first request (invalid, or refused by the Incident Guard) stop the whole
 * batch unless the user chose to continue on failure: a batch with a bad row moves no money.
 */
function refuseBatchIfAny(node: ReturnType<IExecuteFunctions['getNode']>, outcomes: Map<number, Outcome>, continueOnFail: boolean, what: string) {
	if (continueOnFail) return;
	const refused = [...outcomes.keys()].filter((index) => 'failure' in (outcomes.get(index) as Outcome)).sort((a, b) => a - b);
	if (refused.length === 0) return;
	const first = outcomes.get(refused[0]) as { failure: Failure };
	const rest = refused.slice(1);
	const others = rest.length > 0 ? ` Also ${what}: item${rest.length > 1 ? 's' : ''} ${rest.join(', ')}.` : '';
	throw toNodeError(node, refused[0], first.failure, `No item was sent: every item is checked before the first request.${others}`);
}

/**
 * Every item whose request may have reached the service, with what is known of it, so that a
 * stopped batch never leaves a paid row unaccounted for (several may be in flight at once).
 */
function stoppedBatchNote(sentItems: number[], outcomes: Map<number, Outcome>): string {
	if (sentItems.length === 0) return '';
	const statusOf = (index: number) => {
		const outcome = outcomes.get(index);
		if (!outcome) return 'no answer yet';
		return 'items' in outcome ? String(outcome.items[0]?.status) : outcome.failure.status;
	};
	const list = [...sentItems].sort((a, b) => a - b).map((index) => `${index} (${statusOf(index)})`);
	return `Items sent in this run: ${list.join(', ')}. Run the same items again with the same Transfer IDs: this node sends only what it has not sent before, and reports the rest as ALREADY_SUBMITTED.`;
}

/** Two rows with one Transfer ID would be one transfer: neither is sent, and each names the other. */
function sharedTransferIds(planned: Planned[]): Map<number, Failure> {
	const byId = new Map<string, number[]>();
	for (const { index, params } of planned) {
		if (typeof params.transferId === 'string') byId.set(params.transferId, [...(byId.get(params.transferId) ?? []), index]);
	}
	const failures = new Map<number, Failure>();
	for (const [transferId, indexes] of byId) {
		if (indexes.length < 2) continue;
		for (const index of indexes) {
			const others = indexes.filter((other) => other !== index).join(', ');
			failures.set(index, invalid(index, `'Transfer ID' ${transferId} is also used by item ${others}`, "Give each row its own 'Transfer ID': one Transfer ID is one transfer."));
		}
	}
	return failures;
}

/** Gives items without a Transfer ID the operation's stable one (internal transfers). */
function withTransferIds(operation: PayoutOperation, planned: Planned[], origin: { workflowId: string; nodeId: string }): Planned[] {
	const seen = new Map<string, number>();
	return planned.map((entry) => {
		if (entry.params.transferId !== undefined) return entry;
		const values = fingerprint(operation.value, entry.request.body ?? {});
		const occurrence = seen.get(values) ?? 0;
		seen.set(values, occurrence + 1);
		const params = { ...entry.params, transferId: operation.transferIdWhenEmpty?.(entry.params, { ...origin, occurrence }) };
		return { ...entry, params, request: operation.request(params) };
	});
}

/** Reads one item's parameters and checks them against the operation's rules; never throws. */
function checkItem(
	context: IExecuteFunctions,
	operation: PayoutOperation,
	schema: ReturnType<PayoutOperation['schema']>,
	names: Map<string, string>,
	index: number,
): ({ entry: Planned } | { failure: Failure }) & { secrets: unknown[] } {
	const secretFields = operation.secretFields ?? [];
	let raw: Params = {};
	try {
		raw = definedOnly(readParameters(context, operation, index));
		const secrets = secretFields.map((field) => raw[field]);
		const result = schema.safeParse(raw);
		// What is sent counts as a secret too: the rules trim white space.
		if (result.success) return { entry: { index, params: result.data, request: operation.request(result.data) }, secrets: [...secrets, ...secretFields.map((field) => result.data[field])] };
		const fields = [...new Set(result.error.issues.map((issue) => String(issue.path[0] ?? '')))];
		const label = (field: string) => `'${names.get(field) ?? (field || 'a parameter')}'`;
		const broken = result.error.issues.map((issue) => {
			const field = String(issue.path[0] ?? '');
			const given = secretFields.includes(field) || raw[field] === undefined ? '' : ` (given: ${shown(raw[field])})`;
			return `${label(field)} ${issue.message}${given}`;
		});
		return { failure: invalid(index, broken.join('; '), `Correct ${listed(fields.map(label))} in item ${index}.`), secrets };
	} catch (error) {
		const secrets = secretFields.map((field) => raw[field]);
		const reason = redactor(secrets)((error as Error).message ?? String(error));
		return { failure: invalid(index, `The parameters could not be read: ${reason}`, 'Fix the expression or value of the parameter the message names.'), secrets };
	}
}

/** A value as the user gave it, short enough for a message. */
function shown(value: unknown): string {
	const text = typeof value === 'string' ? JSON.stringify(value) : String(JSON.stringify(value) ?? value);
	return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

const listed = (names: string[]) => (names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`);

function definedOnly(raw: Params): Params {
	return Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== undefined && value !== ''));
}

function invalid(index: number, rule: string, hint: string): Failure {
	return { message: `${rule} [item ${index}]`, hint, status: 'ERROR', fromService: false, retryable: false, invalid: true };
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
		hint: failure.invalid ? `${failure.hint} Nothing was sent for this item.` : failure.hint,
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

/**
 * Sends one item at most once per run, guided by the node's record of what it sent before:
 * - never sent: recorded as in flight, then sent;
 * - sent before with these values and clearly answered: not sent again, ALREADY_SUBMITTED;
 * - sent before with these values without a clear answer: sent again with the same Transfer ID
 *   where the service refuses duplicates (its answer decides), otherwise reported UNKNOWN;
 * - the Transfer ID sent before with other values: a conflict, not sent.
 */
async function sendOnce(run: Run, entry: Planned, redact: (text: string) => string, onSend: () => void): Promise<Outcome> {
	const { operation, sent } = run;
	const transferId = entry.params.transferId as string | undefined;
	if (!sent || transferId === undefined) {
		onSend();
		return await sendWithRetries(run, entry, false, redact);
	}
	const print = fingerprint(operation.value, entry.request.body ?? {});
	let before: Before;
	try {
		before = await sent.claim(transferId, print);
	} catch (error) {
		return { failure: recordFailure(entry, error) };
	}
	if (before === 'conflict') return { failure: conflict(entry) };
	if (before === 'answered') {
		await sent.answered(transferId, print).catch(() => undefined);
		return { items: [alreadySubmitted(entry)] };
	}
	if (before === 'unanswered' && !operation.refusesDuplicateTransferId) return { failure: unansweredBefore(entry) };
	onSend();
	const outcome = await sendWithRetries(run, entry, before === 'unanswered', redact);
	// A failed bookkeeping call never hides the outcome: at worst a later run reports UNKNOWN.
	if ('items' in outcome) await sent.answered(transferId, print).catch(() => undefined);
	else if (outcome.failure.status === 'ERROR') await sent.refused(transferId, print).catch(() => undefined);
	return outcome;
}

async function sendWithRetries(run: Run, entry: Planned, resent: boolean, redact: (text: string) => string): Promise<Outcome> {
	const { context, operation, target, options } = run;
	for (let attempt = 0; ; attempt++) {
		const answer = await send(context, target, entry.request);
		const outcome = interpret(operation, answer, entry, resent || attempt > 0, redact);
		if (!('failure' in outcome) || !outcome.failure.retryable || attempt >= options.retries) return outcome;
		await sleep(Math.min(MAX_BACKOFF_MS, BACKOFF_MS * 2 ** attempt));
	}
}

/**
 * This node's own earlier request with this row's values reached the service: from the node's
 * record (answered then), or from the service refusing the repeat as a duplicate (`answer`).
 */
function alreadySubmitted(entry: Planned, answer?: { subCode: string; message: string }): IDataObject {
	return {
		status: 'ALREADY_SUBMITTED',
		subCode: answer?.subCode ?? null,
		message: answer?.message ?? 'This node sent this transfer with these values before, and the service answered it then',
		transferId: entry.params.transferId as string,
		hint: 'Not paid again: an earlier request of this node with this Transfer ID and these values reached the service. Its outcome is in the dashboard (and in the earlier execution).',
	};
}

function conflict(entry: Planned): Failure {
	const transferId = String(entry.params.transferId);
	return {
		message: `This node sent Transfer ID ${transferId} before with other values [item ${entry.index}]`,
		hint: `One Transfer ID is one transfer, so nothing was sent. If this row is a new transfer, give it a new 'Transfer ID'; if it corrects the earlier one, look up ${transferId} in the dashboard first.`,
		status: 'ERROR',
		fromService: false,
		retryable: false,
	};
}

function unansweredBefore(entry: Planned): Failure {
	const transferId = String(entry.params.transferId);
	return {
		message: `The outcome of the transfer is unknown: this node sent it before and no clear answer came [item ${entry.index}]`,
		hint: `Not sent again: the service may not refuse a repeated internal transfer. Look up Transfer ID ${transferId} in the dashboard; if it is not there, send the row with a new 'Transfer ID' under Additional Fields.`,
		status: 'UNKNOWN',
		fromService: false,
		retryable: false,
	};
}

function recordFailure(entry: Planned, error: unknown): Failure {
	return {
		message: `The node could not record the transfer before sending it [item ${entry.index}]`,
		hint: `Nothing was sent. n8n's processed-data store answered: ${(error as Error)?.message ?? String(error)}. Run the item again once n8n's database is reachable.`,
		status: 'ERROR',
		fromService: false,
		retryable: false,
	};
}

function unknownOutcomeHint(entry: Planned, operation: PayoutOperation): string {
	const { transferId } = entry.params;
	const resend = operation.refusesDuplicateTransferId
		? 'sending it again with the same Transfer ID is safe because the service refuses a duplicate.'
		: 'this node will not send it again, because the service may not refuse a repeated internal transfer.';
	return `The request may have reached the service. Look up Transfer ID ${String(transferId)} in the dashboard before doing anything else; ${resend}`;
}

/** Turns one answer into output items or a failure; the only place that judges answers. */
function interpret(operation: PayoutOperation, answer: Answer, entry: Planned, resent: boolean, redact: (text: string) => string): Outcome {
	const item = `[item ${entry.index}]`;
	// A transfer without a clear answer may have moved money: say so, never guess.
	const unclear = (what: string, httpStatus?: number): Failure =>
		operation.movesMoney
			? {
					message: redact(`The outcome of the transfer is unknown: ${what} ${item}`),
					hint: unknownOutcomeHint(entry, operation),
					status: 'UNKNOWN',
					fromService: true,
					subCode: httpStatus ? String(httpStatus) : undefined,
					retryable: operation.refusesDuplicateTransferId === true,
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
			return { failure: unclear(`the service answered HTTP ${answer.httpStatus} with a body that is not its JSON: ${excerpt(redact(answer.text))}`, answer.httpStatus) };
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
		// This node's own earlier request with these values reached the service: submitted once, not twice.
		return { items: [alreadySubmitted(entry, { subCode: envelope.subCode, message: serviceMessage })] };
	}
	const serverSide = envelope.subCode === '520' || envelope.subCode.startsWith('5');
	const unknown = operation.movesMoney && (row.unknownOutcome === true || serverSide);
	return {
		failure: {
			message: `${unknown ? 'The outcome of the transfer is unknown: ' : ''}${serviceMessage} ${item}`,
			// A row of its own (201 "no response from bank") says it; a server fault needs the general advice.
			hint: unknown && !row.unknownOutcome ? unknownOutcomeHint(entry, operation) : row.hint,
			status: unknown ? 'UNKNOWN' : 'ERROR',
			fromService: true,
			subCode: envelope.subCode,
			serviceMessage,
			retryable: unknown ? operation.refusesDuplicateTransferId === true : serverSide,
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

import type { INodeProperties } from 'n8n-workflow';

import type { PayoutOperation } from './types';

/** Behaviour switches of the `options` collection, with safe defaults per kind of operation. */
export interface RunOptions {
	concurrency: number;
	dryRun: boolean;
	requestsPerSecond: number;
	retries: number;
	timeout: number;
}

type Kind = 'transfer' | 'read' | 'token';

export function kindOf(operation: PayoutOperation): Kind {
	if (operation.movesMoney) return 'transfer';
	return operation.host === 'verification' ? 'token' : 'read';
}

/** Transfers one at a time and never re-sent unless asked; reads several at a time, retried. */
export const DEFAULTS: Record<Kind, RunOptions> = {
	transfer: { concurrency: 1, dryRun: false, requestsPerSecond: 0, retries: 0, timeout: 30000 },
	read: { concurrency: 4, dryRun: false, requestsPerSecond: 0, retries: 2, timeout: 30000 },
	// An authorisation code works once: a token request is never repeated.
	token: { concurrency: 1, dryRun: false, requestsPerSecond: 0, retries: 0, timeout: 30000 },
};

const MAX_CONCURRENCY = 20;
const MAX_RETRIES = 5;

const concurrency = (kind: Kind): INodeProperties => ({
	displayName: 'Concurrency',
	name: 'concurrency',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY, numberPrecision: 0 },
	default: DEFAULTS[kind].concurrency,
	description:
		kind === 'transfer'
			? 'How many transfers may be in flight at once. Output keeps the input order. Raise it only if your account allows parallel payouts.'
			: 'How many requests may be in flight at once. Output keeps the input order.',
});

const dryRun: INodeProperties = {
	displayName: 'Dry Run',
	name: 'dryRun',
	type: 'boolean',
	default: false,
	description: 'Whether to validate every item and output the exact request that would be sent (secrets masked) without sending anything',
};

const requestsPerSecond: INodeProperties = {
	displayName: 'Requests Per Second',
	name: 'requestsPerSecond',
	type: 'number',
	typeOptions: { minValue: 0, numberPrecision: 2 },
	default: 0,
	description: 'Upper bound on requests started per second, for accounts with rate limits. 0 means no bound.',
};

const retries = (kind: Kind): INodeProperties => ({
	displayName: kind === 'transfer' ? 'Retries of Unknown Outcomes' : 'Retries',
	name: 'retries',
	type: 'number',
	typeOptions: { minValue: 0, maxValue: MAX_RETRIES, numberPrecision: 0 },
	default: DEFAULTS[kind].retries,
	description:
		kind === 'transfer'
			? 'How often to send a transfer again, with the same Transfer ID, when no clear answer came (timeout, dropped connection, 5xx). The service refuses a duplicate Transfer ID, so no one is paid twice.'
			: 'How often to retry after a connection error, a timeout, a 5xx or a 520 answer, waiting longer each time. 4xx answers are never retried.',
});

const timeout: INodeProperties = {
	displayName: 'Timeout',
	name: 'timeout',
	type: 'number',
	typeOptions: { minValue: 1000, numberPrecision: 0 },
	default: 30000,
	description: 'How long to wait for an answer, in milliseconds',
};

/** The `options` collection of one operation, alphabetical as n8n's guidelines ask. */
export function optionsFor(operation: PayoutOperation): INodeProperties {
	const kind = kindOf(operation);
	const choices: Record<Kind, INodeProperties[]> = {
		transfer: [concurrency(kind), dryRun, requestsPerSecond, retries(kind), timeout],
		read: [concurrency(kind), requestsPerSecond, retries(kind), timeout],
		token: [timeout],
	};
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: choices[kind],
	};
}

export function readOptions(operation: PayoutOperation, given: Partial<RunOptions>): RunOptions {
	const defaults = DEFAULTS[kindOf(operation)];
	const whole = (value: unknown, fallback: number, min: number, max: number) =>
		typeof value === 'number' && Number.isFinite(value) ? Math.min(max, Math.max(min, Math.floor(value))) : fallback;
	return {
		concurrency: whole(given.concurrency, defaults.concurrency, 1, MAX_CONCURRENCY),
		dryRun: given.dryRun === true,
		requestsPerSecond: typeof given.requestsPerSecond === 'number' && given.requestsPerSecond > 0 ? given.requestsPerSecond : 0,
		retries: kindOf(operation) === 'token' ? 0 : whole(given.retries, defaults.retries, 0, MAX_RETRIES),
		timeout: whole(given.timeout, defaults.timeout, 1000, 600000),
	};
}

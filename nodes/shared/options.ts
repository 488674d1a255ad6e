import type { INodeProperties } from 'n8n-workflow';

import { incidentGuardOption, readGuardSettings } from './incidentGuard';
import type { GuardSettings } from './incidentGuard';
import type { PayoutOperation } from './types';

/** Behaviour switches of the `options` collection, with safe defaults per kind of operation. */
export interface RunOptions {
	allowAgentUse: boolean;
	concurrency: number;
	dryRun: boolean;
	requestsPerSecond: number;
	retries: number;
	timeout: number;
	/** Standard transfers: check items against open bank incidents first (off when undefined). */
	incidentGuard?: GuardSettings;
}

type Kind = 'transfer' | 'read' | 'token';

export function kindOf(operation: PayoutOperation): Kind {
	if (operation.movesMoney) return 'transfer';
	return operation.host === 'verification' ? 'token' : 'read';
}

/** Transfers one at a time and never re-sent unless asked; reads several at a time, retried. */
export const DEFAULTS: Record<Kind, RunOptions> = {
	transfer: { allowAgentUse: false, concurrency: 1, dryRun: false, requestsPerSecond: 0, retries: 0, timeout: 30000 },
	read: { allowAgentUse: true, concurrency: 4, dryRun: false, requestsPerSecond: 0, retries: 2, timeout: 30000 },
	// An authorisation code works once: a token request is never repeated.
	token: { allowAgentUse: false, concurrency: 1, dryRun: false, requestsPerSecond: 0, retries: 0, timeout: 30000 },
};

const MAX_CONCURRENCY = 20;
const MAX_RETRIES = 5;

const concurrencyOf = (defaultValue: number, description: string): INodeProperties => ({
	displayName: 'Concurrency',
	name: 'concurrency',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY, numberPrecision: 0 },
	default: defaultValue,
	description,
});

// Money and tokens should not move on a language model's say-so: an explicit opt-in.
const allowAgentUse: INodeProperties = {
	displayName: 'Allow Use by AI Agents',
	name: 'allowAgentUse',
	type: 'boolean',
	default: false,
	description:
		'Whether this node may run when an AI agent calls it as a tool. Off by default: an agent could invent amounts, beneficiaries or Transfer IDs, or see secrets.',
};

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

const transferRetries: INodeProperties = {
	displayName: 'Retries of Unknown Outcomes',
	name: 'retries',
	type: 'number',
	typeOptions: { minValue: 0, maxValue: MAX_RETRIES, numberPrecision: 0 },
	default: 0,
	description:
		'How often to send a transfer again, with the same Transfer ID, when no clear answer came (timeout, dropped connection, 5xx). The service refuses a duplicate Transfer ID, so no one is paid twice.',
};

const readRetries: INodeProperties = {
	displayName: 'Retries',
	name: 'retries',
	type: 'number',
	typeOptions: { minValue: 0, maxValue: MAX_RETRIES, numberPrecision: 0 },
	default: 2,
	description: 'How often to retry after a connection error, a timeout, a 5xx or a 520 answer, waiting longer each time. 4xx answers are never retried.',
};

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
		transfer: [
			allowAgentUse,
			concurrencyOf(1, 'How many transfers may be in flight at once. Output keeps the input order. Raise it only if your account allows parallel payouts.'),
			dryRun,
			// Only where the operation says which mode and beneficiary an item uses.
			...(operation.incidentGuard ? [incidentGuardOption] : []),
			requestsPerSecond,
			// Only where the service refuses a repeated Transfer ID is a re-send safe.
			...(operation.refusesDuplicateTransferId ? [transferRetries] : []),
			timeout,
		],
		read: [concurrencyOf(4, 'How many requests may be in flight at once. Output keeps the input order.'), requestsPerSecond, readRetries, timeout],
		token: [allowAgentUse, timeout],
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

export function readOptions(operation: PayoutOperation, given: Partial<Omit<RunOptions, 'incidentGuard'>> & { incidentGuard?: unknown }): RunOptions {
	const defaults = DEFAULTS[kindOf(operation)];
	const whole = (value: unknown, fallback: number, min: number, max: number) =>
		typeof value === 'number' && Number.isFinite(value) ? Math.min(max, Math.max(min, Math.floor(value))) : fallback;
	return {
		allowAgentUse: defaults.allowAgentUse || given.allowAgentUse === true,
		concurrency: whole(given.concurrency, defaults.concurrency, 1, MAX_CONCURRENCY),
		dryRun: given.dryRun === true,
		requestsPerSecond: typeof given.requestsPerSecond === 'number' && given.requestsPerSecond > 0 ? given.requestsPerSecond : 0,
		retries: kindOf(operation) === 'token' || (operation.movesMoney && !operation.refusesDuplicateTransferId) ? 0 : whole(given.retries, defaults.retries, 0, MAX_RETRIES),
		timeout: whole(given.timeout, defaults.timeout, 1000, 600000),
		incidentGuard: operation.incidentGuard ? readGuardSettings(given.incidentGuard) : undefined,
	};
}

import type { INodeProperties } from 'n8n-workflow';

import { incidentGuardOption, readGuardSettings } from './incidentGuardOption';
import type { GuardSettings } from './incidentGuardOption';
import { DASHBOARD_STATUS_OPTION, DASHBOARD_WORDS } from './dashboardStatus';
import type { PayoutOperation } from '../types';

/** Behaviour switches of the `options` collection, with safe defaults per kind of operation. */
export interface RunOptions {
	allowAgentUse: boolean;
	concurrency: number;
	dryRun: boolean;
	requestsPerSecond: number;
	retries: number;
	timeout: number;
	/** Internal transfers: rows without a Transfer ID or Top-Up Key are new transfers in every run. */
	payEveryRun: boolean;
	/** Internal transfers: the user says the service refuses a repeated Transfer ID, as for card and standard. */
	serviceRefusesRepeats: boolean;
	/** Internal transfers: an earlier step holds each row's claim (e.g. a Postgres insert one execution wins): no record of its own. */
	claimHeldEarlier: boolean;
	/** Standard transfers: check items against open bank incidents first (off when undefined). */
	incidentGuard?: GuardSettings;
}

type Kind = 'transfer' | 'read' | 'token';

export function kindOf(operation: PayoutOperation): Kind {
	if (operation.movesMoney) return 'transfer';
	return operation.host === 'verification' ? 'token' : 'read';
}

/** Transfers one at a time and never re-sent unless asked; reads several at a time, retried. */
export const DEFAULTS: Record<
	Kind,
	Omit<RunOptions, 'payEveryRun' | 'serviceRefusesRepeats' | 'claimHeldEarlier'>
> = {
	transfer: {
		allowAgentUse: false,
		concurrency: 1,
		dryRun: false,
		requestsPerSecond: 0,
		retries: 0,
		timeout: 30000,
	},
	read: {
		allowAgentUse: true,
		concurrency: 4,
		dryRun: false,
		requestsPerSecond: 0,
		retries: 2,
		timeout: 30000,
	},
	// An authorisation code works once: a token request is never repeated.
	token: {
		allowAgentUse: false,
		concurrency: 1,
		dryRun: false,
		requestsPerSecond: 0,
		retries: 0,
		timeout: 30000,
	},
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

// Rows in doubt are settled with it (settle.ts); the words are the dashboard's own. An input the
// user maps, so its label says what to do with it (its name, which saved workflows hold, stays).
const dashboardStatus: INodeProperties = {
	displayName: DASHBOARD_STATUS_OPTION.replace(/^Options > '(.*)'$/, '$1'),
	name: 'dashboardStatus',
	type: 'string',
	default: '',
	placeholder: 'e.g. {{ $json.dashboardStatus }}',
	description: `For rows that read UNKNOWN: map the dashboard's status of the row's Transfer ID. ${DASHBOARD_WORDS.paid.join(' or ')}: paid, never sent again. ${DASHBOARD_WORDS.failed.join(', ')}: not paid, and never under this Transfer ID.`,
};

const dryRun: INodeProperties = {
	displayName: 'Dry Run',
	name: 'dryRun',
	type: 'boolean',
	default: false,
	description:
		'Whether to check every item and output the request a real run would send (secrets masked), and which rows a real run would not pay because this node sent them before, without sending anything',
};

const payEveryRun: INodeProperties = {
	displayName: 'Pay Again on Every Run',
	name: 'payEveryRun',
	type: 'boolean',
	default: false,
	description:
		"Whether rows without a 'Transfer ID' or 'Top-Up Key' are new transfers in each new execution (a redelivered event too); n8n's Retry of a failed execution and Retry On Fail pay nothing again",
};

// Internal top-ups in queue mode: the node's own record holds in one n8n process only (docs/queue-claims.md);
// the claim is a guard more, the record is kept as everywhere.
const claimHeldEarlier: INodeProperties = {
	displayName: 'Claim Held by an Earlier Step',
	name: 'claimHeldEarlier',
	type: 'boolean',
	default: false,
	description:
		"Whether an earlier step claimed each row's Transfer ID so only one execution gets it (a Postgres insert skipping conflicts): needed on queue-mode workers. The node keeps its record too.",
};

const serviceRefusesRepeats: INodeProperties = {
	displayName: 'Service Refuses Repeated Transfer IDs',
	name: 'serviceRefusesRepeats',
	type: 'boolean',
	default: false,
	description:
		"Whether your service refuses a second internal transfer with a Transfer ID it has, as for card and standard. The service's documentation does not say so: turn it on only if the service confirms it.",
};

const requestsPerSecond: INodeProperties = {
	displayName: 'Requests Per Second',
	name: 'requestsPerSecond',
	type: 'number',
	typeOptions: { minValue: 0, numberPrecision: 2 },
	default: 0,
	description:
		'Upper bound on requests started per second, for accounts with rate limits. 0 means no bound.',
};

const transferRetries: INodeProperties = {
	displayName: 'Resend If No Clear Answer',
	name: 'retries',
	type: 'number',
	typeOptions: { minValue: 0, maxValue: MAX_RETRIES, numberPrecision: 0 },
	default: 0,
	description:
		'How often to send a transfer again with the same Transfer ID after no clear answer (a timeout, a dropped connection, a 5xx), waiting longer each time. Safe: the service refuses a repeat.',
};

const readRetries: INodeProperties = {
	displayName: 'Retries',
	name: 'retries',
	type: 'number',
	typeOptions: { minValue: 0, maxValue: MAX_RETRIES, numberPrecision: 0 },
	default: 2,
	description:
		'How often to retry after a connection error, a timeout, a 5xx or a 520 answer, waiting longer each time. 4xx answers are never retried.',
};

const timeout: INodeProperties = {
	displayName: 'Timeout (Ms)',
	name: 'timeout',
	type: 'number',
	typeOptions: { minValue: 1000, numberPrecision: 0 },
	default: 30000,
	description: "How long to wait for the service's answer, in milliseconds",
};

const transferTimeout: INodeProperties = {
	...timeout,
	description:
		"How long to wait for the service's answer, in milliseconds. A transfer whose answer does not come in time has an unknown outcome: it may have been paid.",
};

/**
 * Options that act only on one side of 'Service Refuses Repeated Transfer IDs' (internal transfers)
 * are shown only there: n8n reads a collection option's display rule against the collection's own
 * values, as the editor's option picker and the run do.
 */
const whereTheServiceGuards = (option: INodeProperties): INodeProperties => ({
	...option,
	displayOptions: { show: { serviceRefusesRepeats: [true] } },
});
const whereTheNodeGuards = (option: INodeProperties): INodeProperties => ({
	...option,
	displayOptions: { hide: { serviceRefusesRepeats: [true] } },
});

/** The `options` collection of one operation, alphabetical as n8n's guidelines ask. */
export function optionsFor(operation: PayoutOperation): INodeProperties {
	const kind = kindOf(operation);
	const choices: Record<Kind, INodeProperties[]> = {
		transfer: [
			allowAgentUse,
			...(operation.transferIdWhenEmpty ? [whereTheNodeGuards(claimHeldEarlier)] : []),
			concurrencyOf(
				1,
				'How many transfers are sent at once; output keeps the input order. Raise it only if your account allows parallel payouts. If n8n is killed mid-batch, the rows under way may read UNKNOWN.',
			),
			dryRun,
			// Only where the operation says which mode and beneficiary an item uses.
			...(operation.incidentGuard ? [incidentGuardOption] : []),
			...(operation.transferIdWhenEmpty ? [payEveryRun] : []),
			requestsPerSecond,
			operation.refusesDuplicateTransferId
				? transferRetries
				: whereTheServiceGuards(transferRetries),
			...(operation.refusesDuplicateTransferId ? [] : [serviceRefusesRepeats]),
			dashboardStatus,
			transferTimeout,
		],
		read: [
			concurrencyOf(4, 'How many requests may be in flight at once. Output keeps the input order.'),
			requestsPerSecond,
			readRetries,
			timeout,
		],
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

export function readOptions(
	operation: PayoutOperation,
	given: Partial<Omit<RunOptions, 'incidentGuard'>> & { incidentGuard?: unknown },
): RunOptions {
	const defaults = DEFAULTS[kindOf(operation)];
	const whole = (value: unknown, fallback: number, min: number, max: number) =>
		typeof value === 'number' && Number.isFinite(value)
			? Math.min(max, Math.max(min, Math.floor(value)))
			: fallback;
	const serviceRefusesRepeats =
		operation.refusesDuplicateTransferId === true || given.serviceRefusesRepeats === true;
	return {
		allowAgentUse: defaults.allowAgentUse || given.allowAgentUse === true,
		concurrency: whole(given.concurrency, defaults.concurrency, 1, MAX_CONCURRENCY),
		dryRun: given.dryRun === true,
		requestsPerSecond:
			typeof given.requestsPerSecond === 'number' && given.requestsPerSecond > 0
				? given.requestsPerSecond
				: 0,
		// A transfer is sent again only where the service refuses a repeated Transfer ID.
		retries:
			kindOf(operation) === 'token' || (operation.movesMoney && !serviceRefusesRepeats)
				? 0
				: whole(given.retries, defaults.retries, 0, MAX_RETRIES),
		timeout: whole(given.timeout, defaults.timeout, 1000, 600000),
		payEveryRun: given.payEveryRun === true,
		serviceRefusesRepeats,
		claimHeldEarlier:
			!serviceRefusesRepeats &&
			operation.transferIdWhenEmpty !== undefined &&
			given.claimHeldEarlier === true,
		incidentGuard: operation.incidentGuard ? readGuardSettings(given.incidentGuard) : undefined,
	};
}

import type { INodeProperties } from 'n8n-workflow';

import { DASHBOARD_STATUS_OPTION, DASHBOARD_WORDS } from './dashboardStatus';

/**
 * Each option of the Options collection as the editor shows it, and the bounds the run holds them
 * to. Which operation shows which, and how the run reads them: options.ts.
 */

/** The editor offers no more, and a run reads no more (readOptions clamps to them). */
export const MAX_CONCURRENCY = 20;
export const MAX_RETRIES = 5;

const concurrencyOf = (defaultValue: number, description: string): INodeProperties => ({
	displayName: 'Concurrency',
	name: 'concurrency',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: MAX_CONCURRENCY, numberPrecision: 0 },
	default: defaultValue,
	description,
});

export const transferConcurrency = concurrencyOf(
	1,
	'How many transfers are sent at once; output keeps the input order. Raise it only if your account allows parallel payouts. If n8n is killed mid-batch, the rows under way may read UNKNOWN.',
);

export const readConcurrency = concurrencyOf(
	4,
	'How many requests may be in flight at once. Output keeps the input order.',
);

// Money and tokens should not move on a language model's say-so: an explicit opt-in.
export const allowAgentUse: INodeProperties = {
	displayName: 'Allow Use by AI Agents',
	name: 'allowAgentUse',
	type: 'boolean',
	default: false,
	description:
		'Whether this node may run when an AI agent calls it as a tool. Off by default: an agent could invent amounts, beneficiaries or Transfer IDs, or see secrets.',
};

// Rows in doubt are settled with it (settle.ts); the words are the dashboard's own. An input the
// user maps, so its label says what to do with it (its name, which saved workflows hold, stays).
export const dashboardStatus: INodeProperties = {
	displayName: DASHBOARD_STATUS_OPTION.replace(/^Options > '(.*)'$/, '$1'),
	name: 'dashboardStatus',
	type: 'string',
	default: '',
	placeholder: 'e.g. {{ $json.dashboardStatus }}',
	description: `For rows that read UNKNOWN: map the dashboard's status of the row's Transfer ID. ${DASHBOARD_WORDS.paid.join(' or ')}: paid, never sent again. ${DASHBOARD_WORDS.failed.join(', ')}: not paid, and never under this Transfer ID.`,
};

export const dryRun: INodeProperties = {
	displayName: 'Dry Run',
	name: 'dryRun',
	type: 'boolean',
	default: false,
	description:
		'Whether to check every item and output the request a real run would send (secrets masked), and which rows a real run would not pay because this node sent them before, without sending anything',
};

export const payEveryRun: INodeProperties = {
	displayName: 'Pay Again on Every Run',
	name: 'payEveryRun',
	type: 'boolean',
	default: false,
	description:
		"Whether rows without a 'Transfer ID' or 'Top-Up Key' are new transfers in each new execution (a redelivered event too); n8n's Retry of a failed execution and Retry On Fail pay nothing again",
};

// Internal top-ups in queue mode: the node's own record holds in one n8n process only (docs/queue-claims.md);
// the claim is a guard more, the record is kept as everywhere.
export const claimHeldEarlier: INodeProperties = {
	displayName: 'Claim Held by an Earlier Step',
	name: 'claimHeldEarlier',
	type: 'boolean',
	default: false,
	description:
		"Whether an earlier step claimed each row's Transfer ID so only one execution gets it (a Postgres insert skipping conflicts): needed on queue-mode workers. The node keeps its record too.",
};

export const serviceRefusesRepeats: INodeProperties = {
	displayName: 'Service Refuses Repeated Transfer IDs',
	name: 'serviceRefusesRepeats',
	type: 'boolean',
	default: false,
	description:
		"Whether your service refuses a second internal transfer with a Transfer ID it has, as for card and standard. The service's documentation does not say so: turn it on only if the service confirms it.",
};

export const requestsPerSecond: INodeProperties = {
	displayName: 'Requests Per Second',
	name: 'requestsPerSecond',
	type: 'number',
	typeOptions: { minValue: 0, numberPrecision: 2 },
	default: 0,
	description:
		'Upper bound on requests started per second, for accounts with rate limits. 0 means no bound.',
};

export const transferRetries: INodeProperties = {
	displayName: 'Resend If No Clear Answer',
	name: 'retries',
	type: 'number',
	typeOptions: { minValue: 0, maxValue: MAX_RETRIES, numberPrecision: 0 },
	default: 0,
	description:
		'How often to send a transfer again with the same Transfer ID after no clear answer (a timeout, a dropped connection, a 5xx), waiting longer each time. Safe: the service refuses a repeat.',
};

export const readRetries: INodeProperties = {
	displayName: 'Retries',
	name: 'retries',
	type: 'number',
	typeOptions: { minValue: 0, maxValue: MAX_RETRIES, numberPrecision: 0 },
	default: 2,
	description:
		'How often to retry after a connection error, a timeout, a 5xx or a 520 answer, waiting longer each time. 4xx answers are never retried.',
};

export const timeout: INodeProperties = {
	displayName: 'Timeout (Ms)',
	name: 'timeout',
	type: 'number',
	typeOptions: { minValue: 1000, numberPrecision: 0 },
	default: 30000,
	description: "How long to wait for the service's answer, in milliseconds",
};

export const transferTimeout: INodeProperties = {
	...timeout,
	description:
		"How long to wait for the service's answer, in milliseconds. A transfer whose answer does not come in time has an unknown outcome: it may have been paid.",
};

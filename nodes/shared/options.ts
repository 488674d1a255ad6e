import type { INodeProperties } from 'n8n-workflow';

import { incidentGuardOption, readGuardSettings } from './incidentGuardOption';
import type { GuardSettings } from './incidentGuardOption';
import type { PayoutOperation } from './types';

/** Behaviour switches of the `options` collection, with safe defaults per kind of operation. */
export interface RunOptions {
	allowAgentUse: boolean;
	concurrency: number;
	/** Transfers: what the dashboard says of Transfer IDs the node reported UNKNOWN. */
	dashboardOutcomes: DashboardOutcomes;
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

/**
 * What the payouts dashboard says of a transfer whose outcome the node could not know: paid, or
 * not paid at the user's n-th look (a "not paid" is acted on once: after another unknown
 * outcome the node asks for the next look).
 */
export type DashboardOutcome = { paid: true } | { paid: false; look: number };
export type DashboardOutcomes = Map<string, DashboardOutcome>;

/** Transfers one at a time and never re-sent unless asked; reads several at a time, retried. */
export const DEFAULTS: Record<Kind, Omit<RunOptions, 'dashboardOutcomes'>> = {
	transfer: { allowAgentUse: false, concurrency: 1, dryRun: false, requestsPerSecond: 0, retries: 0, timeout: 30000 },
	read: { allowAgentUse: true, concurrency: 4, dryRun: false, requestsPerSecond: 0, retries: 2, timeout: 30000 },
	// An authorisation code works once: a token request is never repeated.
	token: { allowAgentUse: false, concurrency: 1, dryRun: false, requestsPerSecond: 0, retries: 0, timeout: 30000 },
};

/**
 * Options > Dashboard Outcomes: one line per Transfer ID, "<Transfer ID> paid", "<Transfer ID> not
 * paid", or "<Transfer ID> not paid <n>" for the n-th look (blank lines ignored). Returns the
 * outcomes, or the first line it cannot read.
 */
export function parseDashboardOutcomes(text: unknown): { outcomes: DashboardOutcomes } | { unreadable: string } {
	const outcomes: DashboardOutcomes = new Map();
	for (const line of String(text ?? '').split(/\r?\n/)) {
		const trimmed = line.trim().replace(/\s+/g, ' ');
		if (trimmed === '') continue;
		const [, transferId, not, look] = /^(\S+)[ ,:;=]+(not )?paid(?: (\d+))?$/i.exec(trimmed) ?? [];
		if (!transferId || (look !== undefined && (!not || Number(look) < 1))) return { unreadable: trimmed };
		outcomes.set(transferId, not ? { paid: false, look: Number(look ?? 1) } : { paid: true });
	}
	return { outcomes };
}

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

const dashboardOutcomes: INodeProperties = {
	displayName: 'Dashboard Outcomes',
	name: 'dashboardOutcomes',
	type: 'string',
	typeOptions: { rows: 4 },
	default: '',
	placeholder: 'e.g. payroll_0017 paid',
	description:
		"What the payouts dashboard says of transfers this node reported UNKNOWN: one line each, the Transfer ID then 'paid' or 'not paid'. On the next run a paid one reads ALREADY_SUBMITTED and a not-paid one is sent once, with its Transfer ID; if that send is unknown again, look again and write 'not paid 2' (then 3, ...). Lines for other transfers change nothing.",
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

// Internal transfers without a Transfer ID: what "the same top-up" means (record/rounds.ts).
const topUpKey: INodeProperties = {
	displayName: 'Top-Up Key',
	name: 'topUpKey',
	type: 'string',
	default: '',
	placeholder: "e.g. {{ $today.toFormat('yyyy-MM') }}",
	description:
		"For rows without a Transfer ID: what makes them the same top-up, with the amount and account. The same key is paid once; a new key is a new top-up. Empty: the node's top-up round (while a run is unfinished its rows repeat; after it finished, the next run's rows are new).",
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
			dashboardOutcomes,
			dryRun,
			// Only where the operation says which mode and beneficiary an item uses.
			...(operation.incidentGuard ? [incidentGuardOption] : []),
			requestsPerSecond,
			// Only where the service refuses a repeated Transfer ID is a re-send safe.
			...(operation.refusesDuplicateTransferId ? [transferRetries] : []),
			timeout,
			...(operation.transferIdWhenEmpty ? [topUpKey] : []),
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

export function readOptions(
	operation: PayoutOperation,
	given: Partial<Omit<RunOptions, 'incidentGuard' | 'dashboardOutcomes'>> & { incidentGuard?: unknown; dashboardOutcomes?: unknown },
	outcomes: DashboardOutcomes = new Map(),
): RunOptions {
	const defaults = DEFAULTS[kindOf(operation)];
	const whole = (value: unknown, fallback: number, min: number, max: number) =>
		typeof value === 'number' && Number.isFinite(value) ? Math.min(max, Math.max(min, Math.floor(value))) : fallback;
	return {
		allowAgentUse: defaults.allowAgentUse || given.allowAgentUse === true,
		dashboardOutcomes: outcomes,
		concurrency: whole(given.concurrency, defaults.concurrency, 1, MAX_CONCURRENCY),
		dryRun: given.dryRun === true,
		requestsPerSecond: typeof given.requestsPerSecond === 'number' && given.requestsPerSecond > 0 ? given.requestsPerSecond : 0,
		retries: kindOf(operation) === 'token' || (operation.movesMoney && !operation.refusesDuplicateTransferId) ? 0 : whole(given.retries, defaults.retries, 0, MAX_RETRIES),
		timeout: whole(given.timeout, defaults.timeout, 1000, 600000),
		incidentGuard: operation.incidentGuard ? readGuardSettings(given.incidentGuard) : undefined,
	};
}

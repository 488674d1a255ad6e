import type { INodeProperties } from 'n8n-workflow';

import { incidentGuardOption, readGuardSettings } from './incidentGuardOption';
import type { GuardSettings } from './incidentGuardOption';
import {
	allowAgentUse,
	claimHeldEarlier,
	dashboardStatus,
	dryRun,
	MAX_CONCURRENCY,
	MAX_RETRIES,
	payEveryRun,
	readConcurrency,
	readRetries,
	requestsPerSecond,
	serviceRefusesRepeats,
	timeout,
	transferConcurrency,
	transferRetries,
	transferTimeout,
} from './optionFields';
import type { PayoutOperation } from '../types';

/**
 * The Options collection: which options each operation shows (each option's field is
 * optionFields.ts), and the values a run reads from it, with safe defaults per kind of operation.
 */

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
	/** Internal transfers: an earlier step holds each row's claim (e.g. a Postgres insert one execution wins), in front of the node's record. */
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
			transferConcurrency,
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
		read: [readConcurrency, requestsPerSecond, readRetries, timeout],
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

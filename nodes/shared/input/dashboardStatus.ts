import type { DashboardStatus, DashboardMeaning } from '../types';

/**
 * Options > Settle With Dashboard Status (`dashboardStatus`): what the payouts dashboard says of a
 * row's Transfer ID, mapped from a column (e.g. the dashboard's CSV export, read with Extract From
 * File and merged with the batch by Transfer ID). Only a row in doubt needs it. The dashboard's own
 * words are read as they are, by what they say about the money.
 */

/** What the editor calls Options > dashboardStatus, so that every message names it as the user sees it. */
export const DASHBOARD_STATUS_OPTION = "Options > 'Settle With Dashboard Status'";

/** The words, by what they say about the money. */
export const DASHBOARD_WORDS: Record<DashboardMeaning, readonly string[]> = {
	paid: ['SUCCESS', 'PENDING'],
	failed: ['FAILED', 'ERROR', 'REJECTED'],
	notFound: ['NOT_FOUND'],
};

/** Reads a status: undefined when none is given, a rule's message when it is not one of the words. */
export function readDashboardStatus(
	value: unknown,
): DashboardStatus | undefined | { issue: string } {
	if (value === undefined || value === null || String(value).trim() === '') return undefined;
	const word = String(value)
		.trim()
		.toUpperCase()
		.replace(/[\s-]+/g, '_');
	for (const meaning of Object.keys(DASHBOARD_WORDS) as DashboardMeaning[]) {
		if (DASHBOARD_WORDS[meaning].includes(word)) return { meaning, word };
	}
	return {
		issue: `must be one of the dashboard's words ${Object.values(DASHBOARD_WORDS).flat().join(', ')}`,
	};
}

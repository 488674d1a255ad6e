import { DateTime } from 'luxon';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { GuardSettings } from '../input/incidentGuardOption';
import { listIncidents, windowsFrom } from './listing';
import type { Window } from './listing';
import { inLanes, isFinal, withRetries } from './reads';
import type { Read } from './reads';
import type { SendTarget } from '../transport/target';

/**
 * The incidents the Incident Guard holds rows against: every unresolved incident of the look-back,
 * listed once per run, after the user's filters (impacts, scheduled), by transfer mode.
 */

/** Every unresolved incident created in the look-back, by upper-case mode, after the user's filters; or why they could not be listed. */
export async function openIncidentsByMode(
	context: IExecuteFunctions,
	target: SendTarget,
	settings: GuardSettings,
	timezone: string,
): Promise<Read<Map<string, IDataObject[]>>> {
	const now = DateTime.now().setZone(timezone);
	// The service reads the times in a zone the document does not name: windowsFrom reaches 26
	// hours past both ends (an incident created a moment ago is listed) and keeps the oldest
	// window inside the 90 days, whatever that zone is.
	const { windows } = windowsFrom(now.minus({ days: settings.lookBackDays }), now, now);
	const byId = new Map<string, IDataObject>();
	let failed: string | undefined;
	await inLanes(windows, async (window) => {
		const listed = await withRetries(() => listWindow(context, target, window));
		if ('failed' in listed) failed ??= listed.failed;
		else for (const incident of listed.value) byId.set(String(incident.id), incident);
		return !('failed' in listed);
	});
	if (failed !== undefined) return { failed, final: true };
	const byMode = new Map<string, IDataObject[]>();
	for (const incident of byId.values()) {
		if (incident.isResolved === true) continue;
		if (!settings.countScheduled && incident.isScheduled === true) continue;
		if (
			settings.impacts.length > 0 &&
			!settings.impacts.includes(String(incident.impact ?? '').toUpperCase())
		)
			continue;
		const mode = String(incident.mode ?? '').toUpperCase();
		byMode.set(mode, [...(byMode.get(mode) ?? []), incident]);
	}
	return { value: byMode };
}

async function listWindow(
	context: IExecuteFunctions,
	target: SendTarget,
	window: Window,
): Promise<Read<IDataObject[]>> {
	try {
		return {
			value: await listIncidents(context, target, window, {
				status: 'UNRESOLVED',
				whenUnclear: 'The service gave no clear answer to the incident listing.',
			}),
		};
	} catch (error) {
		const { message, description, httpCode } = error as {
			message: string;
			description?: string;
			httpCode?: string | null;
		};
		return {
			failed: `${message}${description ? ` (${description})` : ''}`,
			final: isFinal(String(httpCode ?? '')),
		};
	}
}

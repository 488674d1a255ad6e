import { DateTime } from 'luxon';
import type { IDataObject, INodeExecutionData, IPollFunctions } from 'n8n-workflow';

import {
	listIncidents,
	MAX_AGE,
	MAX_WINDOW,
	SERVICE_CLOCK_SPREAD,
	windowsFrom,
} from '../shared/incidents/listing';
import type { Window } from '../shared/incidents/listing';
import { checkedBaseUrl, CREDENTIAL_TYPE } from '../shared/transport/target';
import type { PayoutsCredentials, SendTarget } from '../shared/transport/target';

/**
 * The incident trigger's poll: which incidents are new or newly resolved since the last poll,
 * each reported exactly once. What it has seen lives in the workflow's static data, which n8n
 * saves after every poll (and shares between main and workers in queue mode), so a restart
 * neither loses nor repeats an event. State changes only after every request of a poll
 * succeeded: a failed poll is simply tried again at the next interval.
 */

type IncidentEvent = 'new' | 'resolved';

interface SeenState {
	/** When the last successful poll ran (ISO). */
	lastPollAt?: string;
	/** Incident id -> createdAt, for every incident reported (or recorded) as new. */
	seen?: Record<string, string>;
	/** Incident id -> createdAt, for every incident reported (or recorded) as resolved. */
	resolved?: Record<string, string>;
}

interface Filters {
	/** Version 1: comma-separated text; version 2: the picked modes. */
	mode?: string | string[];
	entityCode?: string;
	impact?: string;
	scheduled?: 'any' | 'scheduled' | 'unscheduled';
}

/** Re-read a little of the previous window: an incident may be listed a moment after it began. */
const OVERLAP = { minutes: 10 };
const UNCLEAR = 'The next poll tries again; nothing was marked as seen.';

export { windowsFrom };

function matches(incident: IDataObject, filters: Filters): boolean {
	const listed = (value: string | string[] | undefined) =>
		(Array.isArray(value) ? value : String(value ?? '').split(','))
			.map((entry) => entry.trim().toUpperCase())
			.filter(Boolean);
	const modes = listed(filters.mode);
	const impacts = listed(filters.impact);
	if (modes.length > 0 && !modes.includes(String(incident.mode).toUpperCase())) return false;
	if (impacts.length > 0 && !impacts.includes(String(incident.impact).toUpperCase())) return false;
	if (filters.scheduled === 'scheduled' && incident.isScheduled !== true) return false;
	if (filters.scheduled === 'unscheduled' && incident.isScheduled === true) return false;
	return true;
}

async function listAll(
	context: IPollFunctions,
	windows: Window[],
	filters: Filters,
): Promise<IDataObject[]> {
	// The credential is read once per poll, however many windows the poll needs.
	const credentials = await context.getCredentials<PayoutsCredentials>(CREDENTIAL_TYPE);
	const target: SendTarget = {
		baseUrl: checkedBaseUrl(context.getNode(), credentials.baseUrl, 'Base URL'),
		timeoutMs: 30000,
		authenticated: true,
		credentials,
	};
	const byId = new Map<string, IDataObject>();
	for (const window of windows) {
		for (const incident of await listIncidents(context, target, window, {
			status: 'ALL',
			entityCode: filters.entityCode,
			whenUnclear: UNCLEAR,
		})) {
			if (matches(incident, filters)) byId.set(String(incident.id), incident);
		}
	}
	return [...byId.values()];
}

const byTime = (field: string) => (a: IDataObject, b: IDataObject) =>
	String(a[field] ?? '').localeCompare(String(b[field] ?? ''));

/**
 * A sample for "Fetch Test Event": for New Incident the latest incident still open (or, when none
 * is, the latest one), for Resolved Incident the latest resolution; with both, the later of the two.
 */
function testEvent(incidents: IDataObject[], events: IncidentEvent[]): IDataObject | undefined {
	const latest = (list: IDataObject[], field: string) => [...list].sort(byTime(field)).pop();
	const samples: Array<{ at: string; item: IDataObject }> = [];
	if (events.includes('new')) {
		const incident =
			latest(
				incidents.filter((candidate) => candidate.isResolved !== true),
				'createdAt',
			) ?? latest(incidents, 'createdAt');
		if (incident)
			samples.push({ at: String(incident.createdAt ?? ''), item: { event: 'new', ...incident } });
	}
	if (events.includes('resolved')) {
		const incident = latest(
			incidents.filter((candidate) => candidate.isResolved === true),
			'resolvedAt',
		);
		if (incident)
			samples.push({
				at: String(incident.resolvedAt ?? ''),
				item: { event: 'resolved', ...incident },
			});
	}
	return samples.sort((a, b) => a.at.localeCompare(b.at)).pop()?.item;
}

export async function pollIncidents(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
	const events = this.getNodeParameter('events', []) as IncidentEvent[];
	const filters = this.getNodeParameter('filters', {}) as Filters;
	const options = this.getNodeParameter('options', {}) as { emitExisting?: boolean };
	const now = DateTime.now().setZone(this.getTimezone());

	// The editor's "Fetch Test Event": the latest matching event of the kinds chosen in
	// 'Trigger On', nothing remembered.
	if (this.getMode() === 'manual') {
		const recent = await listAll(
			this,
			windowsFrom(now.minus(MAX_WINDOW), now, now).windows,
			filters,
		);
		const sample = testEvent(recent, events);
		return sample ? [[{ json: sample }]] : null;
	}

	const state = this.getWorkflowStaticData('node') as SeenState;
	const seen = (state.seen ??= {});
	const resolved = (state.resolved ??= {});
	const firstPoll = state.lastPollAt === undefined;

	// From the last poll (or a week back on the first), and back to the oldest incident still
	// open, so that its resolution is seen too. The listing reaches 26 hours past both ends
	// (windowsFrom), since the service may read our clock's times in another zone: what it
	// returns again is remembered in `seen` and `resolved` and not reported twice.
	const openSince = Object.entries(seen)
		.filter(([id]) => !(id in resolved))
		.map(([, createdAt]) => DateTime.fromISO(createdAt))
		.filter((time) => time.isValid);
	const lastPoll = firstPoll
		? now.minus(MAX_WINDOW)
		: DateTime.fromISO(state.lastPollAt as string).minus(OVERLAP);
	const start = DateTime.min(lastPoll, ...openSince) ?? lastPoll;
	const { windows, skipped } = windowsFrom(start, now, now);
	if (skipped) {
		this.logger.warn(
			`Payouts Incident Trigger: incidents created from ${skipped.start.toISO()} to ${skipped.end.toISO()} may not be listed: the service lists only the last 90 days, in a timezone it does not name.`,
		);
	}
	const incidents = await listAll(this, windows, filters);

	// On the first poll, what exists already is history: recorded, not reported (unless asked,
	// and then only what was created in the last 7 days, though the listing reaches further).
	const report = !firstPoll || options.emitExisting === true;
	const reportable = (incident: IDataObject) =>
		!firstPoll || DateTime.fromISO(String(incident.createdAt)) >= lastPoll;
	const newOnes: IDataObject[] = [];
	const resolvedOnes: IDataObject[] = [];
	for (const incident of incidents) {
		const id = String(incident.id);
		const createdAt = String(incident.createdAt ?? now.toISO());
		if (!(id in seen)) {
			seen[id] = createdAt;
			if (reportable(incident)) newOnes.push(incident);
		}
		if (incident.isResolved === true && !(id in resolved)) {
			resolved[id] = createdAt;
			if (reportable(incident)) resolvedOnes.push(incident);
		}
	}

	// Forget what the service can no longer list: created before its 90 days, by 26 hours, so that
	// no window (whose oldest start a service may read up to 26 hours earlier) returns it again.
	const forgetBefore = now.minus(MAX_AGE).minus(SERVICE_CLOCK_SPREAD);
	for (const memory of [seen, resolved]) {
		for (const [id, createdAt] of Object.entries(memory))
			if (DateTime.fromISO(createdAt) < forgetBefore) delete memory[id];
	}
	state.lastPollAt = now.toISO() as string;

	if (!report) return null;
	const items = [
		...(events.includes('new')
			? newOnes
					.sort(byTime('createdAt'))
					.map((incident) => ({ json: { event: 'new', ...incident } }))
			: []),
		...(events.includes('resolved')
			? resolvedOnes
					.sort(byTime('resolvedAt'))
					.map((incident) => ({ json: { event: 'resolved', ...incident } }))
			: []),
	];
	return items.length > 0 ? [items] : null;
}

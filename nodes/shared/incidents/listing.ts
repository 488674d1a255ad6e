import type { DateTime } from 'luxon';
import type { IDataObject, IExecuteFunctions, IPollFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { findErrorRow } from '../outcomes/errors';
import { redactor } from '../redact';
import { SERVICE_TIME_FORMAT } from '../input/rules';
import { excerpt } from '../transport/answer';
import { endpoints } from '../transport/endpoints';
import { send } from '../transport/send';
import type { SendTarget } from '../transport/target';

/**
 * Listing incidents within the service's window rules (interface document, sections 4.5 and 8):
 * at most 7 days from start to end, the start within the last 90 days, whatever zone the service
 * reads the times in. Shared by the incident trigger and the transfer node's Incident Guard.
 */

/** Limits of the incident listing (interface document, section 8). */
export const MAX_WINDOW = { days: 7 };
export const MAX_AGE = { days: 90 };
/**
 * How far the service's reading of our times may be from ours. The document gives `startTime` and
 * `endTime` as "yyyy-mm-dd hh:mm:ss" without naming the zone the service reads them in; we write
 * them on the workflow's clock. Zones run from UTC-12 to UTC+14, so one clock time names instants
 * up to 26 hours apart, either way: listings reach this much past each end of what they mean.
 */
export const SERVICE_CLOCK_SPREAD = { hours: 26 };
/** Safety margin so a window's start stays inside the 90 days when the service checks it. */
const AGE_MARGIN = { minutes: 5 };

export interface Window {
	start: DateTime;
	end: DateTime;
}

/**
 * Windows of at most 7 days that list every incident created from `from` to `to`, whatever zone
 * the service reads the times in: they start SERVICE_CLOCK_SPREAD before `from` and end as much
 * after `to`, written on the clock of `now` (the workflow's). None starts earlier than a service
 * 26 hours ahead still accepts as within its 90 days; `skipped` is what may therefore be missed.
 */
export function windowsFrom(
	from: DateTime,
	to: DateTime,
	now: DateTime,
): { windows: Window[]; skipped?: Window } {
	const oldest = now.minus(MAX_AGE).plus(SERVICE_CLOCK_SPREAD).plus(AGE_MARGIN);
	// What that oldest start surely covers: read by a service 26 hours behind, it is 26 hours later.
	const reached = oldest.plus(SERVICE_CLOCK_SPREAD);
	const wanted = from.setZone(now.zone).minus(SERVICE_CLOCK_SPREAD);
	const start = wanted < oldest ? oldest : wanted;
	const end = to.setZone(now.zone).plus(SERVICE_CLOCK_SPREAD);
	const skipped = from < reached ? { start: from.setZone(now.zone), end: reached } : undefined;
	const windows: Window[] = [];
	for (let cursor = start; cursor < end; cursor = cursor.plus(MAX_WINDOW)) {
		const next = cursor.plus(MAX_WINDOW);
		windows.push({ start: cursor, end: next < end ? next : end });
	}
	return { windows, skipped };
}

interface ListQuery {
	status: 'ALL' | 'RESOLVED' | 'UNRESOLVED';
	entityCode?: string;
	/** What the user should know when no clear answer came (e.g. that the next poll tries again). */
	whenUnclear: string;
}

/** The incidents created within one window; throws a NodeApiError that says why it could not list. */
export async function listIncidents(
	context: IExecuteFunctions | IPollFunctions,
	target: SendTarget,
	window: Window,
	query: ListQuery,
): Promise<IDataObject[]> {
	const node = context.getNode();
	const qs: IDataObject = {
		status: query.status,
		startTime: window.start.toFormat(SERVICE_TIME_FORMAT),
		endTime: window.end.toFormat(SERVICE_TIME_FORMAT),
	};
	if (query.entityCode) qs.entityCode = query.entityCode;
	const answer = await send(context, target, endpoints.getIncidents(qs));
	if (answer.kind === 'envelope' && answer.envelope.status !== 'ERROR') {
		const incidents = answer.envelope.data?.incidents;
		return Array.isArray(incidents) ? (incidents as IDataObject[]) : [];
	}
	// What the service says is redacted like every other answer: the credential's secrets never show.
	const redact = redactor([target.credentials?.accessToken, target.credentials?.clientSecret]);
	if (answer.kind === 'envelope') {
		const { subCode } = answer.envelope;
		const message = redact(answer.envelope.message);
		throw new NodeApiError(node, { ...answer.envelope, message } as unknown as JsonObject, {
			message: `Listing incidents failed: ${message}`,
			description: findErrorRow('getIncidents', subCode, message).hint,
			httpCode: subCode,
		});
	}
	const what =
		answer.kind === 'noAnswer'
			? redact(answer.reason)
			: `HTTP ${answer.httpStatus}, ${answer.kind === 'unreadable' ? excerpt(redact(answer.text)) : 'no envelope'}`;
	throw new NodeApiError(node, { message: what } as JsonObject, {
		message: `Listing incidents failed: ${what}`,
		description: query.whenUnclear,
	});
}

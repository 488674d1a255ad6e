import type { DateTime } from 'luxon';
import type { IDataObject, IExecuteFunctions, IPollFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { findErrorRow } from './errors';
import { redactor } from './redact';
import { SERVICE_TIME_FORMAT } from './rules';
import { excerpt, send } from './transport';
import type { SendTarget } from './transport';

/**
 * Listing incidents within the service's window rules (interface document, sections 4.5 and 8):
 * at most 7 days from start to end, the start within the last 90 days. Shared by the incident
 * trigger and the transfer node's Incident Guard.
 */

/** Limits of the incident listing (interface document, section 8). */
export const MAX_WINDOW = { days: 7 };
export const MAX_AGE = { days: 90 };
/** Safety margin so a window's start stays inside the 90 days when the service checks it. */
const AGE_MARGIN = { minutes: 5 };

export interface Window {
	start: DateTime;
	end: DateTime;
}

/** Windows of at most 7 days from `start` to `end`, none starting more than 90 days ago. */
export function windowsFrom(start: DateTime, end: DateTime, now: DateTime): { windows: Window[]; skipped?: Window } {
	const oldest = now.minus(MAX_AGE).plus(AGE_MARGIN);
	const from = start < oldest ? oldest : start;
	const skipped = start < oldest ? { start, end: oldest } : undefined;
	const windows: Window[] = [];
	for (let cursor = from; cursor < end; cursor = cursor.plus(MAX_WINDOW)) {
		const next = cursor.plus(MAX_WINDOW);
		windows.push({ start: cursor, end: next < end ? next : end });
	}
	return { windows, skipped };
}

export interface ListQuery {
	status: 'ALL' | 'RESOLVED' | 'UNRESOLVED';
	entityCode?: string;
	/** What the user should know when no clear answer came (e.g. that the next poll tries again). */
	whenUnclear: string;
}

/** The incidents created within one window; throws a NodeApiError that says why it could not list. */
export async function listIncidents(context: IExecuteFunctions | IPollFunctions, target: SendTarget, window: Window, query: ListQuery): Promise<IDataObject[]> {
	const node = context.getNode();
	const qs: IDataObject = { status: query.status, startTime: window.start.toFormat(SERVICE_TIME_FORMAT), endTime: window.end.toFormat(SERVICE_TIME_FORMAT) };
	if (query.entityCode) qs.entityCode = query.entityCode;
	const answer = await send(context, target, { method: 'GET', path: '/payout/v1/incidents', qs });
	if (answer.kind === 'envelope' && answer.envelope.status !== 'ERROR') {
		const incidents = answer.envelope.data?.incidents;
		return Array.isArray(incidents) ? (incidents as IDataObject[]) : [];
	}
	if (answer.kind === 'envelope') {
		const { subCode, message } = answer.envelope;
		throw new NodeApiError(node, answer.envelope as unknown as JsonObject, {
			message: `Listing incidents failed: ${message}`,
			description: findErrorRow('getIncidents', subCode, message).hint,
			httpCode: subCode,
		});
	}
	const what = answer.kind === 'noAnswer' ? answer.reason : `HTTP ${answer.httpStatus}, ${answer.kind === 'unreadable' ? excerpt(redactor([target.credentials?.accessToken])(answer.text)) : 'no envelope'}`;
	throw new NodeApiError(node, { message: what } as JsonObject, {
		message: `Listing incidents failed: ${what}`,
		description: query.whenUnclear,
	});
}

import { DateTime } from 'luxon';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { findErrorRow } from '../outcomes/errors';
import { redactor } from '../redact';
import type { GuardSettings } from '../input/incidentGuardOption';
import { listIncidents, windowsFrom } from './listing';
import type { Window } from './listing';
import { endpoints } from '../transport/endpoints';
import { send } from '../transport/send';
import type { SendTarget } from '../transport/target';
import type { Params } from '../types';

/**
 * The Incident Guard of a transfer with a transfer mode: before the first request of a run it
 * lists the unresolved incidents once and, per item, looks for an open incident on the item's
 * transfer mode and (when chosen) on the beneficiary's bank. Rules:
 * - mode: the incident's `mode` equals the item's transfer mode, ignoring case (the document
 *   shows only IMPS among the values, so "IMPS" and "imps" are one mode; nothing else is mapped);
 * - bank: the incident's `entityCode` equals the first four letters of the beneficiary's IFSC,
 *   ignoring case. That IFSC bank codes are the incident's entity codes is an ASSUMPTION: the
 *   document names both fields "bank" but does not say they share codes;
 * - open: `isResolved` is not true (the listing asks for UNRESOLVED; the flag is checked too);
 * - impacts and scheduled incidents: as the user chose.
 * A check that cannot be made (listing or lookup failed) is never read as "no incidents".
 */

/** Requests of the guard in flight at once (listing windows, beneficiary lookups). */
const LANES = 4;
/** A listing or lookup without a clear answer (or a 5xx/520) is tried again this often. */
const READ_RETRIES = 2;
const BACKOFF_MS = 250;

/** What the guard needs of an item: where it goes and how. */
export interface GuardedItem {
	index: number;
	params: Params;
	transferMode: string;
	beneId: string;
}

export interface GuardResult {
	/** Output items of held rows (not sent, not recorded as sent). */
	held: Map<number, IDataObject>;
	/** Items refused before anything is sent: the Fail action, or a check that could not be made. */
	refused: Map<number, { rule: string; hint: string }>;
	/** Fields added to the output of items that are sent: the incidents, or that no check was made. */
	notes: Map<number, IDataObject>;
}

type Check = { incidents: IDataObject[]; bankCode?: string } | { unchecked: string };

/** Runs `work` over `list`, at most LANES at a time, until one returns false; every lane has ended on return. */
async function inLanes<T>(list: T[], work: (entry: T) => Promise<boolean>) {
	let next = 0;
	let stopped = false;
	const lane = async () => {
		while (!stopped && next < list.length) if (!(await work(list[next++]))) stopped = true;
	};
	await Promise.all(Array.from({ length: Math.min(LANES, list.length) }, lane));
}

/** A read's result: the value, or why there is none and whether asking again may help. */
type Read<T> = { value: T } | { failed: string; final: boolean };

/** A read tried again when no clear answer came or the service failed (5xx, 520); 4xx is final. */
async function withRetries<T>(read: () => Promise<Read<T>>): Promise<Read<T>> {
	for (let attempt = 0; ; attempt++) {
		const result = await read();
		if ('value' in result || result.final || attempt >= READ_RETRIES) return result;
		await sleep(BACKOFF_MS * 2 ** attempt);
	}
}

const isFinal = (subCode: string) => subCode !== '' && !subCode.startsWith('5');

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

/** Every unresolved incident created in the look-back, by upper-case mode, after the user's filters; or why they could not be listed. */
async function openIncidentsByMode(
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

async function lookUp(
	context: IExecuteFunctions,
	target: SendTarget,
	beneId: string,
): Promise<Read<IDataObject>> {
	const answer = await send(context, target, endpoints.getBeneficiary(beneId));
	if (answer.kind === 'envelope' && answer.envelope.status !== 'ERROR')
		return { value: answer.envelope.data ?? {} };
	const redact = redactor([target.credentials?.accessToken, target.credentials?.clientSecret]);
	if (answer.kind === 'envelope') {
		const { subCode, message } = answer.envelope;
		return {
			failed: `${redact(message)} (subCode ${subCode}). ${findErrorRow('getBeneficiary', subCode, message).hint}`,
			final: isFinal(subCode),
		};
	}
	return {
		failed:
			answer.kind === 'noAnswer'
				? redact(answer.reason)
				: `HTTP ${answer.httpStatus} without the service's envelope`,
		final: false,
	};
}

/** The bank code of each beneficiary (first four letters of its IFSC), or why it is unknown. */
async function bankCodes(
	context: IExecuteFunctions,
	target: SendTarget,
	beneIds: string[],
): Promise<Map<string, { bankCode: string } | { unchecked: string }>> {
	const codes = new Map<string, { bankCode: string } | { unchecked: string }>();
	await inLanes(beneIds, async (beneId) => {
		const found = await withRetries(() => lookUp(context, target, beneId));
		if ('failed' in found) {
			codes.set(beneId, {
				unchecked: `beneficiary ${beneId} could not be looked up: ${found.failed}`,
			});
			return true;
		}
		const ifsc = String(found.value.ifsc ?? '');
		const code = ifsc.slice(0, 4).toUpperCase();
		codes.set(
			beneId,
			/^[A-Z]{4}$/.test(code)
				? { bankCode: code }
				: {
						unchecked: `beneficiary ${beneId} has no IFSC whose first four characters are letters (given: ${JSON.stringify(ifsc)})`,
					},
		);
		return true;
	});
	return codes;
}

async function checkAll(
	context: IExecuteFunctions,
	target: SendTarget,
	settings: GuardSettings,
	items: GuardedItem[],
	timezone: string,
): Promise<Map<number, Check>> {
	const checks = new Map<number, Check>();
	const listed = await openIncidentsByMode(context, target, settings, timezone);
	if ('failed' in listed) {
		for (const item of items)
			checks.set(item.index, { unchecked: `the incidents could not be listed: ${listed.failed}` });
		return checks;
	}
	const byMode = listed.value;
	const onMode = (item: GuardedItem) => byMode.get(item.transferMode.toUpperCase()) ?? [];
	// A beneficiary is looked up only when an open incident is on one of its items' modes.
	const toLookUp = settings.matchBank
		? [...new Set(items.filter((item) => onMode(item).length > 0).map((item) => item.beneId))]
		: [];
	const banks = await bankCodes(context, target, toLookUp);
	for (const item of items) {
		const incidents = onMode(item);
		const bank = banks.get(item.beneId);
		if (!settings.matchBank || incidents.length === 0 || !bank)
			checks.set(item.index, { incidents });
		else if ('unchecked' in bank) checks.set(item.index, bank);
		else
			checks.set(item.index, {
				incidents: incidents.filter(
					(incident) => String(incident.entityCode ?? '').toUpperCase() === bank.bankCode,
				),
				bankCode: bank.bankCode,
			});
	}
	return checks;
}

const describeIncident = (incident: IDataObject) =>
	`incident ${String(incident.id)} (${String(incident.mode)} at ${String(incident.entityCode)}, impact ${String(incident.impact)}${incident.isScheduled === true ? ', scheduled' : ''})`;

function affects(
	item: GuardedItem,
	check: { incidents: IDataObject[]; bankCode?: string },
): string {
	const where = check.bankCode
		? `transfer mode ${item.transferMode} at bank ${check.bankCode}`
		: `transfer mode ${item.transferMode}`;
	return `${check.incidents.length > 1 ? 'open incidents affect' : 'an open incident affects'} ${where}: ${check.incidents.map(describeIncident).join('; ')}`;
}

/** Checks every item and says, per item, what the chosen action makes of it. */
export async function guardIncidents(
	context: IExecuteFunctions,
	target: SendTarget,
	settings: GuardSettings,
	items: GuardedItem[],
	timezone: string,
): Promise<GuardResult> {
	const result: GuardResult = { held: new Map(), refused: new Map(), notes: new Map() };
	if (items.length === 0) return result;
	const checks = await checkAll(context, target, settings, items, timezone);
	for (const item of items) {
		const check = checks.get(item.index) as Check;
		if ('unchecked' in check) {
			if (settings.onCheckFailure === 'stop') {
				result.refused.set(item.index, {
					rule: `The Incident Guard could not check the item: ${check.unchecked}`,
					hint: "Run the node again once the service answers, or set Incident Guard > 'If the Guard Cannot Check' to 'Send Without the Guard'.",
				});
			} else {
				result.notes.set(item.index, {
					warning: `Sent without the Incident Guard: ${check.unchecked}`,
				});
			}
			continue;
		}
		if (check.incidents.length === 0) continue;
		const incidents = check.incidents.map((incident) => ({ ...incident }));
		const what = affects(item, check);
		if (settings.action === 'hold') {
			result.held.set(item.index, {
				status: 'HELD',
				subCode: null,
				message: `Not sent: ${what}`,
				...item.params,
				...(check.bankCode ? { bankCode: check.bankCode } : {}),
				incidents,
				hint: 'Nothing was sent and the node did not record this transfer as sent: send the row again with the same Transfer ID once the incident is resolved (the Payouts Incident Trigger reports resolved incidents).',
			});
		} else if (settings.action === 'fail') {
			result.refused.set(item.index, {
				rule: `Not sent: ${what}`,
				hint: "Send the item once the incident is resolved, choose another 'Transfer Mode', or set Incident Guard > 'Affected Items' to 'Hold' or 'Send Anyway'.",
			});
		} else {
			result.notes.set(item.index, {
				warning: `Sent although ${what}`,
				...(check.bankCode ? { bankCode: check.bankCode } : {}),
				incidents,
			});
		}
	}
	return result;
}

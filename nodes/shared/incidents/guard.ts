import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { bankCodes } from './bankCodes';
import type { GuardSettings } from '../input/incidentGuardOption';
import { openIncidentsByMode } from './openIncidents';
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
 * The listing is openIncidents.ts, the banks bankCodes.ts, how both read from the service reads.ts.
 */

/** What the guard needs of an item: where it goes and how. */
interface GuardedItem {
	index: number;
	params: Params;
	transferMode: string;
	beneId: string;
}

interface GuardResult {
	/** Output items of held rows (not sent, not recorded as sent). */
	held: Map<number, IDataObject>;
	/** Items refused before anything is sent: the Fail action, or a check that could not be made. */
	refused: Map<number, { rule: string; hint: string }>;
	/** Fields added to the output of items that are sent: the incidents, or that no check was made. */
	notes: Map<number, IDataObject>;
}

type Check = { incidents: IDataObject[]; bankCode?: string } | { unchecked: string };

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

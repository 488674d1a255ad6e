import type { IDataObject, INodeProperties } from 'n8n-workflow';

/**
 * The Incident Guard as the user sets it: the option in a transfer's Options collection (off until
 * added) and its settings as saved. What the guard does with them is incidents/guard.ts.
 */

type GuardAction = 'hold' | 'fail' | 'sendAnyway';

export interface GuardSettings {
	action: GuardAction;
	matchBank: boolean;
	/** Upper-case impact levels that count; empty: every impact counts. */
	impacts: string[];
	countScheduled: boolean;
	onCheckFailure: 'stop' | 'sendWithoutGuard';
	lookBackDays: number;
}

/** The service lists incidents of the last 90 days (interface document, section 8). */
export const MAX_LOOK_BACK_DAYS = 90;

/** The option in the transfer's Options collection: off until the user adds it; added, it guards (with the defaults below for any setting left out). */
export const incidentGuardOption: INodeProperties = {
	displayName: 'Incident Guard',
	name: 'incidentGuard',
	type: 'fixedCollection',
	// One settings group at most: n8n then keeps the option when it is added and left empty
	// (`{}`), which reads as the defaults below; without it n8n drops the empty value on save.
	typeOptions: { multipleValues: false },
	default: {},
	placeholder: 'Add Incident Guard',
	description:
		'Before sending, list the open bank incidents once and check each item against them: one listing per run, and a beneficiary lookup where an open incident is on the transfer mode',
	options: [
		{
			displayName: 'Settings',
			name: 'settings',
			values: [
				{
					displayName: 'Affected Items',
					name: 'affectedItems',
					type: 'options',
					options: [
						{
							name: 'Fail',
							value: 'fail',
							description:
								"Refuse the item with an error naming the incident, under the node's usual error handling; nothing is sent before all items are checked",
						},
						{
							name: 'Hold',
							value: 'hold',
							description:
								'Do not send the item; it comes out with status HELD, the incident(s) and a hint, and can be sent later with the same Transfer ID',
						},
						{
							name: 'Send Anyway',
							value: 'sendAnyway',
							description: 'Send the item and attach the incident(s) to its output as a warning',
						},
					],
					default: 'hold',
					description: 'What to do with an item that an open incident affects',
				},
				{
					displayName: 'Count Scheduled Incidents',
					name: 'countScheduled',
					type: 'boolean',
					default: true,
					description:
						'Whether scheduled incidents (e.g. planned maintenance) count as well as unscheduled ones',
				},
				{
					displayName: 'If the Guard Cannot Check',
					name: 'onCheckFailure',
					type: 'options',
					options: [
						{
							name: 'Send Without the Guard',
							value: 'sendWithoutGuard',
							description: 'Send the items unchecked; every output item says so in its warning',
						},
						{
							name: 'Stop the Run',
							value: 'stop',
							description:
								'Send nothing and report why (a failed listing is never read as "no incidents")',
						},
					],
					default: 'stop',
					description:
						'What to do when the incidents cannot be listed or a beneficiary cannot be looked up',
				},
				{
					displayName: 'Impacts',
					name: 'impacts',
					type: 'string',
					default: '',
					placeholder: 'e.g. HIGH, MEDIUM',
					description:
						"Comma-separated impact levels that count, ignoring case (the service's full list is not published; LOW is one). Empty: every impact counts.",
				},
				{
					displayName: 'Look Back (Days)',
					name: 'lookBackDays',
					type: 'number',
					typeOptions: { minValue: 1, maxValue: MAX_LOOK_BACK_DAYS, numberPrecision: 0 },
					default: MAX_LOOK_BACK_DAYS,
					description:
						'How far back to look for incidents still open (at most 90). An incident opened earlier is not seen. The service lists 7 days per request: 90 takes 13 requests per run, 4 takes one.',
				},
				{
					displayName: "Match Beneficiary's Bank",
					name: 'matchBank',
					type: 'boolean',
					default: true,
					description:
						"Whether an incident counts only when its entity code is the beneficiary's bank: the first four letters of its IFSC (an assumption, see docs). Off: an incident on the mode at any bank counts.",
				},
			],
		},
	],
};

/**
 * The option's value as saved, `{ settings: {...} }`: undefined (off) only when the option was not
 * added. Added, it guards: a setting left out (or the whole settings group, `{}`) takes its default,
 * so an added guard never reads as off.
 */
export function readGuardSettings(given: unknown): GuardSettings | undefined {
	if (given === undefined || given === null) return undefined;
	const saved = (given as { settings?: unknown }).settings;
	const settings: IDataObject =
		saved !== null && typeof saved === 'object' && !Array.isArray(saved)
			? (saved as IDataObject)
			: {};
	const action =
		(['hold', 'fail', 'sendAnyway'] as const).find((value) => value === settings.affectedItems) ??
		'hold';
	// A cleared number field arrives as null or '': the default, not Number('') = 0 days.
	const days =
		settings.lookBackDays === null || settings.lookBackDays === ''
			? NaN
			: Number(settings.lookBackDays);
	return {
		action,
		matchBank: settings.matchBank !== false,
		impacts: String(settings.impacts ?? '')
			.split(',')
			.map((entry) => entry.trim().toUpperCase())
			.filter(Boolean),
		countScheduled: settings.countScheduled !== false,
		onCheckFailure: settings.onCheckFailure === 'sendWithoutGuard' ? 'sendWithoutGuard' : 'stop',
		lookBackDays: Number.isFinite(days)
			? Math.min(MAX_LOOK_BACK_DAYS, Math.max(1, Math.floor(days)))
			: MAX_LOOK_BACK_DAYS,
	};
}

import type {
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { testPayoutsCredential } from '../shared/run/credentialTest';
import { TRANSFER_MODES } from '../shared/input/transferModes';
import { pollIncidents } from './incidentEvents';

const EVENTS = [
	{ name: 'New Incident', value: 'new', description: 'An incident appears for the first time' },
	{ name: 'Resolved Incident', value: 'resolved', description: 'An incident is resolved' },
];

const entityCode: INodeProperties = {
	displayName: 'Entity Code',
	name: 'entityCode',
	type: 'string',
	default: '',
	placeholder: 'e.g. HDFC',
	description: 'Only incidents of this bank',
};

const impact: INodeProperties = {
	displayName: 'Impact',
	name: 'impact',
	type: 'string',
	default: '',
	placeholder: 'e.g. HIGH, MEDIUM',
	// The interface document names LOW and no full list, so this stays text.
	description:
		'Only incidents with one of these impact levels (comma-separated). The service does not publish its full list of levels.',
};

const scheduled: INodeProperties = {
	displayName: 'Scheduled',
	name: 'scheduled',
	type: 'options',
	options: [
		{ name: 'Any', value: 'any' },
		{ name: 'Only Scheduled', value: 'scheduled' },
		{ name: 'Only Unscheduled', value: 'unscheduled' },
	],
	default: 'any',
	description: 'Whether to keep scheduled (announced) incidents, unscheduled ones, or both',
};

/** The Filters collection; versions differ only in how Transfer Modes are given. */
const filters = (
	modes: INodeProperties,
	versions: { show: { '@version': unknown[] } },
): INodeProperties => ({
	displayName: 'Filters',
	name: 'filters',
	type: 'collection',
	placeholder: 'Add Filter',
	default: {},
	displayOptions: versions as INodeProperties['displayOptions'],
	options: [entityCode, impact, scheduled, modes],
});

export class PayoutsIncidentTrigger implements INodeType {
	// The credential's Test button, which reads what the service answers (shared/run/credentialTest.ts).
	methods = { credentialTest: { payoutsApiTest: testPayoutsCredential } };

	description: INodeTypeDescription = {
		displayName: 'Payouts Incident Trigger',
		name: 'payoutsIncidentTrigger',
		icon: {
			light: 'file:payoutsIncidentTrigger.svg',
			dark: 'file:payoutsIncidentTrigger.dark.svg',
		},
		group: ['trigger'],
		// Version 2: 'Transfer Modes' is a list to pick from (version 1: comma-separated text, kept
		// for saved workflows).
		version: [1, 2],
		defaultVersion: 2,
		subtitle: `={{ ($parameter["events"] || []).map((event) => (${JSON.stringify(Object.fromEntries(EVENTS.map(({ name, value }) => [value, name])))})[event] || event).join(", ") }}`,
		// n8n's nodes panel shows one entry for Payouts Incident and this trigger, with this
		// description: it has to suit both.
		description:
			'List bank incidents that affect payout transfer modes, or start a workflow when one begins or is resolved',
		defaults: { name: 'Payouts Incident Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'payoutsApi', required: true, testedBy: 'payoutsApiTest' }],
		properties: [
			{
				displayName: 'Trigger On',
				name: 'events',
				type: 'multiOptions',
				options: EVENTS,
				default: ['new'],
				required: true,
				description: 'Which incidents start a run. Each incident starts at most one run per event.',
			},
			filters(
				{
					displayName: 'Transfer Modes',
					name: 'mode',
					type: 'string',
					default: '',
					placeholder: 'e.g. IMPS, UPI',
					description: 'Only incidents that affect one of these transfer modes (comma-separated)',
				},
				{ show: { '@version': [1] } },
			),
			filters(
				{
					displayName: 'Transfer Modes',
					name: 'mode',
					type: 'multiOptions',
					// The transfer modes of the interface document; incidents name them in capitals.
					options: TRANSFER_MODES.map(({ name, value }) => ({ name, value: value.toUpperCase() })),
					default: [],
					description: 'Only incidents that affect one of these transfer modes',
				},
				{ show: { '@version': [{ _cnd: { gte: 2 } }] } },
			),
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Emit Existing Incidents on First Poll',
						name: 'emitExisting',
						type: 'boolean',
						default: false,
						description:
							'Whether the first poll after activation reports the incidents of the last 7 days. Off: they are recorded as seen and only later ones start runs.',
					},
				],
			},
		],
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		return await pollIncidents.call(this);
	}
}

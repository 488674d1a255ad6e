import type { INodeExecutionData, INodeType, INodeTypeDescription, IPollFunctions } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { pollIncidents } from './incidentEvents';

export class PayoutsIncidentTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Payouts Incident Trigger',
		name: 'payoutsIncidentTrigger',
		icon: { light: 'file:payoutsIncidentTrigger.svg', dark: 'file:payoutsIncidentTrigger.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{ $parameter["events"].join(", ") }}',
		description: 'Starts the workflow when a bank incident begins or is resolved',
		defaults: { name: 'Payouts Incident Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'payoutsApi', required: true }],
		properties: [
			{
				displayName: 'Trigger On',
				name: 'events',
				type: 'multiOptions',
				options: [
					{ name: 'New Incident', value: 'new', description: 'An incident appears for the first time' },
					{ name: 'Resolved Incident', value: 'resolved', description: 'An incident is resolved' },
				],
				default: ['new'],
				required: true,
				description: 'Which incidents start a run. Each incident starts at most one run per event.',
			},
			{
				displayName: 'Filters',
				name: 'filters',
				type: 'collection',
				placeholder: 'Add Filter',
				default: {},
				options: [
					{
						displayName: 'Entity Code',
						name: 'entityCode',
						type: 'string',
						default: '',
						placeholder: 'e.g. HDFC',
						description: 'Only incidents of this bank',
					},
					{
						displayName: 'Impact',
						name: 'impact',
						type: 'string',
						default: '',
						placeholder: 'e.g. HIGH, MEDIUM',
						description: 'Only incidents with one of these impact levels (comma-separated)',
					},
					{
						displayName: 'Mode',
						name: 'mode',
						type: 'string',
						default: '',
						placeholder: 'e.g. IMPS, UPI',
						description: 'Only incidents that affect one of these transfer modes (comma-separated)',
					},
					{
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
					},
				],
			},
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
						description: 'Whether the first poll after activation reports the incidents of the last 7 days. Off: they are recorded as seen and only later ones start runs.',
					},
				],
			},
		],
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		return await pollIncidents.call(this);
	}
}

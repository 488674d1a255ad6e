import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { testPayoutsCredential } from '../shared/run/credentialTest';
import { describeOperations, operationSubtitle } from '../shared/input/describe';
import { runOperations } from '../shared/run/execute';
import { getMany } from './operations/getMany';

const operations = [getMany];

export class PayoutsIncident implements INodeType {
	// The credential's Test button, which reads what the service answers (shared/run/credentialTest.ts).
	methods = { credentialTest: { payoutsApiTest: testPayoutsCredential } };

	description: INodeTypeDescription = {
		displayName: 'Payouts Incident',
		name: 'payoutsIncident',
		icon: { light: 'file:payoutsIncident.svg', dark: 'file:payoutsIncident.dark.svg' },
		group: ['input'],
		// Version 2: 'Simplify' on by default (version 1 keeps the full output of saved workflows).
		version: [1, 2],
		defaultVersion: 2,
		subtitle: operationSubtitle(operations),
		description: 'List bank incidents that affect payout transfer modes',
		defaults: { name: 'Payouts Incident' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		usableAsTool: true,
		credentials: [{ name: 'payoutsApi', required: true, testedBy: 'payoutsApiTest' }],
		properties: describeOperations(operations, 'getMany'),
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return runOperations.call(this, operations);
	}
}

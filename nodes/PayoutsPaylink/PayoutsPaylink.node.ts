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
import { getStatus } from './operations/getStatus';

const operations = [getStatus];

export class PayoutsPaylink implements INodeType {
	// The credential's Test button, which reads what the service answers (shared/run/credentialTest.ts).
	methods = { credentialTest: { payoutsApiTest: testPayoutsCredential } };

	description: INodeTypeDescription = {
		displayName: 'Payouts Paylink',
		name: 'payoutsPaylink',
		icon: { light: 'file:payoutsPaylink.svg', dark: 'file:payoutsPaylink.dark.svg' },
		group: ['input'],
		version: 1,
		subtitle: operationSubtitle(operations),
		description: 'Get the status of a paylink of the payouts service',
		defaults: { name: 'Payouts Paylink' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		usableAsTool: true,
		credentials: [{ name: 'payoutsApi', required: true, testedBy: 'payoutsApiTest' }],
		properties: describeOperations(operations, 'getStatus'),
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return runOperations.call(this, operations);
	}
}

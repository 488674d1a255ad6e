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
import { get } from './operations/get';

const operations = [get];

export class PayoutsBeneficiary implements INodeType {
	// The credential's Test button, which reads what the service answers (shared/run/credentialTest.ts).
	methods = { credentialTest: { payoutsApiTest: testPayoutsCredential } };

	description: INodeTypeDescription = {
		displayName: 'Payouts Beneficiary',
		name: 'payoutsBeneficiary',
		icon: { light: 'file:payoutsBeneficiary.svg', dark: 'file:payoutsBeneficiary.dark.svg' },
		group: ['input'],
		// Version 2: 'Simplify' on by default (version 1 keeps the full output of saved workflows).
		version: [1, 2],
		defaultVersion: 2,
		subtitle: operationSubtitle(operations),
		description: 'Look up a stored beneficiary of the payouts service',
		defaults: { name: 'Payouts Beneficiary' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		usableAsTool: true,
		credentials: [{ name: 'payoutsApi', required: true, testedBy: 'payoutsApiTest' }],
		properties: describeOperations(operations, 'get'),
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return runOperations.call(this, operations);
	}
}

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
import { standardTransfer } from './operations/standardTransfer';
import { cardTransfer } from './operations/cardTransfer';
import { internalTransfer } from './operations/internalTransfer';

const operations = [standardTransfer, cardTransfer, internalTransfer];

export class PayoutsTransfer implements INodeType {
	// The credential's Test button, which reads what the service answers (shared/run/credentialTest.ts).
	methods = { credentialTest: { payoutsApiTest: testPayoutsCredential } };

	description: INodeTypeDescription = {
		displayName: 'Payouts Transfer',
		name: 'payoutsTransfer',
		icon: { light: 'file:payoutsTransfer.svg', dark: 'file:payoutsTransfer.dark.svg' },
		group: ['output'],
		version: 1,
		subtitle: operationSubtitle(operations),
		description: 'Send card, standard and internal transfers with the payouts service',
		defaults: { name: 'Payouts Transfer' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		// As an AI tool it runs only with Options > Allow Use by AI Agents on (see execute.ts).
		usableAsTool: true,
		credentials: [{ name: 'payoutsApi', required: true, testedBy: 'payoutsApiTest' }],
		properties: describeOperations(operations, 'standardTransfer'),
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return runOperations.call(this, operations);
	}
}

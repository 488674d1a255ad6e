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
import { generateToken } from './operations/generateToken';

const operations = [generateToken];

export class PayoutsOAuth implements INodeType {
	// The credential's Test button, which reads what the service answers (shared/run/credentialTest.ts).
	methods = { credentialTest: { payoutsApiTest: testPayoutsCredential } };

	description: INodeTypeDescription = {
		displayName: 'Payouts OAuth',
		name: 'payoutsOAuth',
		icon: { light: 'file:payoutsOAuth.svg', dark: 'file:payoutsOAuth.dark.svg' },
		group: ['transform'],
		// n8n adds a "Custom API Call" operation to every node whose credential has an
		// `authenticate` block, saying that the HTTP Request node takes care of the auth. For the
		// token endpoint it would not: the credential's auth is the payout API's bearer token,
		// and the token endpoint takes the client ID and secret instead. n8n adds the operation
		// only where `defaultVersion` is unset or equals `version`, so a version list keeps it
		// off this node (version 1 is unchanged; the browser test checks the operation list).
		version: [1],
		defaultVersion: 1,
		subtitle: operationSubtitle(operations),
		description: 'Exchange a one-click OAuth authorisation code for an access token',
		defaults: { name: 'Payouts OAuth' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		// As an AI tool it runs only with Options > Allow Use by AI Agents on (see execute.ts).
		usableAsTool: true,
		credentials: [{ name: 'payoutsApi', required: true, testedBy: 'payoutsApiTest' }],
		properties: describeOperations(operations, 'generateToken'),
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return runOperations.call(this, operations);
	}
}

import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
	Icon,
} from 'n8n-workflow';

/**
 * One credential for the whole service: the bearer token for the payout API and the OAuth client
 * for the verification API. The hosts are fields because the production and test hosts differ,
 * and start empty: no address is right for everyone, and a guessed one fails only when used.
 * (`npm start` creates a credential that points at its local sandbox.)
 */
export class PayoutsApi implements ICredentialType {
	name = 'payoutsApi';

	displayName = 'Payouts API';

	icon: Icon = { light: 'file:payouts.svg', dark: 'file:payouts.dark.svg' };

	documentationUrl =
		'https://github.com/n8n-nodes-payouts/n8n-nodes-payouts/blob/main/docs/credentials.md';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. https://payout-api.example.com',
			description:
				'Base address of the payout API, from your payouts dashboard (production and test hosts differ). Use https: http only for a loopback address such as the local sandbox, http://127.0.0.1:5680.',
		},
		{
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'Bearer token sent as "Authorization: Bearer ..." on every payout call',
		},
		{
			displayName: 'Verification URL',
			name: 'verificationUrl',
			type: 'string',
			default: '',
			placeholder: 'e.g. https://verification-api.example.com',
			description:
				'Base address of the OAuth token API. Only the Payouts OAuth node uses it: leave it empty if you do not use that node.',
		},
		{
			displayName: 'Client ID',
			name: 'clientId',
			type: 'string',
			default: '',
			description:
				'OAuth client ID from the merchant dashboard (one-click app). Only the Payouts OAuth node uses it.',
		},
		{
			displayName: 'Client Secret',
			name: 'clientSecret',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description: 'Secret matching the client ID. Only the Payouts OAuth node uses it.',
		},
		{
			displayName: 'API Version',
			name: 'apiVersion',
			type: 'string',
			default: '2024-01-01',
			placeholder: 'e.g. 2024-01-01',
			description: 'Sent as x-api-version to the OAuth token API, format YYYY-MM-DD',
		},
	];

	/**
	 * Bearer auth applied by n8n itself to every request of the nodes (and of the credential test):
	 * the nodes never build the Authorization header. A function rather than a generic template,
	 * because n8n evaluates a template's `{{$credentials.accessToken}}` in its expression isolate on
	 * every request, which costs as much as the rest of a transfer in n8n (docs/performance.md).
	 * A field, not a method: n8n copies the credential's own properties when it decides which nodes
	 * get "Custom API Call", and a method on the prototype would not be seen there.
	 */
	authenticate = async (
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> => ({
		...requestOptions,
		headers: {
			...requestOptions.headers,
			Authorization: `Bearer ${String(credentials.accessToken ?? '')}`,
		},
	});

	// Test: every node names its test function (testedBy: nodes/shared/run/credentialTest.ts), which
	// reports the service's own refusal (a token, an IP allow-list, APIs not enabled), not one fixed message.
}

import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { PayoutOperation } from '../types';

/**
 * Where an operation's requests go and how they authenticate, read from the credential once per
 * run: the payout host with the bearer token, or the verification host with the OAuth client.
 */

export const CREDENTIAL_TYPE = 'payoutsApi';

/** The fields of the `payoutsApi` credential. */
export interface PayoutsCredentials {
	baseUrl: string;
	accessToken: string;
	verificationUrl?: string;
	clientId?: string;
	clientSecret?: string;
	apiVersion?: string;
}

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i;

/** What is wrong with a base address, or its usable form: the bearer token never travels in clear. */
export function baseUrlOf(
	url: string | undefined,
	field: string,
): { url: string } | { problem: string; fix: string } {
	if (String(url ?? '').trim() === '') {
		return {
			problem: `The credential has no '${field}'`,
			fix: `Fill in '${field}' in the Payouts API credential with the service's address from your payouts dashboard, e.g. https://payout-api.example.com`,
		};
	}
	let parsed: URL;
	try {
		parsed = new URL(String(url ?? '').trim());
	} catch {
		return {
			problem: `The credential's '${field}' is not a valid URL`,
			fix: `Set '${field}' in the Payouts API credential to the service's address, e.g. https://payout-api.example.com`,
		};
	}
	const isLoopback = LOOPBACK.test(parsed.hostname);
	if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && isLoopback)) {
		return {
			problem: `The credential's '${field}' must use https`,
			fix: `Secrets would travel unencrypted to ${parsed.host}. Use an https:// address; plain http:// is accepted only for a loopback address such as the local sandbox.`,
		};
	}
	return { url: parsed.toString().replace(/\/+$/, '') };
}

export function checkedBaseUrl(node: INode, url: string | undefined, field: string): string {
	const checked = baseUrlOf(url, field);
	if ('problem' in checked)
		throw new NodeOperationError(node, checked.problem, { description: checked.fix });
	return checked.url;
}

/** Where an operation's requests go and how they authenticate, from the credential. */
export function targetFor(
	context: IExecuteFunctions,
	operation: PayoutOperation,
	credentials: PayoutsCredentials,
	options: { timeout: number },
): SendTarget {
	if (operation.host === 'payout') {
		if (!credentials.accessToken) {
			throw new NodeOperationError(context.getNode(), "The credential has no 'Access Token'", {
				description:
					"Fill in 'Access Token' in the Payouts API credential: every payout call carries it as a bearer token.",
			});
		}
		return {
			baseUrl: checkedBaseUrl(context.getNode(), credentials.baseUrl, 'Base URL'),
			timeoutMs: options.timeout,
			authenticated: true,
			credentials,
		};
	}
	const missing = (['clientId', 'clientSecret', 'apiVersion'] as const).filter(
		(field) => !credentials[field],
	);
	if (missing.length > 0) {
		throw new NodeOperationError(context.getNode(), `The credential lacks ${missing.join(', ')}`, {
			description:
				"The token endpoint needs 'Client ID', 'Client Secret' and 'API Version' in the Payouts API credential.",
		});
	}
	if (!/^\d{4}-\d{2}-\d{2}$/.test(String(credentials.apiVersion))) {
		throw new NodeOperationError(
			context.getNode(),
			"The credential's 'API Version' must be a date such as 2024-01-01",
			{
				description: "Set 'API Version' in the Payouts API credential in the format YYYY-MM-DD.",
			},
		);
	}
	return {
		baseUrl: checkedBaseUrl(context.getNode(), credentials.verificationUrl, 'Verification URL'),
		timeoutMs: options.timeout,
		authenticated: false,
		// The token endpoint authenticates with the OAuth client, not the bearer token.
		headers: {
			'x-client-id': credentials.clientId,
			'x-client-secret': credentials.clientSecret,
			'x-api-version': credentials.apiVersion,
		},
	};
}

export interface SendTarget {
	baseUrl: string;
	timeoutMs: number;
	/** Credential-based bearer auth for the payout API; the OAuth endpoint sends its own headers. */
	authenticated: boolean;
	headers?: IDataObject;
	/** The credential as read once per run: n8n would otherwise load and decrypt it per request. */
	credentials?: PayoutsCredentials;
}

/**
 * Turns a row of the sandbox's trigger table (an HTTP request in the API's own terms) into what a
 * user sets in n8n: the node, its parameters and the credential. The parameters have the API's
 * field names (DESIGN.md), so the mapping is the same for every row: required fields at the top,
 * optional ones under Additional Fields, exactly as the operation's own properties place them.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { get as getBeneficiary } from '../../nodes/PayoutsBeneficiary/operations/get';
import { getMany as getIncidents } from '../../nodes/PayoutsIncident/operations/getMany';
import { generateToken } from '../../nodes/PayoutsOAuth/operations/generateToken';
import { getStatus as getPaylinkStatus } from '../../nodes/PayoutsPaylink/operations/getStatus';
import { cardTransfer } from '../../nodes/PayoutsTransfer/operations/cardTransfer';
import { internalTransfer } from '../../nodes/PayoutsTransfer/operations/internalTransfer';
import { standardTransfer } from '../../nodes/PayoutsTransfer/operations/standardTransfer';
import type { OperationName, PayoutOperation } from '../../nodes/shared/types';

export interface TriggerRow {
	id: string;
	operation: OperationName;
	subCode: string;
	status: string;
	message: string;
	request: {
		method: string;
		path: string;
		query?: IDataObject;
		body?: IDataObject;
		token?: string | null;
		headers?: Record<string, string>;
	};
}

export const operationsByApi: Record<
	OperationName,
	{ nodeType: string; operation: PayoutOperation }
> = {
	cardTransfer: {
		nodeType: 'payoutsTransfer',
		operation: cardTransfer as unknown as PayoutOperation,
	},
	standardTransfer: {
		nodeType: 'payoutsTransfer',
		operation: standardTransfer as unknown as PayoutOperation,
	},
	internalTransfer: {
		nodeType: 'payoutsTransfer',
		operation: internalTransfer as unknown as PayoutOperation,
	},
	getBeneficiary: {
		nodeType: 'payoutsBeneficiary',
		operation: getBeneficiary as unknown as PayoutOperation,
	},
	getIncidents: {
		nodeType: 'payoutsIncident',
		operation: getIncidents as unknown as PayoutOperation,
	},
	getPaylinkStatus: {
		nodeType: 'payoutsPaylink',
		operation: getPaylinkStatus as unknown as PayoutOperation,
	},
	generateToken: {
		nodeType: 'payoutsOAuth',
		operation: generateToken as unknown as PayoutOperation,
	},
};

/** The API's fields of a request, by the names the node's parameters use. */
function apiFields(row: TriggerRow): IDataObject {
	const { body = {}, query = {}, path } = row.request;
	switch (row.operation) {
		case 'getBeneficiary':
			return { beneId: decodeURIComponent(path.split('/').pop() ?? '') };
		case 'generateToken':
			return { authCode: body.auth_code };
		case 'getIncidents':
		case 'getPaylinkStatus':
			return { ...query };
		default:
			return { ...body };
	}
}

export function nodeFor(row: TriggerRow): { type: string; parameters: INodeParameters } {
	const { nodeType, operation } = operationsByApi[row.operation];
	const parameters: INodeParameters = { operation: operation.value };
	const additionalFields: INodeParameters = {};
	const optional = new Set(
		operation.properties
			.filter((property) => property.name === 'additionalFields')
			.flatMap((property) =>
				(property.options ?? []).map((option) => (option as { name: string }).name),
			),
	);
	for (const [name, value] of Object.entries(apiFields(row))) {
		// An empty value reaches a node from data (n8n refuses to run a literally empty required field).
		const given = value === '' || value === undefined ? '={{ "" }}' : (value as string);
		if (optional.has(name)) additionalFields[name] = given;
		else parameters[name] = given;
	}
	// A field the request leaves out is empty in n8n, where the node applies the service's default.
	for (const property of operation.properties) {
		if (
			property.name !== 'additionalFields' &&
			property.type !== 'notice' &&
			!(property.name in parameters)
		)
			parameters[property.name] = '={{ "" }}';
	}
	parameters.additionalFields = additionalFields;
	return { type: nodeType, parameters };
}

/** Credential fields that the row's request implies (another bearer token, other OAuth headers). */
export function credentialChangesFor(row: TriggerRow): IDataObject {
	const headers = row.request.headers ?? {};
	const changes: IDataObject = {};
	if (row.request.token !== undefined) changes.accessToken = row.request.token ?? '';
	if ('x-client-id' in headers) changes.clientId = headers['x-client-id'];
	if ('x-client-secret' in headers) changes.clientSecret = headers['x-client-secret'];
	if ('x-api-version' in headers) changes.apiVersion = headers['x-api-version'];
	return changes;
}

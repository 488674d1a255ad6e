import type { IDataObject } from 'n8n-workflow';

import type { ApiRequest, OperationName } from '../types';

/**
 * The service's endpoints, one per operation of its interface document: the only place that
 * names a path. Operations and the Incident Guard build their requests here.
 */
export const endpoints = {
	cardTransfer: (body: IDataObject): ApiRequest => ({
		method: 'POST',
		path: '/payout/v1/cardpay',
		body,
	}),
	standardTransfer: (body: IDataObject): ApiRequest => ({
		method: 'POST',
		path: '/payout/v1.2/requestTransfer',
		body,
	}),
	internalTransfer: (body: IDataObject): ApiRequest => ({
		method: 'POST',
		path: '/payout/v1/internalTransfer',
		body,
	}),
	getBeneficiary: (beneId: string): ApiRequest => ({
		method: 'GET',
		path: `/payout/v1/getBeneficiary/${encodeURIComponent(beneId)}`,
	}),
	getIncidents: (qs: IDataObject): ApiRequest => ({
		method: 'GET',
		path: '/payout/v1/incidents',
		qs,
	}),
	// The interface document does not name the query parameter: paylinkId, as the operation's field.
	getPaylinkStatus: (paylinkId: string): ApiRequest => ({
		method: 'GET',
		path: '/payout/v1/getPaylinkStatus',
		qs: { paylinkId },
	}),
	generateToken: (authCode: string): ApiRequest => ({
		method: 'POST',
		path: '/verification/oauth2/generate-token',
		body: { auth_code: authCode },
	}),
} satisfies Record<OperationName, (...args: never[]) => ApiRequest>;

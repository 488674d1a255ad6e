import type { IDataObject, IHttpRequestMethods, INodeProperties } from 'n8n-workflow';
import type { z } from 'zod';

import type { Clock } from './rules';

/** The operations of the service, named as the node's `operation` values (and the error table). */
export type OperationName =
	| 'cardTransfer'
	| 'standardTransfer'
	| 'internalTransfer'
	| 'getBeneficiary'
	| 'getIncidents'
	| 'getPaylinkStatus'
	| 'generateToken';

/** What the routine sends: a path under the payout (or verification) base URL. */
export interface ApiRequest {
	method: IHttpRequestMethods;
	path: string;
	qs?: IDataObject;
	body?: IDataObject;
}

/** What the service answered, already read from the body (never from the declared content type). */
export interface Envelope {
	status: string;
	subCode: string;
	message: string;
	data?: IDataObject;
}

/** Where a row runs, for a Transfer ID made for a row that has none. */
export interface TransferOrigin {
	workflowId: string;
	nodeId: string;
	executionId: string;
	/** The node's run in this execution (a loop runs it again; Retry On Fail repeats the same run). */
	runIndex: number;
	itemIndex: number;
	/** Options > Pay Again on Every Run. */
	payEveryRun: boolean;
}

/** Values validated by an operation's schema; the routine adds nothing but what the schema returns. */
export type Params = Record<string, unknown>;

/**
 * One operation: what the user sees (properties) and what it does (schema, request, output),
 * side by side in one file. The shared routine in execute.ts runs every operation the same way.
 */
export interface PayoutOperation<P extends Params = Params> {
	/** Value of the node's `operation` parameter (the public name saved in workflows). */
	value: string;
	/** Name of the operation in the service (error table, docs/errors.md). */
	api: OperationName;
	name: string;
	description: string;
	action: string;
	/** A transfer moves money: never re-sent with a new transferId, one at a time by default. */
	movesMoney: boolean;
	/** The token endpoint lives on the verification host and authenticates with the OAuth client. */
	host: 'payout' | 'verification';
	/** Parameters in display order; optional API fields inside an `additionalFields` collection. */
	properties: INodeProperties[];
	/** Every rule of the interface document for this operation's fields (built once per run). */
	schema(clock: Clock): z.ZodType<P, z.ZodTypeDef, unknown>;
	request(params: P): ApiRequest;
	/** Turns a SUCCESS or PENDING answer into output items. */
	output(answer: Envelope, params: P): IDataObject[];
	/** The service refuses a second transfer with a used transferId (its error table has the row),
	 * so sending one again with the same transferId cannot pay twice: the service is the guard. */
	refusesDuplicateTransferId?: boolean;
	/** A Transfer ID for an item that has none, made of what the user set, or what is missing ('Top-Up Key ...'). */
	transferIdWhenEmpty?(params: P, origin: TransferOrigin): { transferId: string } | { issue: string; hint: string };
	/** Where an item's money goes and how, for the Incident Guard (operations with a transfer mode). */
	incidentGuard?: { transferMode(params: P): string; beneId(params: P): string };
	/** Fields whose values are secrets: never echoed in errors, dry runs or logs. */
	secretFields?: string[];
	/** Shown in the editor, e.g. that the service announced the endpoint's retirement. */
	notice?: string;
}

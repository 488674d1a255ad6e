/**
 * What the record and the run need of n8n, faked for the unit tests: the processed-data helpers of
 * an execution over the model of n8n's store (harness/processedDataModel.ts, built from n8n's own
 * code and checked against real n8n), and an HTTP helper over an in-memory service that counts
 * what is in flight. No n8n engine, no network: each test runs in milliseconds.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { ProcessedDataModel } from '../../harness/processedDataModel';

export const store = new ProcessedDataModel();

/** The service's answer to one transfer request (its body), and how long it takes. */
export type Service = (body: IDataObject) => { status: string; subCode: string; message: string };

export interface FakeN8n {
	context: IExecuteFunctions;
	/** Transfer IDs in the order their requests reached the service. */
	requests: string[];
	/** The most requests in flight at once. */
	mostInFlight: number;
}

/** An execution's functions, as far as the record and the run use them, for one saved workflow. */
export function fakeN8n(workflowId: string, service: Service = paying, answerMs = 1): FakeN8n {
	const row = { workflow: { id: workflowId, active: false } };
	const fake: FakeN8n = { context: undefined as never, requests: [], mostInFlight: 0 };
	let inFlight = 0;
	const helpers = {
		checkProcessedAndRecord: async (items: string[], scope: 'workflow', options: object) =>
			await store.checkProcessedAndRecord(items, scope, row, options as never),
		removeProcessed: async (items: string[], scope: 'workflow', options: object) =>
			await store.removeProcessed(items, scope, row, options as never),
		getProcessedDataCount: async (scope: 'workflow', options: object) =>
			await store.getProcessedDataCount(scope, row, options as never),
		httpRequestWithAuthentication: async (_type: string, options: { body: string }) => {
			const body = JSON.parse(options.body) as IDataObject;
			fake.requests.push(String(body.transferId));
			fake.mostInFlight = Math.max(fake.mostInFlight, ++inFlight);
			await sleep(answerMs);
			inFlight--;
			return { statusCode: 200, body: JSON.stringify(service(body)) };
		},
	};
	fake.context = {
		helpers,
		getNode: () => ({ id: 'node-1', name: 'Pay', type: 'n8n-nodes-payouts.payoutsTransfer' }),
		getExecutionCancelSignal: () => undefined,
		continueOnFail: () => false,
	} as unknown as IExecuteFunctions;
	return fake;
}

export const paying: Service = () => ({
	status: 'SUCCESS',
	subCode: '200',
	message: 'Transfer completed successfully',
});

/** The store calls of a kind so far: how many entries each carried. */
export const callSizes = (kind: 'check' | 'remove' | 'count') =>
	store.calls.filter((call) => call.kind === kind).map((call) => call.values.length);

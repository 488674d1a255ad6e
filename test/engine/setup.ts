/**
 * What the engine suites set up: the sandbox they pay into, and the Payouts Transfer node with its
 * parameters read from each input row, so that a suite's rows say what is paid.
 */
import type { IDataObject } from 'n8n-workflow';

import { stopEngineTimers } from '../../harness/engine';
import type { NodeUnderTest } from '../../harness/engine';
import { useSandbox } from '../../harness/sandbox';

/**
 * The sandbox, reset before each test, where a repeated internal Transfer ID is booked again (the
 * interface does not say the service refuses it): nothing leans on the service to refuse a repeat,
 * and the ledger shows every payment. n8n-core's timers stop after the suite.
 */
export function useSandboxBookingRepeats() {
	afterAll(stopEngineTimers);
	const service = useSandbox();
	beforeEach(() => service.sandbox.configure({ internalDuplicates: 'book' }));
	return service;
}

/** A standard transfer (bank transfer) of each row's `beneId`, `amount` and `transferId`. */
export const standardTransfer = (
	options: IDataObject = {},
	node: Partial<NodeUnderTest> = {},
): NodeUnderTest => ({
	type: 'payoutsTransfer',
	parameters: {
		operation: 'standardTransfer',
		beneId: '={{ $json.beneId }}',
		amount: '={{ $json.amount }}',
		transferId: '={{ $json.transferId }}',
		transferMode: 'banktransfer',
		additionalFields: {},
		options,
	},
	...node,
});

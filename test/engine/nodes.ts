/**
 * The Payouts Transfer node as the engine suites run it, its parameters read from each input row,
 * so that a suite's rows say what is paid.
 */
import type { IDataObject } from 'n8n-workflow';

import type { NodeUnderTest } from '../../harness/engine';

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

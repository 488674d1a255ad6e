import type { INodePropertyOptions } from 'n8n-workflow';

import { oneOfIgnoringCase } from './rules';

/** The transfer modes of the interface document (section 4.2), with the names the editor shows. */
export const TRANSFER_MODES = [
	{ name: 'Bank Transfer', value: 'banktransfer' },
	{ name: 'IMPS', value: 'imps' },
	{ name: 'NEFT', value: 'neft' },
	{ name: 'RTGS', value: 'rtgs' },
	{ name: 'UPI', value: 'upi' },
	{ name: 'Wallet A', value: 'walletA' },
	{ name: 'Wallet B', value: 'walletB' },
] as const satisfies readonly INodePropertyOptions[];

/**
 * The Transfer Mode rule: the picker's value or name in any case (`IMPS`, `imps`, `Wallet A`), sent
 * as the API's value; empty is the service's default, banktransfer.
 */
export const transferModeRule = oneOfIgnoringCase(TRANSFER_MODES, 'banktransfer');

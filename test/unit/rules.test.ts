/**
 * The field rules (nodes/shared/input/rules.ts) and every operation's schema, against the limits of
 * the service's interface document (/work/shared/spec/payouts-service-interface.md, sections 4 and
 * 8): a valid row passes and gives the values sent; each broken rule is an issue on its field with
 * the rule's words; each limit is tried exactly at it and one past it.
 */
import { DateTime } from 'luxon';

import {
	amount,
	dateTime,
	fields,
	itemSchema,
	oneOf,
	oneOfIgnoringCase,
	text,
} from '../../nodes/shared/input/rules';
import type { FieldRule } from '../../nodes/shared/input/rules';
import { TRANSFER_MODES } from '../../nodes/shared/input/transferModes';
import type { OperationName, Params } from '../../nodes/shared/types';
import { CLOCK, OPERATIONS, ORIGIN, VALID_ROWS, issuesOf, valuesOf } from './rows';

type Case = [string, unknown, { value: unknown } | { issue: string }];

const checkRule =
	(rule: FieldRule<unknown>) =>
	(_: string, given: unknown, expected: { value: unknown } | { issue: string }) => {
		expect(rule(given)).toEqual(expected);
	};

describe('text', () => {
	const required = text({
		required: true,
		max: 5,
		pattern: /^[a-z]*$/,
		rule: 'may contain only small letters',
	});
	test.each<Case>([
		['a value', 'abc', { value: 'abc' }],
		['trimmed before it is checked and sent', '  abcde  ', { value: 'abcde' }],
		[
			'a number from a spreadsheet is read as its text',
			12,
			{ issue: 'may contain only small letters' },
		],
		['exactly at the length limit', 'abcde', { value: 'abcde' }],
		['one past the length limit', 'abcdef', { issue: 'must be at most 5 characters long' }],
		['a character outside the pattern', 'ab-c', { issue: 'may contain only small letters' }],
		['empty', '', { issue: 'is required' }],
		['only white space', ' \t ', { issue: 'is required' }],
		['missing', undefined, { issue: 'is required' }],
		['null', null, { issue: 'is required' }],
		['not a finite number', Number.NaN, { issue: 'is required' }],
		['a boolean', true, { issue: 'must be text' }],
		['an object', { a: 1 }, { issue: 'must be text' }],
	])('required: %s', checkRule(required));

	const optional = text({ max: 3 });
	test.each<Case>([
		['empty: left out', '', { value: undefined }],
		['missing: left out', undefined, { value: undefined }],
		['a number, as text', 42, { value: '42' }],
		['exactly at the length limit', 'abc', { value: 'abc' }],
		['one past the length limit', 'abcd', { issue: 'must be at most 3 characters long' }],
	])('optional: %s', checkRule(optional));

	test('a pattern without its rule has generic words', () => {
		expect(text({ pattern: /^\d*$/ })('12a')).toEqual({
			issue: 'has a character that is not allowed',
		});
	});
});

describe('oneOf', () => {
	test.each<Case>([
		['a value of the list', 'DEBIT', { value: 'DEBIT' }],
		['empty takes the fallback', '', { value: 'CREDIT' }],
		['missing takes the fallback', undefined, { value: 'CREDIT' }],
		['trimmed', ' DEBIT ', { value: 'DEBIT' }],
		['another case is another value', 'debit', { issue: 'must be one of CREDIT, DEBIT' }],
		['not in the list', 'PREPAID', { issue: 'must be one of CREDIT, DEBIT' }],
	])('%s', checkRule(oneOf(['CREDIT', 'DEBIT'] as const, 'CREDIT')));

	test('without a fallback, empty is left out', () => {
		expect(oneOf(['A', 'B'] as const)('')).toEqual({ value: undefined });
	});
});

describe('oneOfIgnoringCase (Transfer Mode)', () => {
	const rule = oneOfIgnoringCase(TRANSFER_MODES, 'banktransfer');
	test.each<Case>([
		['the API value', 'imps', { value: 'imps' }],
		['the picker name, upper case', 'IMPS', { value: 'imps' }],
		['the picker name with a space', 'Wallet A', { value: 'walletA' }],
		['the picker name in another case', 'wallet b', { value: 'walletB' }],
		['the API value in another case', 'WALLETA', { value: 'walletA' }],
		['empty: the service default', '', { value: 'banktransfer' }],
		[
			'unknown',
			'SWIFT',
			{
				issue: 'must be one of banktransfer, imps, neft, rtgs, upi, walletA, walletB (in any case)',
			},
		],
	])('%s', checkRule(rule));
});

describe('amount', () => {
	const card = amount({ min: 1, maxDecimals: 2, sendAs: 'string' });
	test.each<Case>([
		['sent as typed, as text', '100.50', { value: '100.50' }],
		['exactly the minimum', '1.00', { value: '1.00' }],
		['one cent under the minimum', '0.99', { issue: 'must be at least 1.00' }],
		['two decimals', '1.01', { value: '1.01' }],
		['three decimals', '1.001', { issue: 'must have at most 2 decimal places' }],
		['a number from a saved workflow', 100.5, { value: '100.5' }],
		[
			'a sum computed in floating point (1.1 + 2.2)',
			1.1 + 2.2,
			{ issue: 'must have at most 2 decimal places' },
		],
		['exponent notation', '1e3', { issue: 'must be a plain decimal number such as 100.50' }],
		[
			'a huge number (exponent when printed)',
			1e21,
			{ issue: 'must be a plain decimal number such as 100.50' },
		],
		['negative', '-5', { issue: 'must be a plain decimal number such as 100.50' }],
		['thousands separator', '1,000', { issue: 'must be a plain decimal number such as 100.50' }],
		['no digit before the point', '.5', { issue: 'must be a plain decimal number such as 100.50' }],
		['no digit after the point', '5.', { issue: 'must be a plain decimal number such as 100.50' }],
		[
			'not finite',
			Number.POSITIVE_INFINITY,
			{ issue: 'must be a plain decimal number such as 100.50' },
		],
		['empty', '', { issue: 'is required' }],
		['missing', undefined, { issue: 'is required' }],
	])('card (text): %s', checkRule(card));

	const standard = amount({ min: 1, max: 100000, maxDecimals: 2, sendAs: 'number' });
	test.each<Case>([
		['sent as a JSON number', '1500.50', { value: 1500.5 }],
		['exactly the maximum', '100000', { value: 100000 }],
		['exactly the maximum, with decimals', '100000.00', { value: 100000 }],
		['one cent over the maximum', '100000.01', { issue: 'must be at most 100000.00' }],
		['leading zeros', '0001.50', { value: 1.5 }],
	])('standard (number): %s', checkRule(standard));

	const internal = amount({ min: 1, maxDecimals: 2, sendAs: 'number' });
	test.each<Case>([
		// A JSON number carries 15 significant digits exactly; the 16th would be rounded.
		['15 significant digits', '1234567890123.45', { value: 1234567890123.45 }],
		[
			'16 significant digits',
			'12345678901234.56',
			{ issue: 'has more digits than can be sent exactly' },
		],
		['trailing zeros are not significant', '1000000000000000000.00', { value: 1e18 }],
	])('internal (number): %s', checkRule(internal));
});

describe('dateTime (read in the workflow timezone)', () => {
	const rule = dateTime(CLOCK);
	const at = (given: unknown) => {
		const checked = rule(given);
		return 'value' in checked ? checked.value?.toFormat('yyyy-MM-dd HH:mm:ss ZZ') : checked;
	};
	test.each<[string, unknown, unknown]>([
		[
			"the service's format, in the workflow timezone",
			'2026-11-20 09:30:00',
			'2026-11-20 09:30:00 +05:30',
		],
		[
			'ISO without an offset, in the workflow timezone',
			'2026-11-20T09:30:00',
			'2026-11-20 09:30:00 +05:30',
		],
		[
			'ISO in UTC, turned into the workflow timezone',
			'2026-11-20T00:00:00Z',
			'2026-11-20 05:30:00 +05:30',
		],
		['a JS Date', new Date('2026-11-20T00:00:00Z'), '2026-11-20 05:30:00 +05:30'],
		[
			'a Luxon DateTime from an expression',
			DateTime.fromISO('2026-11-20T00:00:00', { zone: 'UTC' }),
			'2026-11-20 05:30:00 +05:30',
		],
		['empty: left out', '', undefined],
		['missing: left out', undefined, undefined],
		['words', 'yesterday', { issue: 'must be a date and time, e.g. 2026-01-31 09:30:00' }],
		[
			'an impossible date',
			'2026-02-30 10:00:00',
			{ issue: 'must be a date and time, e.g. 2026-01-31 09:30:00' },
		],
		['a number', 1764000000000, { issue: 'must be a date and time, e.g. 2026-01-31 09:30:00' }],
	])('%s', (_, given, expected) => {
		expect(at(given)).toEqual(expected);
	});
});

describe('itemSchema', () => {
	const schema = itemSchema(
		{ a: text({ required: true, max: 2 }), b: text({}), c: oneOf(['X', 'Y'] as const) },
		(values, fail) => {
			if (values.b !== undefined && values.c !== 'Y') fail('b', 'needs c to be Y');
		},
	);
	const issues = (row: unknown) => {
		const result = schema.safeParse(row);
		return result.success ? [] : result.error.issues.map((issue) => [issue.path, issue.message]);
	};

	test('every field broken is reported at once, each on its own path, in table order', () => {
		expect(issues({ a: 'abc', c: 'Z' })).toEqual([
			[['a'], 'must be at most 2 characters long'],
			[['c'], 'must be one of X, Y'],
		]);
	});
	test('the cross-field check runs only once every field passed', () => {
		expect(issues({ a: 'abc', b: 'x' })).toEqual([[['a'], 'must be at most 2 characters long']]);
		expect(issues({ a: 'ab', b: 'x' })).toEqual([[['b'], 'needs c to be Y']]);
	});
	test('empty fields are left out of the values; nothing the table does not name passes', () => {
		expect(schema.parse({ a: ' ok ', b: '', c: undefined, extra: 'dropped' })).toStrictEqual({
			a: 'ok',
		});
	});
	test('a row that is not an object is every required field missing', () => {
		expect(issues(undefined)).toEqual([[['a'], 'is required']]);
	});
});

/** Strings of a given length, for the limits. */
const chars = (length: number, char = 'a') => char.repeat(length);

/** [operation, what, the row's change (undefined: a field taken out), the issues as [field, words]]. */
type SchemaCase = [OperationName, string, Params, Array<[string, string]>];

const withRow = (operation: OperationName, change: Params): Params => {
	const row = { ...VALID_ROWS[operation], ...change };
	for (const [field, value] of Object.entries(change)) if (value === undefined) delete row[field];
	return row;
};

describe('each operation: a valid row gives exactly the values sent', () => {
	test('card transfer: trimmed, CREDIT when Card Type is empty, the empty optional fields left out', () => {
		const row = {
			token: ' tok_4111_card_1 ',
			amount: '100.50',
			transferId: 'card_payout_0001',
			cardType: '',
			remarks: '',
			name: 'Asha Rao',
			networkType: 'NETWORK_B',
			cryptogram: '',
			tokenExpiry: '2030-12',
			tokenPANSequenceNumber: 'A01',
		};
		const values = valuesOf(OPERATIONS.cardTransfer, row);
		expect(values).toStrictEqual({
			token: 'tok_4111_card_1',
			amount: '100.50',
			transferId: 'card_payout_0001',
			cardType: 'CREDIT',
			name: 'Asha Rao',
			networkType: 'NETWORK_B',
			tokenExpiry: '2030-12',
			tokenPANSequenceNumber: 'A01',
		});
		expect(OPERATIONS.cardTransfer.request(values)).toStrictEqual({
			method: 'POST',
			path: '/payout/v1/cardpay',
			body: values,
		});
	});

	test('standard transfer: the amount a JSON number, the mode as the API names it', () => {
		const values = valuesOf(OPERATIONS.standardTransfer, {
			...VALID_ROWS.standardTransfer,
			paymentInstrumentId: '',
			remarks: 'November payout',
		});
		expect(values).toStrictEqual({
			beneId: 'JOHN18011343',
			amount: 1500.5,
			transferId: 'nov_payout_0001',
			transferMode: 'imps',
			remarks: 'November payout',
		});
		expect(OPERATIONS.standardTransfer.request(values)).toStrictEqual({
			method: 'POST',
			path: '/payout/v1.2/requestTransfer',
			body: values,
		});
	});

	test('standard transfer: an empty Transfer Mode is the service default, banktransfer', () => {
		expect(
			valuesOf(OPERATIONS.standardTransfer, withRow('standardTransfer', { transferMode: '' }))
				.transferMode,
		).toBe('banktransfer');
	});

	test('internal transfer: the Top-Up Key is checked but never sent', () => {
		const values = valuesOf(OPERATIONS.internalTransfer, {
			amount: 500,
			rechargeAccount: 'RECHARGE001',
			topUpKey: ' evt_123 ',
		});
		expect(values).toStrictEqual({
			amount: 500,
			rechargeAccount: 'RECHARGE001',
			topUpKey: 'evt_123',
		});
		expect(OPERATIONS.internalTransfer.request({ ...values, transferId: 'evt-1' })).toStrictEqual({
			method: 'POST',
			path: '/payout/v1/internalTransfer',
			body: { amount: 500, rechargeAccount: 'RECHARGE001', transferId: 'evt-1' },
		});
	});

	test('incidents: nothing set sends the status only (the service applies its own window)', () => {
		const values = valuesOf(OPERATIONS.getIncidents, {});
		expect(values).toStrictEqual({ status: 'UNRESOLVED', simplify: false });
		expect(OPERATIONS.getIncidents.request(values)).toStrictEqual({
			method: 'GET',
			path: '/payout/v1/incidents',
			qs: { status: 'UNRESOLVED' },
		});
	});

	test("incidents: times sent as yyyy-mm-dd hh:mm:ss in the workflow's timezone, Simplify kept out of the query", () => {
		const values = valuesOf(OPERATIONS.getIncidents, {
			status: 'RESOLVED',
			startTime: '2026-11-20T06:30:00Z',
			endTime: '2026-11-27 12:00:00',
			entityCode: 'HDFC',
			simplify: true,
		});
		expect(values).toStrictEqual({
			status: 'RESOLVED',
			startTime: '2026-11-20 12:00:00',
			endTime: '2026-11-27 12:00:00',
			entityCode: 'HDFC',
			simplify: true,
		});
		expect(OPERATIONS.getIncidents.request(values).qs).toStrictEqual({
			status: 'RESOLVED',
			startTime: '2026-11-20 12:00:00',
			endTime: '2026-11-27 12:00:00',
			entityCode: 'HDFC',
		});
	});

	test('beneficiary: the ID in the path, encoded', () => {
		const values = valuesOf(OPERATIONS.getBeneficiary, { beneId: ' JOHN/1 ', simplify: 'true' });
		expect(values).toStrictEqual({ beneId: 'JOHN/1', simplify: true });
		expect(OPERATIONS.getBeneficiary.request(values)).toStrictEqual({
			method: 'GET',
			path: '/payout/v1/getBeneficiary/JOHN%2F1',
		});
	});

	test('paylink: the ID in the query', () => {
		const values = valuesOf(OPERATIONS.getPaylinkStatus, VALID_ROWS.getPaylinkStatus);
		expect(OPERATIONS.getPaylinkStatus.request(values)).toStrictEqual({
			method: 'GET',
			path: '/payout/v1/getPaylinkStatus',
			qs: { paylinkId: 'invoice_2026_0042' },
		});
	});

	test('OAuth: the code as auth_code, on the verification host', () => {
		const values = valuesOf(OPERATIONS.generateToken, { authCode: ' code-1 ' });
		expect(OPERATIONS.generateToken.request(values)).toStrictEqual({
			method: 'POST',
			path: '/verification/oauth2/generate-token',
			body: { auth_code: 'code-1' },
		});
		expect(OPERATIONS.generateToken.host).toBe('verification');
	});
});

describe('each operation: the limits of the interface document, at the limit and one past', () => {
	const TRANSFER_ID_RULE = 'may contain only letters, digits and underscore';
	test.each<SchemaCase>([
		// Card transfer (4.1, 8).
		['cardTransfer', 'amount exactly 1.00', { amount: '1.00' }, []],
		['cardTransfer', 'amount 0.99', { amount: '0.99' }, [['amount', 'must be at least 1.00']]],
		['cardTransfer', 'Transfer ID of 40', { transferId: chars(40) }, []],
		[
			'cardTransfer',
			'Transfer ID of 41',
			{ transferId: chars(41) },
			[['transferId', 'must be at most 40 characters long']],
		],
		['cardTransfer', 'Transfer ID with underscore and digits', { transferId: 'Pay_2026_01' }, []],
		// The field rule names letters, digits and underscore; only the service's error also names hyphen.
		[
			'cardTransfer',
			'Transfer ID with a hyphen',
			{ transferId: 'pay-1' },
			[['transferId', TRANSFER_ID_RULE]],
		],
		[
			'cardTransfer',
			'Transfer ID with a space',
			{ transferId: 'pay 1' },
			[['transferId', TRANSFER_ID_RULE]],
		],
		['cardTransfer', 'remarks of 70', { remarks: chars(70) }, []],
		[
			'cardTransfer',
			'remarks of 71',
			{ remarks: chars(71) },
			[['remarks', 'must be at most 70 characters long']],
		],
		[
			'cardTransfer',
			'remarks with spaces and a tab (white space)',
			{ remarks: 'Nov payout\t1' },
			[],
		],
		[
			'cardTransfer',
			'remarks with punctuation',
			{ remarks: 'payout #1' },
			[['remarks', 'may contain only letters, digits and spaces']],
		],
		['cardTransfer', 'cryptogram of 600', { cryptogram: chars(600) }, []],
		[
			'cardTransfer',
			'cryptogram of 601',
			{ cryptogram: chars(601) },
			[['cryptogram', 'must be at most 600 characters long']],
		],
		['cardTransfer', 'PAN sequence number of 3', { tokenPANSequenceNumber: 'A01' }, []],
		[
			'cardTransfer',
			'PAN sequence number of 4',
			{ tokenPANSequenceNumber: 'A012' },
			[['tokenPANSequenceNumber', 'must be at most 3 characters long']],
		],
		[
			'cardTransfer',
			'PAN sequence number not alphanumeric',
			{ tokenPANSequenceNumber: 'A_' },
			[['tokenPANSequenceNumber', 'may contain only letters and digits']],
		],
		[
			'cardTransfer',
			'token expiry YYYY-MM with Network B',
			{ networkType: 'NETWORK_B', tokenExpiry: '2030-12' },
			[],
		],
		[
			'cardTransfer',
			'token expiry month 13',
			{ networkType: 'NETWORK_B', tokenExpiry: '2030-13' },
			[['tokenExpiry', 'must be a year and month in the format YYYY-MM, e.g. 2030-12']],
		],
		[
			'cardTransfer',
			'token expiry without the leading zero',
			{ networkType: 'NETWORK_B', tokenExpiry: '2030-1' },
			[['tokenExpiry', 'must be a year and month in the format YYYY-MM, e.g. 2030-12']],
		],
		[
			'cardTransfer',
			'token expiry of 11 characters',
			{ networkType: 'NETWORK_B', tokenExpiry: '2030-12-311' },
			[['tokenExpiry', 'must be at most 10 characters long']],
		],
		[
			'cardTransfer',
			'token expiry with Network A',
			{ networkType: 'NETWORK_A', tokenExpiry: '2030-12' },
			[
				[
					'tokenExpiry',
					"applies only to Network B: set 'Network Type' to Network B, or leave 'Token Expiry' out",
				],
			],
		],
		[
			'cardTransfer',
			'token expiry without a network',
			{ tokenExpiry: '2030-12' },
			[
				[
					'tokenExpiry',
					"applies only to Network B: set 'Network Type' to Network B, or leave 'Token Expiry' out",
				],
			],
		],
		[
			'cardTransfer',
			'an unknown network',
			{ networkType: 'NETWORK_C' },
			[
				[
					'networkType',
					'must be Network A or Network B (in an expression: NETWORK_A or NETWORK_B)',
				],
			],
		],
		[
			'cardTransfer',
			'an unknown card type',
			{ cardType: 'PREPAID' },
			[['cardType', 'must be one of CREDIT, DEBIT']],
		],
		['cardTransfer', 'no card token', { token: '' }, [['token', 'is required']]],
		['cardTransfer', 'no Transfer ID', { transferId: undefined }, [['transferId', 'is required']]],

		// Standard transfer (4.2, 8).
		['standardTransfer', 'amount exactly 1.00', { amount: '1.00' }, []],
		['standardTransfer', 'amount 0.99', { amount: '0.99' }, [['amount', 'must be at least 1.00']]],
		['standardTransfer', 'amount exactly 100000', { amount: '100000' }, []],
		[
			'standardTransfer',
			'amount 100000.01',
			{ amount: '100000.01' },
			[['amount', 'must be at most 100000.00']],
		],
		['standardTransfer', 'amount with 2 decimals', { amount: '10.25' }, []],
		[
			'standardTransfer',
			'amount with 3 decimals',
			{ amount: '10.255' },
			[['amount', 'must have at most 2 decimal places']],
		],
		['standardTransfer', 'Transfer ID of 40', { transferId: chars(40, 'Z') }, []],
		[
			'standardTransfer',
			'Transfer ID of 41',
			{ transferId: chars(41, 'Z') },
			[['transferId', 'must be at most 40 characters long']],
		],
		[
			'standardTransfer',
			'Transfer ID with a hyphen',
			{ transferId: 'nov-1' },
			[['transferId', TRANSFER_ID_RULE]],
		],
		['standardTransfer', 'remarks of 70', { remarks: chars(70, '7') }, []],
		[
			'standardTransfer',
			'remarks of 71',
			{ remarks: chars(71, '7') },
			[['remarks', 'must be at most 70 characters long']],
		],
		[
			'standardTransfer',
			'beneficiary ID with an underscore',
			{ beneId: 'JOHN_1' },
			[['beneId', 'may contain only letters and digits']],
		],
		['standardTransfer', 'no beneficiary ID', { beneId: ' ' }, [['beneId', 'is required']]],
		// Sent in the path: '..' would ask another address of the service (found by the engine's fuzz).
		[
			'getBeneficiary',
			"beneficiary ID '..'",
			{ beneId: '..' },
			[['beneId', "may not be '.' or '..'"]],
		],
		[
			'getBeneficiary',
			"beneficiary ID '.'",
			{ beneId: '.' },
			[['beneId', "may not be '.' or '..'"]],
		],
		['getBeneficiary', "beneficiary ID '...'", { beneId: '...' }, []],
		[
			'standardTransfer',
			'an unknown transfer mode',
			{ transferMode: 'swift' },
			[
				[
					'transferMode',
					'must be one of banktransfer, imps, neft, rtgs, upi, walletA, walletB (in any case)',
				],
			],
		],

		// Internal transfer (4.3, 8).
		['internalTransfer', 'amount exactly 1', { amount: 1 }, []],
		['internalTransfer', 'amount 0.99', { amount: '0.99' }, [['amount', 'must be at least 1.00']]],
		[
			'internalTransfer',
			'Transfer ID of 40 with hyphens',
			{ transferId: `${chars(39, 'b')}-` },
			[],
		],
		[
			'internalTransfer',
			'Transfer ID of 41',
			{ transferId: chars(41, 'b') },
			[['transferId', 'must be at most 40 characters long']],
		],
		[
			'internalTransfer',
			'Transfer ID with a dot',
			{ transferId: 'topup.1' },
			[['transferId', 'may contain only letters, digits, hyphen and underscore']],
		],
		['internalTransfer', 'no Transfer ID: optional', { transferId: undefined }, []],
		[
			'internalTransfer',
			'recharge account not alphanumeric',
			{ rechargeAccount: 'RECHARGE-001' },
			[['rechargeAccount', 'may contain only letters and digits']],
		],
		[
			'internalTransfer',
			'no recharge account',
			{ rechargeAccount: undefined },
			[['rechargeAccount', 'is required']],
		],
		['internalTransfer', 'Top-Up Key of 500', { topUpKey: chars(500) }, []],
		[
			'internalTransfer',
			'Top-Up Key of 501',
			{ topUpKey: chars(501) },
			[['topUpKey', 'must be at most 500 characters long']],
		],

		// Reads and the token.
		['getBeneficiary', 'no beneficiary ID', { beneId: '' }, [['beneId', 'is required']]],
		[
			'getBeneficiary',
			'Simplify not a boolean',
			{ simplify: 'yes' },
			[['simplify', 'must be true or false']],
		],
		['getPaylinkStatus', 'no paylink ID', { paylinkId: undefined }, [['paylinkId', 'is required']]],
		['generateToken', 'no auth code', { authCode: '' }, [['authCode', 'is required']]],
		[
			'getIncidents',
			'an unknown status',
			{ status: 'OPEN' },
			[['status', 'must be one of ALL, RESOLVED, UNRESOLVED']],
		],
		[
			'getIncidents',
			'a start time that is no date',
			{ startTime: 'yesterday' },
			[['startTime', 'must be a date and time, e.g. 2026-01-31 09:30:00']],
		],
	])('%s: %s', (operation, _, change, expected) => {
		expect(issuesOf(OPERATIONS[operation], withRow(operation, change))).toEqual(expected);
	});

	test('every broken field of a row is reported at once', () => {
		const row = {
			token: '',
			amount: '0.5',
			transferId: 'a-b',
			cardType: 'X',
			remarks: chars(71),
			cryptogram: chars(601),
			tokenPANSequenceNumber: '1234',
		};
		expect(issuesOf(OPERATIONS.cardTransfer, row).map(([field]) => field)).toEqual([
			'token',
			'amount',
			'transferId',
			'cardType',
			'remarks',
			'cryptogram',
			'tokenPANSequenceNumber',
		]);
	});
});

describe('incidents: the query window (4.5, 8: at most 7 days, start within the last 90)', () => {
	// CLOCK.now is 2026-11-27 12:00:00 in the workflow timezone.
	test.each<[string, Params, Array<[string, string]>]>([
		['exactly 7 days', { startTime: '2026-11-20 12:00:00', endTime: '2026-11-27 12:00:00' }, []],
		[
			'7 days and a second',
			{ startTime: '2026-11-20 12:00:00', endTime: '2026-11-27 12:00:01' },
			[['endTime', "must be at most 7 days from 'Start Time' to 'End Time'"]],
		],
		[
			'start equal to end',
			{ startTime: '2026-11-27 10:00:00', endTime: '2026-11-27 10:00:00' },
			[],
		],
		[
			'start a second after end',
			{ startTime: '2026-11-27 10:00:01', endTime: '2026-11-27 10:00:00' },
			[['startTime', "must not be after 'End Time'"]],
		],
		// An empty end is the end of today (23:59:59.999).
		['start only, 7 days before the end of today', { startTime: '2026-11-20 23:59:59.999' }, []],
		[
			'start only, more than 7 days before the end of today',
			{ startTime: '2026-11-20 23:59:59' },
			[['startTime', "must be at most 7 days from 'Start Time' to 'End Time'"]],
		],
		[
			'start only, tomorrow',
			{ startTime: '2026-11-28 00:00:00' },
			[['startTime', "must not be after 'End Time' (the end of today when empty)"]],
		],
		// An empty start is the start of today.
		[
			'end only, yesterday',
			{ endTime: '2026-11-26 23:59:59' },
			[['startTime', "must not be after 'End Time'"]],
		],
		[
			'start exactly 90 days ago',
			{ startTime: '2026-08-29 12:00:00', endTime: '2026-08-30 12:00:00' },
			[],
		],
		[
			'start 90 days and a second ago',
			{ startTime: '2026-08-29 11:59:59', endTime: '2026-08-30 12:00:00' },
			[['startTime', 'must be within the last 90 days']],
		],
	])('%s', (_, row, expected) => {
		expect(issuesOf(OPERATIONS.getIncidents, row)).toEqual(expected);
	});
});

describe("internal transfer: the Transfer ID made for a row without one passes the operation's own rule", () => {
	const rule = text({ required: true, ...fields.internalTransferId });
	const make = (params: Params, origin = ORIGIN) => {
		const made = OPERATIONS.internalTransfer.transferIdWhenEmpty?.(params, origin);
		if (!made || !('transferId' in made))
			throw new Error(`no Transfer ID made: ${JSON.stringify(made)}`);
		return made.transferId;
	};

	test.each<[string, Params]>([
		['a short key', { rechargeAccount: 'RECHARGE001', topUpKey: 'evt1' }],
		[
			'a key longer than the part shown',
			{ rechargeAccount: 'RECHARGE001', topUpKey: chars(500, 'k') },
		],
		[
			'a key of characters the rule refuses',
			{ rechargeAccount: 'RECHARGE001', topUpKey: 'évt #1 / 2026' },
		],
		['a key of nothing the rule allows', { rechargeAccount: 'RECHARGE001', topUpKey: '###' }],
	])('%s', (_, params) => {
		const transferId = make(params);
		expect(rule(transferId)).toEqual({ value: transferId });
		expect(transferId.length).toBeLessThanOrEqual(40);
	});

	test('a long key makes an ID of exactly 40: 15 characters of the key, a hyphen, 24 of digest', () => {
		expect(make({ rechargeAccount: 'RECHARGE001', topUpKey: chars(100, 'k') })).toMatch(
			/^k{15}-[0-9a-f]{24}$/,
		);
	});

	test('the same key and account are the same transfer in any run, node, copy of the workflow or n8n; another account or key, another', () => {
		const key = { rechargeAccount: 'RECHARGE001', topUpKey: 'evt1' };
		const first = make(key);
		expect(
			make(key, {
				...ORIGIN,
				runId: 'run2',
				runIndex: 3,
				itemIndex: 7,
				nodeId: 'retryBranch',
			}),
		).toBe(first);
		// A copy of the workflow, or the workflow in another n8n, sends the same Transfer ID: where the service refuses repeats, it refuses it.
		expect(make(key, { ...ORIGIN, workflowId: 'wf2' })).toBe(first);
		expect(make({ ...key, rechargeAccount: 'RECHARGE002' })).not.toBe(first);
		expect(make({ ...key, topUpKey: 'evt2' })).not.toBe(first);
	});

	test("Pay Again on Every Run: one ID per run and row, the same on Retry On Fail and n8n's Retry (the same run)", () => {
		const params = { rechargeAccount: 'RECHARGE001' };
		const origin = { ...ORIGIN, payEveryRun: true };
		const first = make(params, origin);
		expect(first).toMatch(/^run-[0-9a-f]{36}$/);
		expect(make(params, origin)).toBe(first);
		expect(make(params, { ...origin, runId: 'run2' })).not.toBe(first);
		expect(make(params, { ...origin, runIndex: 1 })).not.toBe(first);
		expect(make(params, { ...origin, itemIndex: 1 })).not.toBe(first);
	});

	test('neither a key nor Pay Again on Every Run: the issue and what to do', () => {
		expect(
			OPERATIONS.internalTransfer.transferIdWhenEmpty?.({ rechargeAccount: 'RECHARGE001' }, ORIGIN),
		).toEqual({
			issue:
				"is empty, and so is 'Transfer ID': the node cannot tell this top-up from a repeat of it",
			hint: expect.stringContaining("turn on Options > 'Pay Again on Every Run'"),
		});
	});
});

test('the schemas use the workflow timezone of the clock they are given', () => {
	const newYork = {
		timezone: 'America/New_York',
		now: DateTime.fromISO('2026-11-27T12:00:00', { zone: 'America/New_York' }),
	};
	expect(
		valuesOf(OPERATIONS.getIncidents, { startTime: '2026-11-27T00:00:00Z' }, newYork).startTime,
	).toBe('2026-11-26 19:00:00');
	expect(valuesOf(OPERATIONS.getIncidents, { startTime: '2026-11-27T00:00:00Z' }).startTime).toBe(
		'2026-11-27 05:30:00',
	);
});

/**
 * The error table (nodes/shared/outcomes/errors.ts) against the error section of the interface
 * document (section 7, and section 5 for authentication): every ERROR the document lists finds its
 * own row, every row is found by a message the document lists, and what a row makes the node do
 * (stop the batch, call the outcome unknown, ask for the row to be fixed) is what the document says.
 */
import { PayoutsApi } from '../../credentials/PayoutsApi.credentials';
import { errorRows, findErrorRow } from '../../nodes/shared/outcomes/errors';
import type { ErrorRow } from '../../nodes/shared/outcomes/errors';
import { displayNames } from '../../nodes/shared/input/describe';
import type { OperationName } from '../../nodes/shared/types';
import { OPERATIONS } from './rows';

const PAYOUT_API = (Object.keys(OPERATIONS) as OperationName[]).filter(
	(name) => OPERATIONS[name].host === 'payout',
);

/** What the document's row means for the node. */
interface Meaning {
	/** The words the chosen row's hint must hold: it is this message's row, not a neighbour's. */
	says: RegExp;
	/** The account is refused, not the row: every row of the run would meet it (section 5; balance and account limits). */
	stops?: true;
	/** The service took the transfer and no clear outcome came. */
	unknown?: true;
	/** The row's own values are wrong: fixing the row is what helps. */
	fixRow?: true;
}

/** The hint asks the user to change the row's own field, while nextStep says to run the row again as it is. */

/** Section 5: any payout endpoint may answer these. */
const AUTHENTICATION: Array<[string, string, Meaning]> = [
	['403', 'Token is not valid', { says: /access token is unknown or expired/, stops: true }],
	['403', 'IP not whitelisted', { says: /allow-list/, stops: true }],
	[
		'403',
		'APIs not enabled (please fill the support form)',
		{ says: /not enabled for this account/, stops: true },
	],
	[
		'412',
		'Token missing in the request (expected format Bearer <ACCESS_TOKEN>)',
		{ says: /No access token was sent/, stops: true },
	],
];

/** Section 7, ERROR rows only (SUCCESS and PENDING are not errors), per operation, as the document words them. */
const DOCUMENT: Record<OperationName, Array<[string, string, Meaning]>> = {
	cardTransfer: [
		['400', 'Transfer Id already exists', { says: /already exists/ }],
		['403', 'Token is not valid', { says: /access token/, stops: true }],
		['403', 'APIs not enabled', { says: /not enabled for this account/, stops: true }],
		[
			'412',
			'Not enough available balance in the account',
			{ says: /Top up the payout account/, stops: true },
		],
		['422', 'Please provide valid token details', { says: /'Card Token'/, fixRow: true }],
		['422', 'amount should be at least 1.0', { says: /'Amount' to at least 1\.00/, fixRow: true }],
		[
			'422',
			'Invalid bank account number or ifsc provided',
			{ says: /bank details behind this card/ },
		],
		['422', 'Please provide a valid Name', { says: /'Name'/, fixRow: true }],
		['422', 'Please provide a valid networkType', { says: /'Network Type'/, fixRow: true }],
		['422', 'cardType is invalid', { says: /'Card Type'/, fixRow: true }],
		[
			'422',
			'transferId can contain only alphabets, numbers, hyphen and underscore',
			{ says: /'Transfer ID' to at most 40/, fixRow: true },
		],
	],
	standardTransfer: [
		[
			'201',
			'Transfer request the service, no response from bank',
			{ says: /bank did not answer/, unknown: true },
		],
		[
			'400',
			'Mode Not valid for Beneficiary',
			{ says: /cannot receive this 'Transfer Mode'/, fixRow: true },
		],
		['400', 'Transfer Id already exists', { says: /already exists/ }],
		[
			'400',
			'Not enough available balance in the account',
			{ says: /Top up the payout account/, stops: true },
		],
		[
			'400',
			'Please wait 30 minutes after adding the beneficiary',
			{ says: /less than 30 minutes ago/ },
		],
		[
			'400',
			'Transfer amount is less than minimum amount of Rs. 100',
			{ says: /at least 100 /, fixRow: true },
		],
		[
			'400',
			'Transfer amount is greater than the maximum amount of Rs. 100000',
			{ says: /at most 100000/, fixRow: true },
		],
		['400', 'Transfer request to a wallet failed', { says: /wallet refused/, fixRow: true }],
		['400', 'Transfer attempt failed at the bank', { says: /bank refused/ }],
		['400', 'Transfer to this beneficiary not allowed', { says: /blocked/, fixRow: true }],
		[
			'400',
			'Transfer amount is less than minimum amount of Rs. 1',
			{ says: /'Amount' to at least 1\.00/, fixRow: true },
		],
		[
			'400',
			'Transfer limit for your account exceeded',
			{ says: /account's transfer limit/, stops: true },
		],
		['400', 'Transfer mode not enabled for the account', { says: /not enabled for the account/ }],
		[
			'400',
			'Specified paymentInstrumentId not available',
			{ says: /No fund source has this/, fixRow: true },
		],
		[
			'400',
			'Specified paymentInstrumentId not valid for this payment mode',
			{ says: /cannot pay with the chosen/, fixRow: true },
		],
		[
			'400',
			'Multiple PaymentInstruments available for this payment mode',
			{ says: /Several fund sources/, fixRow: true },
		],
		['400', 'Transfer limit for beneficiary exceeded', { says: /beneficiary's transfer limit/ }],
		['403', 'Token is not valid', { says: /access token/, stops: true }],
		['403', 'IP not whitelisted', { says: /allow-list/, stops: true }],
		['404', 'Beneficiary does not exist', { says: /No beneficiary has this/, fixRow: true }],
		[
			'412',
			'Please provide a valid transferId',
			{ says: /'Transfer ID' to at most 40/, fixRow: true },
		],
		[
			'422',
			'Please provide a valid beneId',
			{ says: /'Beneficiary ID': letters and digits/, fixRow: true },
		],
		[
			'422',
			'Invalid bank account number or IFSC provided',
			{ says: /correct the beneficiary's bank details/ },
		],
		['422', 'Invalid IFSC code provided for bank account', { says: /IFSC does not match/ }],
		[
			'422',
			'Invalid Amount Passed; only 2 decimal places are allowed',
			{ says: /at most 2 decimal places/, fixRow: true },
		],
		[
			'422',
			'Please provide a valid transferId',
			{ says: /'Transfer ID' to at most 40/, fixRow: true },
		],
		[
			'422',
			'Remarks is invalid (maximum 70 alphanumeric characters and whitespace)',
			{ says: /'Remarks'/, fixRow: true },
		],
	],
	internalTransfer: [
		['403', 'APIs not enabled', { says: /not enabled for this account/, stops: true }],
		['404', 'Recharge Account not found', { says: /'Recharge Account'/, fixRow: true }],
		[
			'422',
			'Account not configured; contact the account manager',
			{ says: /not configured for internal transfers/ },
		],
	],
	getBeneficiary: [
		['403', 'Token is not valid', { says: /access token/, stops: true }],
		['403', 'APIs not enabled', { says: /not enabled for this account/, stops: true }],
		['404', 'Beneficiary does not exist', { says: /No beneficiary has this/, fixRow: true }],
		[
			'412',
			'Token missing in the request (expected format Bearer <ACCESS_TOKEN>)',
			{ says: /No access token was sent/, stops: true },
		],
	],
	getIncidents: [
		['403', 'Token is not valid', { says: /access token/, stops: true }],
		['403', 'IP Not Whitelisted', { says: /allow-list/, stops: true }],
		['403', 'APIs not enabled', { says: /not enabled for this account/, stops: true }],
		['412', 'Token missing in the request', { says: /No access token was sent/, stops: true }],
		['422', 'Status is invalid', { says: /'Status'/, fixRow: true }],
		[
			'422',
			'startTime should be less than or equal to EndTime',
			{ says: /no later than 'End Time'/, fixRow: true },
		],
		[
			'422',
			'Maximum time difference can be up to 7 days and startTime should be within 90 days from now',
			{ says: /within 7 days/, fixRow: true },
		],
		[
			'422',
			'startTime should be of the format yyyy-mm-dd hh:mm:ss',
			{ says: /Give 'Start Time'/, fixRow: true },
		],
		[
			'422',
			'endTime should be of the format yyyy-mm-dd hh:mm:ss',
			{ says: /Give 'End Time'/, fixRow: true },
		],
		['520', 'Unknown error occurred', { says: /unknown error/ }],
	],
	// "Message naming the requested paylink id and saying it does not exist".
	getPaylinkStatus: [
		[
			'404',
			'Paylink invoice_2026_0042 does not exist',
			{ says: /No paylink has this 'Paylink ID'/, fixRow: true },
		],
	],
	// "Error responses of the OAuth token endpoint: not shown."
	generateToken: [],
};

/** Every ERROR the node can meet: the operation's own rows and, on the payout API, section 5's. */
const CASES: Array<[OperationName, string, string, Meaning]> = (
	Object.keys(DOCUMENT) as OperationName[]
).flatMap((operation) => [
	...DOCUMENT[operation].map(
		([subCode, message, meaning]): [OperationName, string, string, Meaning] => [
			operation,
			subCode,
			message,
			meaning,
		],
	),
	...(OPERATIONS[operation].host === 'payout'
		? AUTHENTICATION.map(
				([subCode, message, meaning]): [OperationName, string, string, Meaning] => [
					operation,
					subCode,
					message,
					meaning,
				],
			)
		: []),
]);

const FALLBACK_HINT =
	'The service gave no further detail: check the item against the service documentation for this subCode, or contact the service.';

describe('every ERROR of the document finds its own row', () => {
	const meant = (operation: OperationName, subCode: string, message: string, meaning: Meaning) => {
		const row = findErrorRow(operation, subCode, message);
		expect(errorRows).toContain(row);
		expect(row.subCode).toBe(subCode);
		expect(row.message.test(message)).toBe(true);
		expect(row.hint).toMatch(meaning.says);
		expect({
			stops: row.account === true,
			unknown: row.unknownOutcome === true,
			fixRow: row.nextStep === 'fixRow',
		}).toEqual({
			stops: meaning.stops === true,
			unknown: meaning.unknown === true,
			fixRow: meaning.fixRow === true,
		});
	};
	test.each(CASES)('%s %s "%s"', meant);

	// "Tests are to match on subCode, because message capitalisation and trailing periods differ between listings."
	test.each(CASES)(
		'%s %s "%s", in capitals with a trailing period',
		(operation, subCode, message) => {
			expect(findErrorRow(operation, subCode, `${message.toUpperCase()}.`)).toBe(
				findErrorRow(operation, subCode, message),
			);
		},
	);
});

describe('every row of the table is found by its own subCode and a message of the document', () => {
	/** The operations a row applies to: its own, else every operation of the payout API. */
	const appliesTo = (row: ErrorRow) => row.operations ?? PAYOUT_API;
	const cases = errorRows.flatMap((row) =>
		appliesTo(row).map((operation): [string, OperationName, ErrorRow] => [
			`${row.subCode} ${String(row.message)}`,
			operation,
			row,
		]),
	);

	test.each(cases)('%s for %s', (_, operation, row) => {
		// A row no message of the document reaches is dead or shadowed by an earlier row.
		const found = CASES.filter(
			([, subCode, message]) => subCode === row.subCode && row.message.test(message),
		).map(([, , message]) => findErrorRow(operation, row.subCode, message));
		expect(found).toContain(row);
	});
});

/** A name in single quotes; an apostrophe (the account's) is no quote. */
const QUOTED = /(?<![A-Za-z])'([^']+)'(?![A-Za-z])/g;

describe("a hint names fields as the editor shows them: the operation's parameters or the credential's", () => {
	const credential = new PayoutsApi().properties.map((property) => property.displayName);
	const cases = errorRows.flatMap((row) =>
		(row.operations ?? PAYOUT_API).map((operation): [string, OperationName] => [
			row.hint,
			operation,
		]),
	);
	test.each(cases)('"%s" for %s', (hint, operation) => {
		const named = [...hint.matchAll(QUOTED)].map(([, name]) => name);
		const shown = new Set([...displayNames(OPERATIONS[operation]).values(), ...credential]);
		expect(named.filter((name) => !shown.has(name))).toEqual([]);
	});
	test('the rows that ask for a fix of the row name the field to fix, but for a blocked beneficiary (fixed in the dashboard)', () => {
		const unnamed = errorRows
			.filter((row) => row.nextStep === 'fixRow' && !new RegExp(QUOTED).test(row.hint))
			.map((row) => row.hint);
		expect(unnamed).toEqual([
			'Transfers to this beneficiary are blocked: check the beneficiary in the dashboard.',
		]);
	});
});

describe('the fallback: what the table does not know is still a clear error', () => {
	test.each<[string, OperationName, string, string]>([
		['an unknown subCode', 'cardTransfer', '499', 'Something new'],
		['an unknown message under a known subCode', 'standardTransfer', '400', 'Something unheard of'],
		[
			"a known message under another subCode (the document's subCode comes first)",
			'cardTransfer',
			'422',
			'Not enough available balance in the account',
		],
		["another operation's message", 'internalTransfer', '404', 'Beneficiary does not exist'],
		[
			"the paylink's any-message 404 for another operation",
			'getBeneficiary',
			'404',
			'Paylink invoice_2026_0042 does not exist',
		],
		['an empty message', 'getIncidents', '422', ''],
		['an OAuth error (the document shows none)', 'generateToken', '400', 'invalid_grant'],
	])('%s', (_, operation, subCode, message) => {
		const row = findErrorRow(operation, subCode, message);
		expect(errorRows).not.toContain(row);
		expect(row).toEqual({ subCode, message: /.*/, hint: FALLBACK_HINT });
	});
});

describe('the rows that act beyond their own row are exactly those the document gives', () => {
	// Each of these refuses the account, not the row (section 5; a balance and the account's limit are the account's).
	test('rows that stop a batch', () => {
		const stopping = CASES.filter(([, , , meaning]) => meaning.stops).map(
			([operation, subCode, message]) => findErrorRow(operation, subCode, message),
		);
		expect(new Set(errorRows.filter((row) => row.account))).toEqual(new Set(stopping));
		expect(
			errorRows
				.filter((row) => row.account)
				.map((row) => row.subCode)
				.sort(),
		).toEqual(['400', '400', '403', '403', '403', '412', '412']);
	});
	test('the one row whose outcome is unknown: 201 ERROR "no response from bank", on a standard transfer', () => {
		expect(errorRows.filter((row) => row.unknownOutcome)).toEqual([
			findErrorRow(
				'standardTransfer',
				'201',
				'Transfer request the service, no response from bank',
			),
		]);
		expect(
			findErrorRow('standardTransfer', '201', 'Transfer request the service, no response from bank')
				.operations,
		).toEqual(['standardTransfer']);
	});
	test('no row both stops a batch and leaves an outcome unknown, or asks to fix a row it says is the account', () => {
		expect(
			errorRows.filter((row) => row.account && (row.unknownOutcome || row.nextStep === 'fixRow')),
		).toEqual([]);
	});
});

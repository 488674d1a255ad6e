/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code runs in Node under jest, never inside n8n (it uses Node's own modules and files); this rule guards the code n8n loads (nodes/, credentials/) */
/**
 * The trigger table against the interface document: every row of every error table of section 7
 * has a trigger, and every trigger, sent over real HTTP to a freshly reset sandbox, gets the
 * answer it names, in both HTTP styles.
 */
import { seed, startSandbox, triggers } from '../../harness/sandbox';
import type { Sandbox } from '../../harness/sandbox';

type Trigger = (typeof triggers)[number];

/**
 * Section 7, copied by hand from the document, table by table: subCode, status and a piece of the
 * message every matching answer carries (case-insensitive; for descriptive rows, the words the
 * description asks for).
 */
const documentRows: Record<
	Exclude<Trigger['operation'], 'generateToken'>,
	Array<[subCode: string, status: Trigger['status'], text: string]>
> = {
	// Card transfer
	cardTransfer: [
		['200', 'SUCCESS', 'Transfer completed successfully'],
		['201', 'PENDING', 'Transfer request pending at the bank'],
		['400', 'ERROR', 'Transfer Id already exists'],
		['403', 'ERROR', 'Token is not valid'],
		['403', 'ERROR', 'APIs not enabled'],
		['412', 'ERROR', 'Not enough available balance in the account'],
		['422', 'ERROR', 'Please provide valid token details'],
		['422', 'ERROR', 'amount should be at least 1.0'],
		['422', 'ERROR', 'Invalid bank account number or ifsc provided'],
		['422', 'ERROR', 'Please provide a valid Name'],
		['422', 'ERROR', 'Please provide a valid networkType'],
		['422', 'ERROR', 'cardType is invalid'],
		['422', 'ERROR', 'transferId can contain only alphabets, numbers, hyphen and underscore'],
	],
	// Standard transfer v1.2
	standardTransfer: [
		['200', 'SUCCESS', 'Transfer completed successfully'],
		['201', 'SUCCESS', 'Transfer Scheduled for next working day'],
		['201', 'PENDING', 'Awaiting confirmation from beneficiary bank'],
		['201', 'PENDING', 'Transfer request pending at the bank'],
		['201', 'ERROR', 'Transfer request the service, no response from bank'],
		['202', 'PENDING', 'Request received; check status after some time'],
		['400', 'ERROR', 'Mode Not valid for Beneficiary'],
		['400', 'ERROR', 'Transfer Id already exists'],
		['400', 'ERROR', 'Not enough available balance in the account'],
		['400', 'ERROR', 'Please wait 30 minutes after adding the beneficiary'],
		['400', 'ERROR', 'Transfer amount is less than minimum amount of Rs. 100'],
		['400', 'ERROR', 'Transfer amount is greater than the maximum amount of Rs. 100000'],
		['400', 'ERROR', 'Transfer request to a wallet failed'],
		['400', 'ERROR', 'Transfer attempt failed at the bank'],
		['400', 'ERROR', 'Transfer to this beneficiary not allowed'],
		['400', 'ERROR', 'Transfer amount is less than minimum amount of Rs. 1'],
		['400', 'ERROR', 'Transfer limit for your account exceeded'],
		['400', 'ERROR', 'Transfer mode not enabled for the account'],
		['400', 'ERROR', 'Specified paymentInstrumentId not available'],
		['400', 'ERROR', 'Specified paymentInstrumentId not valid for this payment mode'],
		['400', 'ERROR', 'Multiple PaymentInstruments available for this payment mode'],
		['400', 'ERROR', 'Transfer limit for beneficiary exceeded'],
		['403', 'ERROR', 'Token is not valid'],
		['403', 'ERROR', 'IP not whitelisted'],
		['404', 'ERROR', 'Beneficiary does not exist'],
		['412', 'ERROR', 'Please provide a valid transferId'],
		['422', 'ERROR', 'Please provide a valid beneId'],
		['422', 'ERROR', 'Invalid bank account number or IFSC provided'],
		['422', 'ERROR', 'Invalid IFSC code provided for bank account'],
		['422', 'ERROR', 'Invalid Amount Passed; only 2 decimal places are allowed'],
		['422', 'ERROR', 'Please provide a valid transferId'],
		['422', 'ERROR', 'Remarks is invalid'],
	],
	// Internal transfer
	internalTransfer: [
		['200', 'SUCCESS', 'Internal Fund Transfer'],
		['403', 'ERROR', 'APIs not enabled'],
		['404', 'ERROR', 'Recharge Account not found'],
		['422', 'ERROR', 'Account not configured'],
	],
	// Get beneficiary details
	getBeneficiary: [
		['200', 'SUCCESS', 'Details of beneficiary'],
		['403', 'ERROR', 'Token is not valid'],
		['403', 'ERROR', 'APIs not enabled'],
		['404', 'ERROR', 'Beneficiary does not exist'],
		['412', 'ERROR', 'Token missing in the request (expected format Bearer <ACCESS_TOKEN>)'],
	],
	// Get incidents
	getIncidents: [
		['200', 'SUCCESS', 'List of incidents retrieved'],
		['403', 'ERROR', 'Token is not valid'],
		['403', 'ERROR', 'IP Not Whitelisted'],
		['403', 'ERROR', 'APIs not enabled'],
		['412', 'ERROR', 'Token missing in the request'],
		['422', 'ERROR', 'Status is invalid'],
		['422', 'ERROR', 'startTime should be less than or equal to EndTime'],
		[
			'422',
			'ERROR',
			'Maximum time difference can be up to 7 days and startTime should be within 90 days from now',
		],
		['422', 'ERROR', 'startTime should be of the format yyyy-mm-dd hh:mm:ss'],
		['422', 'ERROR', 'endTime should be of the format yyyy-mm-dd hh:mm:ss'],
		['520', 'ERROR', 'Unknown error occurred'],
	],
	// Get paylink status
	getPaylinkStatus: [
		['200', 'SUCCESS', 'Paylink details retrieved'],
		['404', 'ERROR', 'does not exist'],
	],
};

const key = (operation: string, subCode: string, status: string) =>
	`${operation} ${subCode} ${status}`;

test("every row of the document's error tables has its own trigger, with the same subCode, status and message", () => {
	const unused = triggers.filter((row) => row.operation !== 'generateToken');
	const missing: string[] = [];
	const rows = Object.entries(documentRows).flatMap(([operation, table]) =>
		table.map(([subCode, status, text]) => ({ operation, subCode, status, text })),
	);
	for (const { operation, subCode, status, text } of rows) {
		// The most specific trigger first: an exact message, then one that contains the text.
		const candidates = unused.filter(
			(row) => key(row.operation, row.subCode, row.status) === key(operation, subCode, status),
		);
		const found =
			candidates.find((row) => row.message.toLowerCase() === text.toLowerCase()) ??
			candidates.find((row) => row.message.toLowerCase().includes(text.toLowerCase()));
		if (!found) missing.push(`${key(operation, subCode, status)} ${text}`);
		else unused.splice(unused.indexOf(found), 1);
	}
	expect(missing).toEqual([]);
	// No trigger stands for a row the document does not have (the token endpoint's are the sandbox's own).
	expect(unused.map((row) => row.id)).toEqual([]);
});

test('descriptive rows get concrete text: a support form, the paylink id, a reference', () => {
	const byId = Object.fromEntries(triggers.map((row) => [row.id, row]));
	expect(byId['card-403-apis'].message).toMatch(/^APIs not enabled.*support form/);
	expect(byId['paylink-404'].message).toContain(seed.paylinks.unknown);
	expect(byId['internal-200'].message).toMatch(/Reference <n>.*Internal Fund Transfer/);
});

test('docs/sandbox.md carries the trigger table exactly as print-triggers.js prints it', () => {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { PAGE, table } = require('../../sandbox/print-triggers') as {
		PAGE: string;
		table: () => string;
	};
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const page = (require('node:fs') as typeof import('node:fs')).readFileSync(PAGE, 'utf8');
	expect(PAGE.endsWith('docs/sandbox.md')).toBe(true);
	expect(page.includes(table())).toBe(true);
});

test("trigger ids are unique and requests use the API's own paths", () => {
	expect(new Set(triggers.map((row) => row.id)).size).toBe(triggers.length);
	for (const row of triggers)
		expect(row.request.path).toMatch(/^\/(payout\/v1(\.2)?|verification\/oauth2)\//);
});

async function send(sandbox: Sandbox, request: Trigger['request']) {
	const url = new URL(request.path, sandbox.baseUrl);
	for (const [name, value] of Object.entries(request.query ?? {}))
		url.searchParams.set(name, String(value));
	const headers: Record<string, string> = {
		'content-type': 'application/json',
		...request.headers,
	};
	if (request.token !== null)
		headers.authorization = `Bearer ${request.token ?? seed.credentials.accessToken}`;
	const response = await fetch(url, {
		method: request.method,
		headers,
		body: request.body === undefined ? undefined : JSON.stringify(request.body),
	});
	const text = await response.text();
	return {
		status: response.status,
		contentType: response.headers.get('content-type') ?? '',
		body: JSON.parse(text) as Record<string, unknown>,
	};
}

describe.each(['mirror', 'always200'] as const)('each trigger over HTTP, style %s', (httpStyle) => {
	let sandbox: Sandbox;
	beforeAll(async () => {
		sandbox = await startSandbox({ port: 0, host: '127.0.0.1', httpStyle });
	});
	afterAll(() => sandbox.close());
	beforeEach(() => sandbox.reset());

	test.each(triggers.map((row) => [row.id, row] as const))('%s', async (_id, row) => {
		const answer = await send(sandbox, row.request);
		// The token endpoint's errors (the sandbox's own) have the envelope's shape and follow the style too.
		expect(answer.status).toBe(httpStyle === 'mirror' ? Number(row.subCode) : 200);
		if (row.operation === 'generateToken') {
			if (row.status === 'SUCCESS') {
				expect(answer.body).toEqual({
					reference_id: expect.any(Number),
					verification_id: expect.any(String),
					expiry: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
					access_token: expect.any(String),
				});
				return;
			}
		}
		expect(answer.body).toMatchObject({ status: row.status, subCode: row.subCode });
		if (row.message.includes('<n>'))
			expect(answer.body.message).toMatch(new RegExp(`^${row.message.replace('<n>', '\\d+')}$`));
		else expect(answer.body.message).toBe(row.message);
		if (row.status === 'ERROR')
			expect(Object.keys(answer.body).sort()).toEqual(['message', 'status', 'subCode']);
		else if (['cardTransfer', 'standardTransfer'].includes(row.operation)) {
			expect(answer.body.data).toEqual({
				referenceId: expect.any(String),
				utr: expect.any(String),
				acknowledged: row.status === 'PENDING' ? 0 : 1,
			});
			if (row.status === 'SUCCESS') expect((answer.body.data as { utr: string }).utr).not.toBe('');
			if (row.status === 'PENDING') expect((answer.body.data as { utr: string }).utr).toBe('');
		}
		if (row.operation === 'cardTransfer' && row.subCode === '200')
			expect(answer.contentType).toMatch(/^text\/plain/);
	});
});

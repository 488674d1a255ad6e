/**
 * Fuzzing with fast-check, against the real sandbox:
 * (a) every parameter of every operation with random strings, numbers, unicode, whitespace,
 *     empty and huge values: either the item gets a clear item-indexed error naming the parameter
 *     and nothing is sent, or the sandbox accepts the value's form too (a differential test of
 *     the node's rules against the service's);
 * (b) random answers (statuses, content types, bodies, truncated JSON): the node never throws a
 *     raw error or hangs; every answer becomes an outcome or a clear NodeApiError.
 */
import fc from 'fast-check';
import type { IDataObject } from 'n8n-workflow';

import { freshDatabase, runNode, stopEngineTimers } from '../../harness/engine';
import { seed, useSandbox } from '../../harness/sandbox';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { fieldRuleMessages, messages } = require('../../sandbox/service') as {
	fieldRuleMessages: Set<string>;
	messages: Record<string, string>;
};

afterAll(stopEngineTimers);
jest.setTimeout(120_000);

const service = useSandbox();

/** Answers that refuse a form and also a business fact (an unknown card token, an unknown fund source). */
const alsoBusiness = new Set([messages.cardToken, messages.piNotAvailable]);

const anyValue = fc.oneof(
	fc.string({ maxLength: 50 }),
	fc.string({ unit: 'binary', maxLength: 20 }),
	fc.string({ unit: fc.constantFrom('a', 'Z', '0', '9', '_', '-', ' ', '.', '\t'), maxLength: 45 }),
	fc.integer(),
	fc.double(),
	fc.stringMatching(/^-?\d{1,7}(\.\d{1,4})?$/),
	fc.constantFrom(
		'',
		' ',
		'   ',
		'\n',
		'x'.repeat(5000),
		'1e3',
		'0.001',
		'100000.001',
		'NaN',
		'Infinity',
		'٣٤',
		'NETWORK_B',
		'CREDIT',
		'imps',
		'2030-12',
		'2026-13',
		'ALL',
		null,
	),
	fc.boolean(),
);

const now = new Date();
const timeValue = fc.oneof(
	anyValue,
	fc
		.integer({ min: -100 * 24, max: 24 })
		.map((hours) => new Date(now.getTime() + hours * 3600000).toISOString()),
	fc
		.integer({ min: -100 * 24, max: 24 })
		.map((hours) =>
			new Date(now.getTime() + hours * 3600000).toISOString().replace('T', ' ').slice(0, 19),
		),
);

interface Target {
	type: string;
	operation: string;
	base: IDataObject;
	additional: string[];
	fuzz: string[];
	value?: fc.Arbitrary<unknown>;
}

/** Each operation with a valid item, the optional fields, and the fields to fuzz. */
const targets: Target[] = [
	{
		type: 'payoutsTransfer',
		operation: 'cardTransfer',
		base: {
			token: seed.cards.success1,
			amount: '10.00',
			cardType: 'CREDIT',
			networkType: 'NETWORK_B',
		},
		additional: [
			'remarks',
			'name',
			'networkType',
			'cryptogram',
			'tokenExpiry',
			'tokenPANSequenceNumber',
		],
		fuzz: [
			'amount',
			'transferId',
			'cardType',
			'remarks',
			'name',
			'networkType',
			'cryptogram',
			'tokenExpiry',
			'tokenPANSequenceNumber',
		],
	},
	{
		type: 'payoutsTransfer',
		operation: 'standardTransfer',
		base: { beneId: seed.beneficiaries.verified, amount: 150, transferMode: 'banktransfer' },
		additional: ['paymentInstrumentId', 'remarks'],
		fuzz: ['beneId', 'amount', 'transferId', 'transferMode', 'paymentInstrumentId', 'remarks'],
	},
	{
		type: 'payoutsTransfer',
		operation: 'internalTransfer',
		base: { amount: 10, rechargeAccount: seed.rechargeAccounts.configured },
		additional: ['transferId'],
		fuzz: ['amount', 'rechargeAccount', 'transferId'],
	},
	{
		type: 'payoutsBeneficiary',
		operation: 'get',
		base: { beneId: seed.beneficiaries.verified },
		additional: [],
		fuzz: ['beneId'],
	},
	{
		type: 'payoutsPaylink',
		operation: 'getStatus',
		base: { paylinkId: seed.paylinks.active },
		additional: [],
		fuzz: ['paylinkId'],
	},
	{
		type: 'payoutsOAuth',
		operation: 'generateToken',
		base: { authCode: seed.authCodes[0] },
		additional: [],
		fuzz: ['authCode'],
	},
	{
		type: 'payoutsIncident',
		operation: 'getMany',
		base: { status: 'ALL' },
		additional: ['startTime', 'endTime', 'entityCode'],
		fuzz: ['status', 'startTime', 'endTime', 'entityCode'],
		value: timeValue,
	},
];

let runCounter = 0;

/** The node with every field taken from the input item, as from a spreadsheet. */
function nodeFor(target: Target, fields: string[]) {
	const parameters: IDataObject = {
		operation: target.operation,
		additionalFields: {},
		options: {},
	};
	for (const field of fields) {
		const expression = `={{ $json.${field} }}`;
		if (target.additional.includes(field))
			(parameters.additionalFields as IDataObject)[field] = expression;
		else parameters[field] = expression;
	}
	return { type: target.type, continueOnFail: true, parameters };
}

describe('(a) the node refuses what the service would refuse for its form, and sends nothing then', () => {
	for (const target of targets) {
		for (const field of target.fuzz) {
			test(`${target.operation}.${field}`, async () => {
				await fc.assert(
					fc.asyncProperty(target.value ?? anyValue, async (value) => {
						service.sandbox.reset();
						freshDatabase();
						const unique = `fz_${++runCounter}`;
						const item: IDataObject = {
							...target.base,
							transferId: unique,
							[field]: value as never,
						};
						const fields = [
							...new Set([
								...Object.keys(target.base),
								...(target.type === 'payoutsTransfer' ? ['transferId'] : []),
								field,
							]),
						];
						const { items, error } = await runNode(
							nodeFor(target, fields),
							[item],
							service.credentials(),
						);
						expect(error).toBeUndefined();
						// Incidents give one item per incident (none, or several); every other operation one.
						if (target.operation !== 'getMany') expect(items).toHaveLength(1);
						const answer = items[0]?.json ?? { status: 'SUCCESS' };
						if (service.sandbox.requests().length === 0) {
							// Refused before sending: a clear error naming a parameter and the item.
							expect(answer).toMatchObject({ status: 'ERROR', subCode: null });
							expect(String(answer.error)).toMatch(
								/^(The parameters could not be read: .+|'[^']+' .+) \[item 0\]$/,
							);
						} else if (answer.status === 'ERROR' || answer.status === 'UNKNOWN') {
							const refusedForm =
								fieldRuleMessages.has(String(answer.message)) &&
								!alsoBusiness.has(String(answer.message));
							expect({ field, value, refusedForm, message: answer.message }).toEqual({
								field,
								value,
								refusedForm: false,
								message: answer.message,
							});
						}
					}),
					{ numRuns: 40 },
				);
			});
		}
	}
});

const statuses = fc.constantFrom(
	200,
	201,
	202,
	400,
	401,
	403,
	404,
	409,
	412,
	422,
	429,
	500,
	502,
	503,
	504,
	520,
);
const contentTypes = fc.constantFrom(
	'application/json',
	'text/plain',
	'text/html',
	'application/xml',
	'',
);
const envelope = fc.record(
	{
		status: fc.oneof(
			fc.constantFrom('SUCCESS', 'PENDING', 'ERROR', 'success', ''),
			fc.integer(),
			fc.constant(null),
		),
		subCode: fc.oneof(
			fc.constantFrom('200', '201', '400', '404', '422', '520', '999'),
			fc.integer({ min: 0, max: 999 }),
			fc.constant(null),
		),
		message: fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.constant(undefined)),
		data: fc.oneof(
			fc.object(),
			fc.array(fc.anything(), { maxLength: 3 }),
			fc.string(),
			fc.constant(null),
			fc.record({
				incidents: fc.oneof(
					fc.array(fc.object(), { maxLength: 3 }),
					fc.string(),
					fc.constant(null),
				),
			}),
		),
	},
	{ requiredKeys: [] },
);
const body = fc.oneof(
	envelope.map((value) => JSON.stringify(value)),
	envelope
		.map((value) => JSON.stringify(value))
		.map((text) => text.slice(0, Math.max(1, Math.floor(text.length / 2)))),
	fc.json(),
	fc.string({ maxLength: 200 }),
	fc.constantFrom(
		'',
		'<html><body>Bad gateway</body></html>',
		'null',
		'[]',
		'{}',
		'"text"',
		'{"status":"SUCCESS"}',
	),
);

const answerTargets = [
	{
		type: 'payoutsTransfer',
		parameters: {
			operation: 'standardTransfer',
			beneId: seed.beneficiaries.verified,
			amount: 150,
			transferId: 'fuzz_answer_1',
			transferMode: 'banktransfer',
			additionalFields: {},
		},
	},
	{
		type: 'payoutsTransfer',
		parameters: {
			operation: 'internalTransfer',
			amount: 10,
			rechargeAccount: seed.rechargeAccounts.configured,
			additionalFields: {},
		},
	},
	{
		type: 'payoutsIncident',
		parameters: {
			operation: 'getMany',
			status: 'ALL',
			additionalFields: {},
			options: { retries: 0 },
		},
	},
	{
		type: 'payoutsBeneficiary',
		parameters: { operation: 'get', beneId: seed.beneficiaries.verified, options: { retries: 0 } },
	},
	{ type: 'payoutsOAuth', parameters: { operation: 'generateToken', authCode: seed.authCodes[0] } },
];

describe('(b) any answer becomes an outcome or a clear NodeApiError', () => {
	test.each(answerTargets.map((target) => [target.parameters.operation, target] as const))(
		'%s',
		async (_, target) => {
			await fc.assert(
				fc.asyncProperty(statuses, contentTypes, body, async (status, contentType, text) => {
					service.sandbox.reset();
					freshDatabase();
					service.sandbox.configure({
						faults: [{ fault: 'replay', status, body: text, contentType }],
					});
					const thrown = await runNode(target, [{}], service.credentials());
					if (thrown.error) {
						expect(['NodeApiError', 'NodeOperationError']).toContain(thrown.error.name);
						expect(thrown.error.message).toMatch(/\[item 0\]$/);
						expect(thrown.error.message).not.toMatch(/TypeError|Cannot read|undefined is not/);
					} else {
						for (const item of thrown.items) expect(item.pairedItem).toEqual({ item: 0 });
					}
					const kept = await runNode(
						{ ...target, continueOnFail: true },
						[{}, {}],
						service.credentials(),
					);
					expect(kept.error).toBeUndefined();
					for (const item of kept.items)
						expect([0, 1]).toContain((item.pairedItem as { item: number }).item);
					// Every input item that did not succeed is accounted for by an error item.
					for (const index of [0, 1]) {
						const own = kept.items.filter(
							(item) => (item.pairedItem as { item: number }).item === index,
						);
						if (target.parameters.operation !== 'getMany') expect(own.length).toBeGreaterThan(0);
					}
				}),
				{ numRuns: 60 },
			);
		},
	);
});

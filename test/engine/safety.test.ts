/**
 * Money safety under faults: no transfer is ever sent with a new transferId, an answer that did
 * not come is an explicit unknown outcome, retries reuse the transferId, reads retry on server
 * faults but never on 4xx. (n8n's Retry On Fail, execution retry and loops: exactlyOnce.test.ts.)
 */
import { runNode, stopEngineTimers } from '../../harness/engine';
import { seed, useSandbox } from '../../harness/sandbox';
import { standardTransfer } from './setup';

afterAll(stopEngineTimers);

const service = useSandbox();

const row = (transferId: string, amount = 100) => ({
	beneId: seed.beneficiaries.verified,
	amount,
	transferId,
});

const sentIds = () =>
	service.sandbox.requests().map((request) => (request.body as { transferId?: string }).transferId);

describe('a transfer without a clear answer is an unknown outcome, never a guess', () => {
	test.each(['drop-after', 'drop-before', 'html-500', 'error-520', 'malformed-json', 'empty-body'])(
		'%s',
		async (fault) => {
			service.sandbox.configure({ faults: [{ fault, times: 1 }] });
			const { error } = await runNode(
				standardTransfer(),
				[row('unknown_1')],
				service.credentials(),
			);
			expect(error?.name).toBe('NodeApiError');
			expect(error?.message).toMatch(/^The outcome of the transfer is unknown: .* \[item 0\]$/);
			expect(error?.description).toContain('unknown_1');
			expect(error?.description).toMatch(
				/Run the row again with the same Transfer ID \(unknown_1\)/,
			);
			expect(error?.description).toMatch(/Never give it a new Transfer ID/);
			expect(sentIds()).toEqual(['unknown_1']);
		},
	);

	test('a timeout is unknown too', async () => {
		service.sandbox.configure({ faults: [{ fault: 'stall', times: 1 }] });
		const { error } = await runNode(
			standardTransfer({ timeout: 1000 }),
			[row('timeout_1')],
			service.credentials(),
		);
		expect(error?.message).toContain(
			'The outcome of the transfer is unknown: the request timed out',
		);
	});

	test('under Continue On Fail the item says UNKNOWN and carries the transferId', async () => {
		service.sandbox.configure({
			faults: [{ fault: 'drop-after', match: { transferId: 'cof_unknown_2' } }],
		});
		const { items } = await runNode(
			standardTransfer({}, { continueOnFail: true }),
			[row('cof_unknown_1'), row('cof_unknown_2'), row('cof_unknown_3')],
			service.credentials(),
		);
		expect(items.map((item) => item.json.status)).toEqual(['SUCCESS', 'UNKNOWN', 'SUCCESS']);
		expect(items[1].json).toMatchObject({
			transferId: 'cof_unknown_2',
			subCode: null,
			hint: expect.stringMatching(/the service refuses a second transfer with it/),
		});
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
	});

	test('"no response from bank" (201 ERROR) is unknown, with the service\'s message', async () => {
		const { items } = await runNode(
			standardTransfer({}, { continueOnFail: true }),
			[{ ...row('bank_silent_1'), beneId: seed.beneficiaries.noBankResponse }],
			service.credentials(),
		);
		expect(items[0].json).toMatchObject({
			status: 'UNKNOWN',
			subCode: '201',
			transferId: 'bank_silent_1',
		});
	});

	test('PENDING answers are outcomes, not unknowns', async () => {
		const { items, error } = await runNode(
			standardTransfer(),
			[{ ...row('pending_1'), beneId: seed.beneficiaries.pendingAtBank }],
			service.credentials(),
		);
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({ status: 'PENDING', transferId: 'pending_1' });
	});
});

describe('retries of unknown outcomes reuse the transferId', () => {
	test('the request reached the service: the retry is refused as a repeat, and the row stays in doubt (the service holds it; its money is in the dashboard)', async () => {
		service.sandbox.configure({ faults: [{ fault: 'drop-after', times: 1 }] });
		const { items } = await runNode(
			standardTransfer({ retries: 2 }, { continueOnFail: true }),
			[row('retry_after_1')],
			service.credentials(),
		);
		expect(items[0].json).toMatchObject({
			status: 'UNKNOWN',
			transferId: 'retry_after_1',
			message: expect.stringMatching(/already exists/i),
			error: expect.stringMatching(/the service holds Transfer ID retry_after_1/),
		});
		expect(sentIds()).toEqual(['retry_after_1', 'retry_after_1']);
		expect(service.sandbox.state().transfers).toHaveLength(1);
	});

	test('the request never got through: the retry pays, once', async () => {
		service.sandbox.configure({ faults: [{ fault: 'drop-before', times: 1 }] });
		const { items } = await runNode(
			standardTransfer({ retries: 2 }),
			[row('retry_before_1')],
			service.credentials(),
		);
		expect(items[0].json).toMatchObject({ status: 'SUCCESS', transferId: 'retry_before_1' });
		expect(sentIds()).toEqual(['retry_before_1', 'retry_before_1']);
		expect(service.sandbox.state().transfers).toHaveLength(1);
	});

	test('without the option a transfer is sent exactly once', async () => {
		service.sandbox.configure({ faults: [{ fault: 'html-500', times: 1 }] });
		await runNode(standardTransfer(), [row('once_1')], service.credentials());
		expect(sentIds()).toEqual(['once_1']);
	});

	test('a refused transfer (4xx) is never retried', async () => {
		const { error } = await runNode(
			standardTransfer({ retries: 3 }),
			[{ ...row('refused_1'), beneId: seed.unknownBeneId }],
			service.credentials(),
		);
		expect(error?.httpCode).toBe('404');
		expect(sentIds()).toEqual(['refused_1']);
	});
});

describe('reads retry on server faults, never on 4xx', () => {
	const beneficiary = (beneId: string, options: Record<string, unknown> = {}) => ({
		type: 'payoutsBeneficiary',
		parameters: { operation: 'get', beneId, options },
	});

	test.each(['error-520', 'html-500', 'drop-before', 'malformed-json'])(
		'%s then success',
		async (fault) => {
			service.sandbox.configure({ faults: [{ fault, times: 1 }] });
			const { items, error } = await runNode(
				beneficiary(seed.beneficiaries.verified),
				[{}],
				service.credentials(),
			);
			expect(error).toBeUndefined();
			expect(items[0].json.beneId).toBe(seed.beneficiaries.verified);
			expect(service.sandbox.requests()).toHaveLength(2);
		},
	);

	test('404 is answered once', async () => {
		const { error } = await runNode(beneficiary(seed.unknownBeneId), [{}], service.credentials());
		expect(error?.httpCode).toBe('404');
		expect(service.sandbox.requests()).toHaveLength(1);
	});

	test('retries are bounded', async () => {
		service.sandbox.configure({ faults: [{ fault: 'error-520' }] });
		const { error } = await runNode(
			beneficiary(seed.beneficiaries.verified, { retries: 2 }),
			[{}],
			service.credentials(),
		);
		expect(error?.httpCode).toBe('520');
		expect(service.sandbox.requests()).toHaveLength(3);
	});
});

describe('the bearer token never travels in clear', () => {
	test.each(['http://payouts.example.com', 'http://10.0.0.5:8080'])(
		'%s is refused before anything is sent',
		async (baseUrl) => {
			const { error } = await runNode(
				standardTransfer(),
				[row('clear_1')],
				service.credentials({ baseUrl }),
			);
			expect(error?.message).toBe("The credential's 'Base URL' must use https");
			expect(error?.description).toContain('unencrypted');
			expect(service.sandbox.requests()).toEqual([]);
		},
	);

	test('plain http to localhost is fine (the sandbox)', async () => {
		const port = new URL(service.sandbox.baseUrl).port;
		const { error } = await runNode(
			standardTransfer(),
			[row('local_1')],
			service.credentials({ baseUrl: `http://localhost:${port}` }),
		);
		expect(error).toBeUndefined();
	});
});

test('a dry run of every transfer operation validates, describes and sends nothing', async () => {
	const dry = { dryRun: true };
	const card = {
		type: 'payoutsTransfer',
		parameters: {
			operation: 'cardTransfer',
			token: seed.cards.success1,
			amount: '10',
			transferId: 'dry_card',
			cardType: 'CREDIT',
			additionalFields: {},
			options: dry,
		},
	};
	const internal = {
		type: 'payoutsTransfer',
		parameters: {
			operation: 'internalTransfer',
			amount: 10,
			rechargeAccount: seed.rechargeAccounts.configured,
			topUpKey: 'dry-key',
			additionalFields: {},
			options: dry,
		},
	};
	for (const node of [standardTransfer(dry), card, internal]) {
		const { items, error } = await runNode(node, [row('dry_std')], service.credentials());
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({
			dryRun: true,
			method: 'POST',
			url: expect.stringContaining(service.sandbox.baseUrl),
		});
	}
	const { error } = await runNode(
		standardTransfer(dry),
		[row('dry_bad', 0.5)],
		service.credentials(),
	);
	expect(error?.message).toContain("'Amount' must be at least 1.00");
	expect(service.sandbox.requests()).toEqual([]);
});

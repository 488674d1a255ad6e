/**
 * Arbitrary bodies to the three transfer paths never crash or hang the sandbox: every answer is
 * the service's envelope, and the money that left the account is exactly the sum of the
 * transfers it recorded (nothing moves on a refused request, nothing moves twice).
 */
import fc from 'fast-check';

import { seed, startSandbox } from '../../harness/sandbox';
import type { Sandbox } from '../../harness/sandbox';

const paths = ['/payout/v1/cardpay', '/payout/v1.2/requestTransfer', '/payout/v1/internalTransfer'];

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox({ port: 0 });
});
afterAll(() => sandbox.close());

const field = fc.oneof(
	fc.string({ maxLength: 45 }),
	fc.double({ noNaN: false }),
	fc.integer({ min: -10, max: 200000 }),
	fc.constantFrom(
		'',
		null,
		true,
		[],
		{},
		'100.00',
		'1',
		150,
		0.5,
		100.255,
		1e21,
		1e300,
		-0,
		seed.existingTransferId,
	),
	fc.constantFrom(
		...Object.values(seed.cards),
		...Object.values(seed.beneficiaries),
		...Object.values(seed.rechargeAccounts),
	),
	fc.constantFrom(
		'banktransfer',
		'neft',
		'imps',
		'rtgs',
		'upi',
		'walletA',
		'walletB',
		'NETWORK_A',
		'NETWORK_B',
		'DEBIT',
		'CREDIT',
	),
);
const body = fc.record(
	{
		token: field,
		beneId: field,
		rechargeAccount: field,
		amount: field,
		transferId: fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{1,42}$/), field),
		transferMode: field,
		cardType: field,
		networkType: field,
		remarks: field,
		paymentInstrumentId: fc.oneof(field, fc.constantFrom('PIBANK1', 'PINEFT1', 'PIIMPS1')),
	},
	{ requiredKeys: [] },
);

test('random bodies: always an envelope, and money moved equals the transfers recorded', async () => {
	sandbox.reset();
	const before = sandbox.state().balances.main;
	await fc.assert(
		fc.asyncProperty(fc.constantFrom(...paths), body, async (path, payload) => {
			const response = await fetch(`${sandbox.baseUrl}${path}`, {
				method: 'POST',
				headers: {
					authorization: `Bearer ${seed.credentials.accessToken}`,
					'content-type': 'application/json',
				},
				body: JSON.stringify(payload),
			});
			const answer = JSON.parse(await response.text());
			expect(answer).toEqual(
				expect.objectContaining({
					status: expect.stringMatching(/^(SUCCESS|PENDING|ERROR)$/),
					subCode: expect.stringMatching(/^\d{3}$/),
					message: expect.any(String),
				}),
			);
			expect(response.status).toBe(Number(answer.subCode));
		}),
		{ numRuns: 300 },
	);
	const { balances, transfers } = sandbox.state();
	const moved = transfers.reduce((sum, transfer) => sum + Math.round(transfer.amount * 100), 0);
	expect(Math.round((before - balances.main) * 100)).toBe(moved);
	expect(new Set(transfers.map((transfer) => transfer.transferId)).size).toBe(transfers.length);
});

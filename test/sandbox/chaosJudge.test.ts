/**
 * The chaos run's judge (scripts/chaos.js): what it counts from the ledger and the saved outputs.
 * The run itself is test/e2e/chaos.test.ts; this proves the verdict can say "no".
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { judge } = require('../../scripts/chaos.js');

const standard = (index: number) => ({ operation: 'standardTransfer', transferId: `chaos_std_${index}`, amount: 1 });
const card = (index: number) => ({ operation: 'cardTransfer', transferId: `chaos_card_${index}`, amount: 1 });
const internal = (index: number, transferId: string) => ({ operation: 'internalTransfer', transferId, amount: (100 + index) / 100 });

test('every row once and every output backed by its own payment: a clean verdict', () => {
	const ledger = [standard(0), standard(1), card(0), card(1), internal(0, 'n8n-a'), internal(1, 'n8n-b')];
	const outputs = [
		{ kind: 'standard', items: [{ status: 'SUCCESS', transferId: 'chaos_std_0' }, { status: 'ALREADY_SUBMITTED', transferId: 'chaos_std_1' }] },
		{ kind: 'internal', items: [{ status: 'SUCCESS', transferId: 'n8n-a' }, { status: 'UNKNOWN', transferId: 'n8n-b' }] },
	];
	expect(judge(ledger, outputs, 2)).toEqual({ rows: 6, paidOnce: 6, paidTwice: 0, unpaid: 0, untrue: 0, untrueExamples: [] });
});

test('a row paid twice, a row unpaid, and outputs that say paid without their own payment are all counted', () => {
	const ledger = [standard(0), standard(0), card(0), internal(0, 'n8n-a'), internal(1, 'n8n-b')];
	const outputs = [
		// chaos_std_1 was never paid; the card item names another row's Transfer ID.
		{ kind: 'standard', items: [{ status: 'SUCCESS', transferId: 'chaos_std_0' }, { status: 'SUCCESS', transferId: 'chaos_std_1' }] },
		{ kind: 'card', items: [{ status: 'SUCCESS', transferId: 'chaos_card_0' }, { status: 'ALREADY_SUBMITTED', transferId: 'chaos_card_0' }] },
		// Row 0's item names row 1's payment: a payment, but not its own.
		{ kind: 'internal', items: [{ status: 'SUCCESS', transferId: 'n8n-b' }, { status: 'SUCCESS', transferId: 'n8n-b' }] },
	];
	const verdict = judge(ledger, outputs, 2);
	expect({ paidOnce: verdict.paidOnce, paidTwice: verdict.paidTwice, unpaid: verdict.unpaid, untrue: verdict.untrue }).toEqual({ paidOnce: 3, paidTwice: 1, unpaid: 2, untrue: 3 });
	expect(verdict.untrueExamples.map((example: { kind: string; index: number }) => `${example.kind} ${example.index}`)).toEqual(['standard 1', 'card 1', 'internal 0']);
});

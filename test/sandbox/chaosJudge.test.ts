/**
 * The chaos run's judge (scripts/chaos.js): what it counts from the ledger and the saved outputs.
 * The runs themselves are `npm run chaos` and test/e2e/chaosTopUps.test.ts; this proves the
 * judgement can say "no".
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { judge } = require('../../scripts/chaos.js');

const standard = (index: number, again = '') => ({
	operation: 'standardTransfer',
	transferId: `chaos_std_${index}${again}`,
	amount: 1,
});
const card = (index: number) => ({
	operation: 'cardTransfer',
	transferId: `chaos_card_${index}`,
	amount: 1,
});
const internal = (index: number, transferId: string) => ({
	operation: 'internalTransfer',
	transferId,
	amount: (100 + index) / 100,
});
const rows = (count: number, kinds = ['standard', 'card', 'internal']) =>
	kinds.flatMap((kind) => Array.from({ length: count }, (_, index) => `${kind}:${index}`));

test('every row once and every output backed by its own payment: a clean judgement, a row paid under a new Transfer ID included', () => {
	const ledger = [
		standard(0),
		standard(1, '_r1'),
		card(0),
		card(1),
		internal(0, 'n8n-a'),
		internal(1, 'n8n-b'),
	];
	const outputs = [
		{
			kind: 'standard',
			run: 1,
			items: [
				{ status: 'SUCCESS', transferId: 'chaos_std_0' },
				{ status: 'ERROR', nextStep: 'newTransferId', transferId: 'chaos_std_1' },
			],
		},
		{
			kind: 'standard',
			run: 2,
			items: [
				{ status: 'ALREADY_SUBMITTED', transferId: 'chaos_std_0' },
				{ status: 'SUCCESS', transferId: 'chaos_std_1_r1' },
			],
		},
		{
			kind: 'internal',
			run: 1,
			items: [
				{ status: 'SUCCESS', transferId: 'n8n-a' },
				{ status: 'UNKNOWN', transferId: 'n8n-b' },
			],
		},
	];
	expect(judge(ledger, outputs, rows(2))).toEqual({
		rows: 6,
		paidOnce: 6,
		paidTwice: 0,
		unpaid: 0,
		untrue: 0,
		paidTwiceExamples: [],
		foreignTransfers: 0,
		untrueExamples: [],
	});
});

test('a row paid twice, a row unpaid, outputs that say paid without their own payment, and "did not pay" of a booked Transfer ID are all counted', () => {
	const ledger = [
		standard(0),
		standard(0),
		card(0),
		internal(0, 'n8n-a'),
		internal(1, 'n8n-b'),
		{ operation: 'standardTransfer', transferId: 'someone_else', amount: 1 },
	];
	const outputs = [
		// chaos_std_1 was never paid; the card item names another row's Transfer ID.
		{
			kind: 'standard',
			run: 1,
			items: [
				{ status: 'SUCCESS', transferId: 'chaos_std_0' },
				{ status: 'SUCCESS', transferId: 'chaos_std_1' },
			],
		},
		{
			kind: 'card',
			run: 1,
			items: [
				{ status: 'SUCCESS', transferId: 'chaos_card_0' },
				{ status: 'ALREADY_SUBMITTED', transferId: 'chaos_card_0' },
			],
		},
		// Row 0's item names row 1's payment: a payment, but not its own; row 1 is booked, yet said not to have paid.
		{
			kind: 'internal',
			run: 1,
			items: [
				{ status: 'SUCCESS', transferId: 'n8n-b' },
				{ status: 'ERROR', nextStep: 'newTransferId', transferId: 'n8n-b' },
			],
		},
	];
	const judged = judge(ledger, outputs, rows(2));
	expect({
		paidOnce: judged.paidOnce,
		paidTwice: judged.paidTwice,
		unpaid: judged.unpaid,
		untrue: judged.untrue,
		foreign: judged.foreignTransfers,
	}).toEqual({ paidOnce: 3, paidTwice: 1, unpaid: 2, untrue: 4, foreign: 1 });
	expect(judged.paidTwiceExamples).toEqual(['standard:0']);
	expect(
		judged.untrueExamples.map(
			(example: { kind: string; index: number; said: string }) =>
				`${example.kind} ${example.index} ${example.said}`,
		),
	).toEqual(['standard 1 paid', 'card 1 paid', 'internal 0 paid', 'internal 1 did not pay']);
});

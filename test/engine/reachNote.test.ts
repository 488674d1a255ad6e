/**
 * The record's room, in n8n's engine: n8n drops a processed-data row's oldest entries past its
 * limit, and a dropped entry is a forgotten payment, so the record never lets that happen. From
 * NEARLY_FULL entries every row a run writes says how full the workflow's record is (`recordNote`);
 * past NEW_KEY_LIMIT it takes on no transfer it does not hold: an internal top-up (the record is its
 * only guard) is refused and nothing is sent; a card or standard transfer (the service refuses a
 * repeat) is sent without a record and says so. The transfers it holds read what it holds, and
 * nothing it held is dropped. The workflow's row is filled through n8n's own store calls with entries
 * n8n counts (harness/processedData.ts), as earlier runs leave them.
 */
import type { IDataObject } from 'n8n-workflow';

import { ENTRY_LIMIT, NEW_KEY_LIMIT } from '../../nodes/shared/record';
import { restartN8n, runNode, workflowIdOfTest } from '../../harness/engine';
import {
	heldByRecord,
	recordSize,
	storeAtRest,
	writeIntoRecord,
} from '../../harness/processedData';
import { seed } from '../../harness/sandbox';
import { expectEachPaidOnce, statuses, transferRequests } from './ledger';
import { useSandboxBookingRepeats } from './setup';

jest.setTimeout(120_000);

const service = useSandboxBookingRepeats();

/** From here on every row a run writes says how full the record is. */
const NEARLY_FULL = NEW_KEY_LIMIT - 2_000;
const thousands = (count: number) => count.toLocaleString('en-US');

const nodes = {
	internal: (options: IDataObject = {}, extra: IDataObject = {}) => ({
		type: 'payoutsTransfer',
		parameters: {
			operation: 'internalTransfer',
			amount: '={{ $json.amount }}',
			rechargeAccount: seed.rechargeAccounts.configured,
			topUpKey: '={{ $json.transferId }}',
			additionalFields: {},
			options: { concurrency: 1, ...options },
		},
		...extra,
	}),
	standard: (options: IDataObject = {}, extra: IDataObject = {}) => ({
		type: 'payoutsTransfer',
		parameters: {
			operation: 'standardTransfer',
			beneId: seed.beneficiaries.verified,
			amount: '={{ $json.amount }}',
			transferId: '={{ $json.transferId }}',
			transferMode: 'banktransfer',
			additionalFields: {},
			options: { concurrency: 1, ...options },
		},
		...extra,
	}),
	card: (options: IDataObject = {}, extra: IDataObject = {}) => ({
		type: 'payoutsTransfer',
		parameters: {
			operation: 'cardTransfer',
			token: seed.cards.success2,
			amount: '={{ String($json.amount) }}',
			transferId: '={{ $json.transferId }}',
			cardType: 'CREDIT',
			additionalFields: {},
			options: { concurrency: 1, ...options },
		},
		...extra,
	}),
};
const rows = (count: number, prefix: string) =>
	Array.from({ length: count }, (_, index) => ({
		amount: 1 + index,
		transferId: `${prefix}_${index}`,
	}));

/** Marks earlier runs left in the workflow's record, up to `size` in all: returns them. */
async function fillRecordTo(size: number): Promise<string[]> {
	const earlier = Array.from(
		{ length: size - (await recordSize(workflowIdOfTest())) },
		(_, index) => `earlier:${index}`,
	);
	await writeIntoRecord(workflowIdOfTest(), earlier);
	expect(await recordSize(workflowIdOfTest())).toBe(size);
	return earlier;
}

test.each([
	['internal', 'refuses new top-ups \\(nothing sent\\)'],
	[
		'standard',
		'sends new transfers without recording them \\(a repeat then reads ALREADY_EXISTS\\)',
	],
] as const)(
	`%s: below ${thousands(NEARLY_FULL)} entries nothing is said; a row claimed from there on says how full the record is and what happens from ${thousands(NEW_KEY_LIMIT)}`,
	async (kind, what) => {
		await fillRecordTo(NEARLY_FULL - 20);
		const { items, error } = await runNode(
			nodes[kind](),
			rows(60, `near_${kind}`),
			service.credentials(),
		);
		expect(error).toBeUndefined();
		expect(items.every((item) => item.json.status === 'SUCCESS')).toBe(true);
		const notes = items.map((item) => item.json.recordNote as string | undefined);
		// Each row says what the record's size was when it was claimed: after the first note, forgets
		// that land between claims can take a row back under that size, and such a row says nothing.
		expect(notes[0]).toBeUndefined();
		expect(notes.at(-1)).toBeDefined();
		for (const note of notes.filter((entry) => entry !== undefined)) {
			expect(note).toMatch(
				new RegExp(
					`^The record of sent transfers holds 48,\\d{3} entries; from ${thousands(NEW_KEY_LIMIT)} on it ${what}, so that it never forgets a transfer it holds\\.$`,
				),
			);
		}
	},
);

test(`past ${thousands(NEW_KEY_LIMIT)} entries: new top-ups are refused and nothing is sent for them, new card and standard transfers are sent without a record and say so, and every transfer the record held still reads what it held`, async () => {
	// What earlier runs left: paid top-ups, a top-up in doubt, paid standard and card transfers.
	const paidTopUps = rows(3, 'kept_topup');
	const [inDoubt] = rows(1, 'kept_doubt').map((row) => ({ ...row, amount: 50 }));
	const paidStandard = rows(2, 'kept_std').map((row) => ({ ...row, amount: row.amount + 100 }));
	const [paidCard] = rows(1, 'kept_card').map((row) => ({ ...row, amount: 200 }));
	await runNode(nodes.internal(), paidTopUps, service.credentials());
	service.sandbox.configure({ faults: [{ fault: 'drop-after', times: 1 }] });
	await runNode(nodes.internal({}, { continueOnFail: true }), [inDoubt], service.credentials());
	service.sandbox.configure({ faults: [] });
	await runNode(nodes.standard(), paidStandard, service.credentials());
	await runNode(nodes.card(), [paidCard], service.credentials());
	await storeAtRest();
	const earlier = await fillRecordTo(NEW_KEY_LIMIT);
	// A restarted n8n: what the rows read comes from n8n's database alone.
	restartN8n();
	service.sandbox.clearRequests();

	const [newTopUp1, newTopUp2] = rows(2, 'new_topup').map((row) => ({
		...row,
		amount: row.amount + 300,
	}));
	const topUps = await runNode(
		nodes.internal({}, { continueOnFail: true }),
		[paidTopUps[0], newTopUp1, paidTopUps[1], inDoubt, newTopUp2, paidTopUps[2]],
		service.credentials(),
	);
	expect(statuses(topUps.items)).toEqual([
		'ALREADY_SUBMITTED',
		'ERROR',
		'ALREADY_SUBMITTED',
		'UNKNOWN',
		'ERROR',
		'ALREADY_SUBMITTED',
	]);
	for (const [item, index] of [
		[topUps.items[1], 1],
		[topUps.items[4], 4],
	] as const) {
		expect(item.json).toMatchObject({
			nextStep: 'fixRow',
			error: expect.stringMatching(
				new RegExp(
					`^Not sent: this workflow's record of sent top-ups is full \\(50,0\\d\\d entries\\) \\[item ${index}\\]$`,
				),
			),
			hint: expect.stringMatching(
				/^Nothing was sent\. The node takes on no new top-up so that it never forgets one it paid\./,
			),
		});
	}
	expect(transferRequests(service.sandbox)).toEqual([]);

	const [newStandard] = rows(1, 'new_std').map((row) => ({ ...row, amount: 400 }));
	const standard = await runNode(
		nodes.standard(),
		[paidStandard[0], newStandard, paidStandard[1]],
		service.credentials(),
	);
	expect(statuses(standard.items)).toEqual(['ALREADY_SUBMITTED', 'SUCCESS', 'ALREADY_SUBMITTED']);
	const [newCard] = rows(1, 'new_card').map((row) => ({ ...row, amount: 500 }));
	const card = await runNode(nodes.card(), [paidCard, newCard], service.credentials());
	expect(statuses(card.items)).toEqual(['ALREADY_SUBMITTED', 'SUCCESS']);
	for (const item of [standard.items[1], card.items[1]])
		expect(item.json.recordNote).toMatch(
			/^The record of sent transfers is full: this transfer was sent without being recorded, so a repeat of it reads ALREADY_EXISTS \(the service still refuses it\)\./,
		);
	expect(transferRequests(service.sandbox)).toEqual([newStandard.transferId, newCard.transferId]);
	// As the note says: a repeat of a transfer sent without a record reads ALREADY_EXISTS, and is not paid again.
	const repeat = await runNode(
		nodes.standard({}, { continueOnFail: true }),
		[newStandard],
		service.credentials(),
	);
	expect(repeat.items[0].json).toMatchObject({ status: 'ALREADY_EXISTS', nextStep: 'lookUp' });

	// Nothing the record held was dropped: every entry earlier runs left is still there, and the row never passed its room.
	await storeAtRest();
	expect(await recordSize(workflowIdOfTest())).toBeLessThanOrEqual(ENTRY_LIMIT);
	expect(await heldByRecord(workflowIdOfTest(), earlier)).toHaveLength(earlier.length);
	expectEachPaidOnce(
		service.sandbox,
		[...paidTopUps, inDoubt, ...paidStandard, paidCard, newStandard, newCard].map(
			(row) => row.amount,
		),
	);
});

// The record is the workflow's, shared by every Payouts Transfer node of it: the note's advice is a
// copy of the workflow (a new id, a record of its own), not of the node.
test("the record-full note's advice, followed literally (a copy of the workflow), gives new transfers a record", async () => {
	await fillRecordTo(NEW_KEY_LIMIT);
	const [sentUnrecorded, afterTheAdvice] = rows(2, 'advice');
	const { items } = await runNode(nodes.standard(), [sentUnrecorded], service.credentials());
	const advice = String(items[0].json.recordNote);
	expect(advice).toMatch(/copy this workflow/);
	const copy = await runNode(nodes.standard(), [afterTheAdvice], service.credentials(), {
		workflowId: `${workflowIdOfTest()}-copy`,
	});
	expect(copy.items[0].json).toMatchObject({ status: 'SUCCESS' });
	expect(copy.items[0].json.recordNote).toBeUndefined();
});

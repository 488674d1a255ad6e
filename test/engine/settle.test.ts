/**
 * Settling rows in doubt with Options > Settle With Dashboard Status, in n8n's engine against the
 * sandbox, whose ledger and dashboard export (test/engine/ledger.ts) are the truth every word is
 * checked against. A user maps the dashboard's word as the export stood when it was taken, which
 * may be before the node's last request, and follows each row's `nextStep` literally.
 *
 * - Where the node guards (internal top-ups): a row in doubt is never sent again on a guess; the
 *   paid words make it ALREADY_SUBMITTED for good, the not-paid words make it ERROR "it did not
 *   pay" (nextStep newTransferId), never a re-send under its Transfer ID.
 * - Where the service guards (card, standard; internal with Service Refuses Repeated Transfer IDs):
 *   a row in doubt is sent again unchanged (the service refuses a repeat), and no dashboard word
 *   ever has it paid under a new Transfer ID unless the service holds it and it failed.
 * - A row never sent: the paid words record it paid (never sent, in this run or any later); the
 *   others let it be sent as usual.
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { restartN8n, runNode } from '../../harness/engine';
import { storeAtRest } from '../../harness/processedData';
import { seed } from '../../harness/sandbox';
import {
	booked,
	dashboardExport,
	expectEachPaidOnce,
	statusCount,
	statuses,
	transferRequests,
} from './ledger';
import { useSandboxBookingRepeats } from './setup';

jest.setTimeout(120_000);

const service = useSandboxBookingRepeats();

const settling = { dashboardStatus: '={{ $json.dashboardStatus }}' };
/** Internal top-ups keyed by the row's `key`: the node's own record is their only guard. */
const internal = (options: IDataObject = {}, extra: IDataObject = {}) => ({
	type: 'payoutsTransfer',
	parameters: {
		operation: 'internalTransfer',
		amount: '={{ $json.amount }}',
		rechargeAccount: seed.rechargeAccounts.configured,
		topUpKey: '={{ $json.key }}',
		additionalFields: {},
		options: { ...settling, ...options },
	},
	...extra,
});
const topUps = (count: number, prefix: string) =>
	Array.from({ length: count }, (_, index) => ({
		amount: (100 + index) / 100,
		key: `${prefix}-${index}`,
	}));

/** The three ways the service guards a Transfer ID, each with a row builder. */
const serviceGuarded = {
	standard: {
		node: (options: IDataObject = {}, extra: IDataObject = {}) => ({
			type: 'payoutsTransfer',
			parameters: {
				operation: 'standardTransfer',
				beneId: seed.beneficiaries.verified,
				amount: '={{ $json.amount }}',
				transferId: '={{ $json.transferId }}',
				transferMode: 'banktransfer',
				additionalFields: {},
				options: { ...settling, ...options },
			},
			...extra,
		}),
	},
	card: {
		node: (options: IDataObject = {}, extra: IDataObject = {}) => ({
			type: 'payoutsTransfer',
			parameters: {
				operation: 'cardTransfer',
				token: seed.cards.success1,
				amount: '={{ String($json.amount) }}',
				transferId: '={{ $json.transferId }}',
				cardType: 'CREDIT',
				additionalFields: {},
				options: { ...settling, ...options },
			},
			...extra,
		}),
	},
	'internal, Service Refuses Repeated Transfer IDs': {
		node: (options: IDataObject = {}, extra: IDataObject = {}) => ({
			type: 'payoutsTransfer',
			parameters: {
				operation: 'internalTransfer',
				amount: '={{ $json.amount }}',
				rechargeAccount: seed.rechargeAccounts.configured,
				additionalFields: { transferId: '={{ $json.transferId }}' },
				options: { serviceRefusesRepeats: true, ...settling, ...options },
			},
			...extra,
		}),
	},
};
type ServiceGuarded = keyof typeof serviceGuarded;
const kinds = Object.keys(serviceGuarded) as ServiceGuarded[];
/** Where the service guards internal transfers, the sandbox refuses a repeated internal Transfer ID too. */
const asTheServiceGuards = (kind: ServiceGuarded) => {
	if (kind.startsWith('internal')) service.sandbox.configure({ internalDuplicates: 'refuse' });
	return serviceGuarded[kind].node;
};
const payout = (transferId: string, amount = 10) => ({ amount, transferId });

/** The words that would have a person pay a transfer again under another Transfer ID. */
const PAY_UNDER_A_NEW_ID = /did not pay|pay (it|this row|this top-up) under a new/i;
const wordsOf = (items: INodeExecutionData[]) =>
	items.map((item) => JSON.stringify(item.json)).join('\n');

describe('a top-up in doubt (the node guards) is never sent again on a guess; the dashboard settles it', () => {
	test("300 top-ups, half of them in doubt, settled in one run from the dashboard's export: paid ones read ALREADY_SUBMITTED, the others ERROR 'it did not pay' and are paid under a new key; each top-up paid once", async () => {
		const rows = topUps(300, 'settle');
		const dry = await runNode(internal({ dryRun: true }), rows, service.credentials());
		const transferIds = dry.items.map(
			(item) => (item.json.body as { transferId: string }).transferId,
		);
		// Every other row without a clear answer: its answer lost after booking, or its request lost before.
		service.sandbox.configure({
			faults: transferIds.flatMap((transferId, index) =>
				index % 4 === 0
					? [{ fault: 'drop-after', match: { transferId }, times: 1 }]
					: index % 4 === 2
						? [{ fault: 'drop-before', match: { transferId }, times: 1 }]
						: [],
			),
		});
		const first = await runNode(
			internal({ concurrency: 1 }, { continueOnFail: true }),
			rows,
			service.credentials(),
		);
		expect(statusCount(first.items)).toEqual({ SUCCESS: 150, UNKNOWN: 150 });
		expect(
			first.items
				.filter((item) => item.json.status === 'UNKNOWN')
				.every((item) => item.json.nextStep === 'settleFromDashboard'),
		).toBe(true);
		expect(booked(service.sandbox)).toHaveLength(225);

		// n8n restarted since; the user exports the dashboard and maps each row's status.
		restartN8n();
		service.sandbox.configure({ faults: [] });
		service.sandbox.clearRequests();
		const exported = dashboardExport(service.sandbox);
		const withStatus = rows.map((row, index) => ({
			...row,
			dashboardStatus: exported(transferIds[index]),
		}));
		const settled = await runNode(
			internal({ concurrency: 10 }, { continueOnFail: true }),
			withStatus,
			service.credentials(),
		);
		expect(statusCount(settled.items)).toEqual({ ALREADY_SUBMITTED: 225, ERROR: 75 });
		expect(transferRequests(service.sandbox)).toEqual([]);
		const notPaid = settled.items
			.map((item, index) => ({ item, row: rows[index] }))
			.filter(({ item }) => item.json.status === 'ERROR');
		for (const { item } of notPaid) {
			expect(item.json).toMatchObject({
				nextStep: 'newTransferId',
				dashboardStatus: 'NOT_FOUND',
				error: expect.stringMatching(
					/which this node sent without a clear answer: it did not pay \[item \d+\]$/,
				),
			});
			expect(booked(service.sandbox).map((transfer) => transfer.transferId)).not.toContain(
				item.json.transferId,
			);
		}

		// As the hint says: a new key pays each of them once.
		const newKeys = await runNode(
			internal(),
			notPaid.map(({ row }) => ({ ...row, key: `${row.key}-new` })),
			service.credentials(),
		);
		expect(statusCount(newKeys.items)).toEqual({ SUCCESS: 75 });
		expectEachPaidOnce(
			service.sandbox,
			rows.map((row) => row.amount),
		);
		// Settled for good: the batch as it was, without the statuses, pays nothing.
		service.sandbox.clearRequests();
		const again = await runNode(
			internal({}, { continueOnFail: true }),
			rows,
			service.credentials(),
		);
		expect(statusCount(again.items)).toEqual({ ALREADY_SUBMITTED: 225, UNKNOWN: 75 });
		expect(transferRequests(service.sandbox)).toEqual([]);
	});

	test("a top-up this node never sent: the dashboard's paid word records it paid, never sent in this run or any later", async () => {
		const [saidPaid] = topUps(1, 'never-paid');
		const { items } = await runNode(
			internal({}, { continueOnFail: true }),
			[{ ...saidPaid, dashboardStatus: 'SUCCESS' }],
			service.credentials(),
		);
		expect(items[0].json).toMatchObject({
			status: 'ALREADY_SUBMITTED',
			dashboardStatus: 'SUCCESS',
			message:
				"The payouts dashboard says SUCCESS for this transfer (Options > 'Settle With Dashboard Status'): not sent",
		});
		restartN8n();
		const later = await runNode(internal(), [saidPaid], service.credentials());
		expect(later.items[0].json.status).toBe('ALREADY_SUBMITTED');
		expect(transferRequests(service.sandbox)).toEqual([]);
	});

	// Only where the service guards does FAILED mean the service holds the Transfer ID; where the node
	// guards and never sent the row, the word says nothing of it.
	test("a top-up this node never sent, with the dashboard's word FAILED, is sent as usual (the note says the word was not needed)", async () => {
		const word = 'FAILED';
		const [saidFailed] = topUps(1, 'never-failed');
		const { items } = await runNode(
			internal({}, { continueOnFail: true }),
			[{ ...saidFailed, dashboardStatus: word }],
			service.credentials(),
		);
		expect(items[0].json).toMatchObject({
			status: 'SUCCESS',
			dashboardStatus: word,
			dashboardStatusNote: 'not needed: this node had not sent this transfer before',
		});
		expectEachPaidOnce(service.sandbox, [saidFailed.amount]);
	});

	test("a top-up this node never sent, with the dashboard's NOT_FOUND: sent as usual", async () => {
		const [notFound] = topUps(1, 'never-notfound');
		const { items } = await runNode(
			internal(),
			[{ ...notFound, dashboardStatus: 'NOT_FOUND' }],
			service.credentials(),
		);
		expect(items[0].json).toMatchObject({
			status: 'SUCCESS',
			dashboardStatus: 'NOT_FOUND',
			dashboardStatusNote: 'not needed: this node had not sent this transfer before',
		});
		expectEachPaidOnce(service.sandbox, [notFound.amount]);
	});

	test("the dashboard's paid word on a top-up in doubt is kept; a not-paid word on one the service answered paid is reported as a contradiction and left alone", async () => {
		const [inDoubtRow, answered] = topUps(2, 'words');
		service.sandbox.configure({ faults: [{ fault: 'drop-after', times: 1 }] });
		const lost = await runNode(
			internal({}, { continueOnFail: true }),
			[inDoubtRow],
			service.credentials(),
		);
		expect(lost.items[0].json.status).toBe('UNKNOWN');
		const settled = await runNode(
			internal(),
			[{ ...inDoubtRow, dashboardStatus: 'SUCCESS' }],
			service.credentials(),
		);
		expect(settled.items[0].json).toMatchObject({
			status: 'ALREADY_SUBMITTED',
			dashboardStatus: 'SUCCESS',
		});
		const later = await runNode(internal(), [inDoubtRow], service.credentials());
		expect(later.items[0].json.status).toBe('ALREADY_SUBMITTED');
		// Answered SUCCESS by the service, but the dashboard row says FAILED: not sent, the contradiction said.
		await runNode(internal(), [answered], service.credentials());
		const contradicted = await runNode(
			internal(),
			[{ ...answered, dashboardStatus: 'FAILED' }],
			service.credentials(),
		);
		expect(contradicted.items[0].json).toMatchObject({
			status: 'ALREADY_SUBMITTED',
			dashboardStatusNote: expect.stringMatching(/contradicts the service's answer/),
			hint: expect.stringMatching(/may have been reversed/),
		});
		expect(transferRequests(service.sandbox)).toHaveLength(2);
		expectEachPaidOnce(service.sandbox, [inDoubtRow.amount, answered.amount]);
	});

	test('a word the node does not read is refused before anything is sent, naming the item, the option and the words', async () => {
		const { error } = await runNode(
			internal(),
			[...topUps(1, 'word'), { ...topUps(2, 'word')[1], dashboardStatus: 'maybe' }],
			service.credentials(),
		);
		expect(error?.message).toBe(
			"'Settle With Dashboard Status' must be one of the dashboard's words SUCCESS, PENDING, FAILED, ERROR, REJECTED, NOT_FOUND (given: \"maybe\") [item 1]",
		);
		expect(transferRequests(service.sandbox)).toEqual([]);
	});
});

describe('where the service guards, a row in doubt is sent again unchanged, and no dashboard word has it paid twice', () => {
	test.each(kinds)(
		"%s: the first request lost before the service, the export's NOT_FOUND, the re-send booked and its answer lost, the same NOT_FOUND again: never 'pay it under a new Transfer ID'",
		async (kind) => {
			const node = asTheServiceGuards(kind);
			const row = payout(`f2_${kind.slice(0, 3)}_1`);
			service.sandbox.configure({ faults: [{ fault: 'drop-before', times: 1 }] });
			const lost = await runNode(node({}, { continueOnFail: true }), [row], service.credentials());
			expect(lost.items[0].json).toMatchObject({ status: 'UNKNOWN', nextStep: 'runAgain' });
			// The export the user takes now says NOT_FOUND, truly: the request never arrived.
			const exportedThen = dashboardExport(service.sandbox);
			expect(exportedThen(row.transferId)).toBe('NOT_FOUND');
			// Settled with it: sent again with its Transfer ID, booked, and the answer lost again.
			service.sandbox.configure({ faults: [{ fault: 'drop-after', times: 1 }] });
			const settling = await runNode(
				node({}, { continueOnFail: true }),
				[{ ...row, dashboardStatus: exportedThen(row.transferId) }],
				service.credentials(),
			);
			expect(settling.items[0].json).toMatchObject({ status: 'UNKNOWN', nextStep: 'runAgain' });
			expect(booked(service.sandbox)).toHaveLength(1);
			// The same export again: the service holds the transfer, so that export predates it.
			const stale = await runNode(
				node({}, { continueOnFail: true }),
				[{ ...row, dashboardStatus: exportedThen(row.transferId) }],
				service.credentials(),
			);
			expect(stale.items[0].json).toMatchObject({
				status: 'UNKNOWN',
				nextStep: 'newExport',
				error: expect.stringMatching(
					/^The outcome of the transfer is unknown: the service holds Transfer ID f2_\w+ from this node's request that had no clear answer/,
				),
				hint: expect.stringMatching(
					/comes from an export taken before the service had this transfer\. Take a new export now/,
				),
			});
			for (const items of [lost.items, settling.items, stale.items]) {
				expect(wordsOf(items)).not.toMatch(PAY_UNDER_A_NEW_ID);
				expect(items[0].json.nextStep).not.toBe('newTransferId');
			}
			// A new export says it is paid: it reads so, and is never sent again.
			service.sandbox.clearRequests();
			const exportedNow = dashboardExport(service.sandbox);
			const settled = await runNode(
				node(),
				[{ ...row, dashboardStatus: exportedNow(row.transferId) }],
				service.credentials(),
			);
			expect(settled.items[0].json).toMatchObject({
				status: 'ALREADY_SUBMITTED',
				dashboardStatus: 'SUCCESS',
			});
			const later = await runNode(node(), [row], service.credentials());
			expect(later.items[0].json.status).toBe('ALREADY_SUBMITTED');
			expect(transferRequests(service.sandbox)).toEqual([]);
			expectEachPaidOnce(service.sandbox, [row.amount]);
		},
	);

	test.each(kinds)(
		'%s: with Retry On Fail, one settle run on a stale NOT_FOUND whose re-send is booked and its answer lost: UNKNOWN, take a new export; paid once',
		async (kind) => {
			const node = asTheServiceGuards(kind);
			const row = payout(`f2r_${kind.slice(0, 3)}_1`);
			service.sandbox.configure({ faults: [{ fault: 'drop-before', times: 1 }] });
			await runNode(node({}, { continueOnFail: true }), [row], service.credentials());
			const exportedThen = dashboardExport(service.sandbox);
			service.sandbox.configure({ faults: [{ fault: 'drop-after', times: 1 }] });
			// n8n runs the node again while its first item carries an error: three tries in one settle run.
			const settling = await runNode(
				node({}, { continueOnFail: true, retryOnFail: true, maxTries: 3, waitBetweenTries: 0 }),
				[{ ...row, dashboardStatus: exportedThen(row.transferId) }],
				service.credentials(),
			);
			expect(settling.items[0].json).toMatchObject({ status: 'UNKNOWN', nextStep: 'newExport' });
			expect(wordsOf(settling.items)).not.toMatch(PAY_UNDER_A_NEW_ID);
			// The first run's request, then each try's: the service booked one of them.
			expect(transferRequests(service.sandbox)).toEqual(Array(4).fill(row.transferId));
			expectEachPaidOnce(service.sandbox, [row.amount]);
		},
	);

	test.each(kinds)(
		'%s: a row in doubt whose request never arrived is paid by running it again unchanged, after a restart too; one whose request arrived reads UNKNOWN, never ALREADY_SUBMITTED',
		async (kind) => {
			const node = asTheServiceGuards(kind);
			const [neverArrived, arrived] = [
				payout(`ra_${kind.slice(0, 3)}_1`, 11),
				payout(`ra_${kind.slice(0, 3)}_2`, 12),
			];
			service.sandbox.configure({
				faults: [
					{ fault: 'drop-before', match: { transferId: neverArrived.transferId }, times: 1 },
					{ fault: 'drop-after', match: { transferId: arrived.transferId }, times: 1 },
				],
			});
			const lost = await runNode(
				node({ concurrency: 1 }, { continueOnFail: true }),
				[neverArrived, arrived],
				service.credentials(),
			);
			expect(statuses(lost.items)).toEqual(['UNKNOWN', 'UNKNOWN']);
			await storeAtRest();
			restartN8n();
			const again = await runNode(
				node({ concurrency: 1 }, { continueOnFail: true }),
				[neverArrived, arrived],
				service.credentials(),
			);
			expect(again.items[0].json).toMatchObject({
				status: 'SUCCESS',
				transferId: neverArrived.transferId,
			});
			// The service holds the other one: that says nothing of its money (it may have failed at the bank).
			expect(again.items[1].json).toMatchObject({
				status: 'UNKNOWN',
				nextStep: 'settleFromDashboard',
				error: expect.stringMatching(
					/the service holds Transfer ID ra_\w+_2 from this node's request that had no clear answer/,
				),
			});
			expectEachPaidOnce(service.sandbox, [11, 12]);
		},
	);

	test.each(kinds)(
		'%s: rows the service holds from requests without a clear answer, settled: SUCCESS reads ALREADY_SUBMITTED, FAILED says it can never be paid under this Transfer ID; a paid word on a row never sent records it paid; none is sent',
		async (kind) => {
			const node = asTheServiceGuards(kind);
			const [held, failed, never] = [
				payout(`hd_${kind.slice(0, 3)}_1`, 21),
				payout(`hd_${kind.slice(0, 3)}_2`, 22),
				payout(`hd_${kind.slice(0, 3)}_3`, 23),
			];
			service.sandbox.configure({ faults: [{ fault: 'drop-after', times: 2 }] });
			const lost = await runNode(
				node({ concurrency: 1 }, { continueOnFail: true }),
				[held, failed],
				service.credentials(),
			);
			expect(statuses(lost.items)).toEqual(['UNKNOWN', 'UNKNOWN']);
			service.sandbox.configure({ faults: [] });
			service.sandbox.clearRequests();
			// The dashboard's words as the user maps them (a bank can fail a transfer the service booked).
			const settled = await runNode(
				node({ concurrency: 1 }, { continueOnFail: true }),
				[
					{ ...held, dashboardStatus: 'SUCCESS' },
					{ ...failed, dashboardStatus: 'FAILED' },
					{ ...never, dashboardStatus: 'SUCCESS' },
				],
				service.credentials(),
			);
			expect(settled.items[0].json).toMatchObject({
				status: 'ALREADY_SUBMITTED',
				dashboardStatus: 'SUCCESS',
			});
			expect(settled.items[1].json).toMatchObject({
				status: 'ERROR',
				nextStep: 'newTransferId',
				dashboardStatus: 'FAILED',
				error: `The payouts dashboard says FAILED for Transfer ID ${failed.transferId}: it did not pay, and it can never be paid under this Transfer ID [item 1]`,
			});
			expect(settled.items[2].json).toMatchObject({
				status: 'ALREADY_SUBMITTED',
				dashboardStatus: 'SUCCESS',
			});
			// Settled for good: without the words, the paid ones read ALREADY_SUBMITTED and are not sent.
			const later = await runNode(node({ concurrency: 1 }), [held, never], service.credentials());
			expect(statuses(later.items)).toEqual(['ALREADY_SUBMITTED', 'ALREADY_SUBMITTED']);
			expect(transferRequests(service.sandbox)).toEqual([]);
			expectEachPaidOnce(service.sandbox, [21, 22]);
		},
	);
});

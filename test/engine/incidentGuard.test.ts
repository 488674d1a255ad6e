/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code runs in Node under jest, never inside n8n (it waits with Node's timers); these rules guard the code n8n loads (nodes/, credentials/) */
/**
 * Standard Transfer > Options > Incident Guard, through n8n's engine against the sandbox: every
 * setting against open, resolved, scheduled and other-mode incidents, the listing failing, and a
 * mixed batch. The sandbox's request log is the evidence of what was listed, looked up and sent.
 *
 * Seeded (sandbox/seed.js, `seed.incidentBanks`): an open scheduled LOW IMPS incident at HDFC
 * (beneficiary BENEHDFC1, IFSC HDFC...), an open LOW RTGS incident at YESB (every other seeded
 * beneficiary's bank), only resolved NEFT incidents at ICIC (BENEICIC1).
 */
import type { IDataObject } from 'n8n-workflow';

import { runNode, stopEngineTimers } from '../../harness/engine';
import { seed, startSandbox, useSandbox } from '../../harness/sandbox';
import { PayoutsTransfer } from '../../nodes/PayoutsTransfer/PayoutsTransfer.node';

afterAll(stopEngineTimers);

const service = useSandbox();
const { hdfcBank, iciciBank, verified, verified2 } = seed.beneficiaries;
const { openScheduledImpsAtHdfc, openRtgsAtYesb } = seed.incidentBanks;

type Settings = Partial<{
	affectedItems: string;
	matchBank: boolean;
	impacts: string;
	countScheduled: boolean;
	onCheckFailure: string;
	lookBackDays: number;
}>;

const guarded = (
	settings: Settings | 'added, empty' | undefined,
	extra: Record<string, unknown> = {},
) => ({
	type: 'payoutsTransfer',
	parameters: {
		operation: 'standardTransfer',
		beneId: '={{ $json.beneId }}',
		amount: '={{ $json.amount }}',
		transferId: '={{ $json.transferId }}',
		transferMode: '={{ $json.mode }}',
		additionalFields: { paymentInstrumentId: '={{ $json.instrument ?? "" }}' },
		options:
			settings === 'added, empty'
				? { incidentGuard: {} }
				: settings
					? { incidentGuard: { settings } }
					: {},
	},
	...extra,
});
const row = (transferId: string, beneId: string, mode: string, amount = 150) => ({
	transferId,
	beneId,
	mode,
	amount,
	...(mode === 'neft' ? { instrument: 'PINEFT1' } : {}),
});

const requests = () => service.sandbox.requests();
const listings = () => requests().filter((request) => request.path === '/payout/v1/incidents');
const lookups = () =>
	requests().filter((request) => request.path.startsWith('/payout/v1/getBeneficiary/'));
const sentIds = () =>
	requests()
		.filter((request) => request.path === '/payout/v1.2/requestTransfer')
		.map((request) => (request.body as IDataObject).transferId);
const paidIds = () => service.sandbox.state().transfers.map((transfer) => transfer.transferId);
const statuses = (items: Array<{ json: IDataObject }>) => items.map((item) => item.json.status);

describe('off by default', () => {
	test('no listing, no lookup: an IMPS payout to a bank with an open IMPS incident is sent', async () => {
		const { items, error } = await runNode(
			guarded(undefined),
			[row('g_off_1', hdfcBank, 'imps')],
			service.credentials(),
		);
		expect(error).toBeUndefined();
		expect(statuses(items)).toEqual(['SUCCESS']);
		expect(listings()).toHaveLength(0);
		expect(lookups()).toHaveLength(0);
	});

	test("added with its settings group left empty, it guards with the defaults (Hold, Match Beneficiary's Bank): never read as off", async () => {
		const { items, error } = await runNode(
			guarded('added, empty'),
			[row('g_empty_hdfc_imps', hdfcBank, 'imps'), row('g_empty_yesb_imps', verified, 'imps')],
			service.credentials(),
		);
		expect(error).toBeUndefined();
		expect(statuses(items)).toEqual(['HELD', 'SUCCESS']);
		expect(sentIds()).toEqual(['g_empty_yesb_imps']);
		expect(listings()).toHaveLength(13);
	});

	test('only Standard Transfer offers it (a card transfer has no transfer mode)', () => {
		const options = new PayoutsTransfer().description.properties.filter(
			(property) => property.name === 'options',
		);
		const withGuard = options.filter((property) =>
			(property.options ?? []).some(
				(option) => 'name' in option && option.name === 'incidentGuard',
			),
		);
		expect(withGuard.map((property) => property.displayOptions?.show?.operation)).toEqual([
			['standardTransfer'],
		]);
	});
});

describe('Hold (the default action)', () => {
	const batch = [
		row('g_hold_hdfc_imps', hdfcBank, 'imps'), // open scheduled IMPS incident at HDFC: held
		row('g_hold_yesb_imps', verified, 'imps'), // IMPS incident is at another bank: sent
		row('g_hold_icic_neft', iciciBank, 'neft'), // only resolved NEFT incidents at ICIC: sent
		row('g_hold_yesb_rtgs_1', verified, 'rtgs'), // open RTGS incident at YESB: held
		row('g_hold_yesb_rtgs_2', verified2, 'rtgs'), // the same bank and mode: held
		row('g_hold_yesb_bank', verified, 'banktransfer'), // no incident on the mode: sent, no lookup
	];

	test('a mixed batch: held rows never reach the service, the others are paid; one listing, one lookup per distinct beneficiary', async () => {
		const { items, error } = await runNode(guarded({}), batch, service.credentials());
		expect(error).toBeUndefined();
		expect(statuses(items)).toEqual(['HELD', 'SUCCESS', 'SUCCESS', 'HELD', 'HELD', 'SUCCESS']);
		expect(sentIds()).toEqual(['g_hold_yesb_imps', 'g_hold_icic_neft', 'g_hold_yesb_bank']);
		expect(paidIds()).toEqual(['g_hold_yesb_imps', 'g_hold_icic_neft', 'g_hold_yesb_bank']);
		// One listing of the last 90 days: 13 windows of at most 7 days (the service's limit), all UNRESOLVED.
		expect(listings()).toHaveLength(13);
		expect(new Set(listings().map((request) => request.query.status))).toEqual(
			new Set(['UNRESOLVED']),
		);
		// Only beneficiaries with an item on a mode that has an open incident, each once.
		expect(
			lookups()
				.map((request) => request.path.split('/').pop())
				.sort(),
		).toEqual([hdfcBank, verified, verified2].sort());
		// Nothing is sent before the guard has decided.
		const firstTransfer = requests().findIndex(
			(request) => request.path === '/payout/v1.2/requestTransfer',
		);
		expect(
			requests()
				.slice(firstTransfer)
				.some((request) => request.path !== '/payout/v1.2/requestTransfer'),
		).toBe(false);

		const held = items[0].json;
		expect(held).toMatchObject({
			status: 'HELD',
			transferId: 'g_hold_hdfc_imps',
			beneId: hdfcBank,
			amount: 150,
			transferMode: 'imps',
			bankCode: 'HDFC',
		});
		expect((held.incidents as IDataObject[]).map((incident) => incident.id)).toEqual([
			openScheduledImpsAtHdfc.incidentId,
		]);
		expect(held.message).toMatch(
			/^Not sent: an open incident affects transfer mode imps at bank HDFC: incident 1000 \(IMPS at HDFC, impact LOW, scheduled\)$/,
		);
		expect(held.hint).toMatch(/same Transfer ID once the incident is resolved/);
		expect((items[3].json.incidents as IDataObject[]).map((incident) => incident.id)).toEqual([
			openRtgsAtYesb.incidentId,
		]);
		expect(items.map((item) => item.pairedItem)).toEqual(batch.map((_, item) => ({ item })));
	});

	test('held rows are not recorded as sent: once the incidents are resolved, the same batch pays them, and the paid rows are not paid again', async () => {
		await runNode(guarded({}), batch, service.credentials());
		service.sandbox.resolveIncidents({ entityCode: 'HDFC', mode: 'IMPS' });
		service.sandbox.resolveIncidents({ id: openRtgsAtYesb.incidentId });
		const again = await runNode(guarded({}), batch, service.credentials());
		expect(again.error).toBeUndefined();
		expect(statuses(again.items)).toEqual([
			'SUCCESS',
			'ALREADY_SUBMITTED',
			'ALREADY_SUBMITTED',
			'SUCCESS',
			'SUCCESS',
			'ALREADY_SUBMITTED',
		]);
		expect(paidIds().sort()).toEqual(batch.map((entry) => entry.transferId).sort());
	});

	test('scheduled incidents not counted: the scheduled HDFC incident holds nothing', async () => {
		const { items } = await runNode(
			guarded({ countScheduled: false }),
			[row('g_unsched_1', hdfcBank, 'imps'), row('g_unsched_2', verified, 'rtgs')],
			service.credentials(),
		);
		expect(statuses(items)).toEqual(['SUCCESS', 'HELD']);
	});

	test('impacts: only HIGH counts; a LOW incident holds nothing, a HIGH one on the same bank and mode does', async () => {
		const only = { impacts: ' high ' };
		expect(
			statuses(
				(await runNode(guarded(only), [row('g_high_1', hdfcBank, 'imps')], service.credentials()))
					.items,
			),
		).toEqual(['SUCCESS']);
		const high = service.sandbox.openIncident({ entityCode: 'HDFC', mode: 'IMPS', impact: 'HIGH' });
		const { items } = await runNode(
			guarded(only),
			[row('g_high_2', hdfcBank, 'imps')],
			service.credentials(),
		);
		expect(statuses(items)).toEqual(['HELD']);
		expect((items[0].json.incidents as IDataObject[]).map((incident) => incident.id)).toEqual([
			high.id,
		]);
	});

	test("other-mode incidents hold nothing; the mode is matched ignoring case ('imps' is the incident's IMPS)", async () => {
		service.sandbox.openIncident({ entityCode: 'ICIC', mode: 'UPI', impact: 'HIGH' });
		service.sandbox.openIncident({ entityCode: 'ICIC', mode: 'imps', impact: 'HIGH' });
		const { items } = await runNode(
			guarded({}),
			[row('g_mode_1', iciciBank, 'neft'), row('g_mode_2', iciciBank, 'imps')],
			service.credentials(),
		);
		expect(statuses(items)).toEqual(['SUCCESS', 'HELD']);
	});

	test("resolved incidents hold nothing, even when the service's list carries one", async () => {
		service.sandbox.resolveIncidents({ id: openScheduledImpsAtHdfc.incidentId });
		// A service that lists a resolved incident under UNRESOLVED: the isResolved flag still decides.
		const listed = {
			status: 'SUCCESS',
			subCode: '200',
			message: 'List of incidents retrieved',
			data: {
				incidents: [
					{
						id: 7,
						mode: 'IMPS',
						entityCode: 'HDFC',
						isResolved: true,
						isScheduled: false,
						impact: 'HIGH',
					},
				],
			},
		};
		service.sandbox.configure({
			faults: [
				{
					fault: 'replay',
					match: { path: '/payout/v1/incidents' },
					times: 1,
					body: JSON.stringify(listed),
				},
			],
		});
		const { items } = await runNode(
			guarded({}),
			[row('g_resolved_1', hdfcBank, 'imps')],
			service.credentials(),
		);
		expect(statuses(items)).toEqual(['SUCCESS']);
	});

	test('without the bank match, an open incident on the mode at any bank holds the item, and no beneficiary is looked up', async () => {
		const { items } = await runNode(
			guarded({ matchBank: false }),
			[row('g_anybank_1', verified, 'imps'), row('g_anybank_2', verified, 'upi')],
			service.credentials(),
		);
		expect(statuses(items)).toEqual(['HELD', 'SUCCESS']);
		expect(items[0].json.message).toMatch(
			/^Not sent: an open incident affects transfer mode imps: incident 1000 \(IMPS at HDFC/,
		);
		expect(items[0].json.bankCode).toBeUndefined();
		expect(lookups()).toHaveLength(0);
	});

	test("a service that reads times in another timezone (here +05:30 against the workflow's UTC) still accepts every window", async () => {
		const ahead = await startSandbox({ port: 0, timezone: 'Asia/Kolkata' });
		try {
			// An incident opened just now: the newest window must reach past the service's "now" too.
			ahead.openIncident({ entityCode: 'ICIC', mode: 'UPI', impact: 'HIGH' });
			const { items, error } = await runNode(
				guarded({}),
				[row('g_tz_1', hdfcBank, 'imps'), row('g_tz_2', iciciBank, 'upi')],
				{ ...service.credentials(), baseUrl: ahead.baseUrl },
			);
			expect(error).toBeUndefined();
			expect(statuses(items)).toEqual(['HELD', 'HELD']);
		} finally {
			await ahead.close();
		}
	});

	test('the farthest apart zones: a service 26 hours ahead of the workflow (UTC+14 against UTC-12) accepts every window and lists an incident opened now', async () => {
		service.sandbox.configure({ timezone: 'Pacific/Kiritimati' });
		service.sandbox.openIncident({ entityCode: 'ICIC', mode: 'UPI', impact: 'HIGH' });
		const { items, error } = await runNode(
			guarded({}),
			[row('g_tz_far_1', hdfcBank, 'imps'), row('g_tz_far_2', iciciBank, 'upi')],
			service.credentials(),
			{ settings: { timezone: 'Etc/GMT+12' } },
		);
		expect(error).toBeUndefined();
		expect(statuses(items)).toEqual(['HELD', 'HELD']);
		expect(listings()).toHaveLength(13);
	});

	test('a shorter look-back lists fewer windows: 4 days (and 26 hours at each end) is one request', async () => {
		await runNode(
			guarded({ lookBackDays: 4 }),
			[row('g_week_1', hdfcBank, 'imps')],
			service.credentials(),
		);
		expect(listings()).toHaveLength(1);
	});

	test('a Dry Run applies the guard (it only reads): held items show as HELD, nothing is sent', async () => {
		const node = guarded({});
		(node.parameters as Record<string, unknown>).options = {
			...(node.parameters.options as object),
			dryRun: true,
		};
		const { items } = await runNode(
			node,
			[row('g_dry_1', hdfcBank, 'imps'), row('g_dry_2', verified, 'imps')],
			service.credentials(),
		);
		expect(
			items.map((item) => item.json.status ?? (item.json.dryRun ? 'DRY_RUN' : undefined)),
		).toEqual(['HELD', 'DRY_RUN']);
		expect(sentIds()).toEqual([]);
	});

	test('held items stay on the main output under "Continue (using error output)"', async () => {
		const { items, errorItems } = await runNode(
			guarded({}, { errorOutput: true }),
			[row('g_errout_1', hdfcBank, 'imps')],
			service.credentials(),
		);
		expect(statuses(items)).toEqual(['HELD']);
		expect(errorItems).toHaveLength(0);
	});
});

describe('Fail', () => {
	test('an affected item stops the batch before anything is sent, naming the item and the incident', async () => {
		const { error } = await runNode(
			guarded({ affectedItems: 'fail' }),
			[row('g_fail_ok', verified, 'imps'), row('g_fail_hdfc', hdfcBank, 'imps')],
			service.credentials(),
		);
		expect(error?.message).toBe(
			'Not sent: an open incident affects transfer mode imps at bank HDFC: incident 1000 (IMPS at HDFC, impact LOW, scheduled) [item 1]',
		);
		expect(error?.description).toMatch(/No item was sent/);
		expect(sentIds()).toEqual([]);
	});

	test('under Continue On Fail: an error item for the affected row, the others paid', async () => {
		const { items, error } = await runNode(
			guarded({ affectedItems: 'fail' }, { continueOnFail: true }),
			[row('g_failc_ok', verified, 'imps'), row('g_failc_hdfc', hdfcBank, 'imps')],
			service.credentials(),
		);
		expect(error).toBeUndefined();
		expect(statuses(items)).toEqual(['SUCCESS', 'ERROR']);
		expect(items[1].json).toMatchObject({
			error: expect.stringMatching(/incident 1000.*\[item 1\]$/),
			transferId: 'g_failc_hdfc',
			hint: expect.stringMatching(/Nothing was sent for this item/),
		});
		expect(paidIds()).toEqual(['g_failc_ok']);
	});
});

describe('Send Anyway', () => {
	test('the affected item is sent, with the incident attached as a warning', async () => {
		const { items, error } = await runNode(
			guarded({ affectedItems: 'sendAnyway' }),
			[row('g_any_hdfc', hdfcBank, 'imps'), row('g_any_ok', verified, 'imps')],
			service.credentials(),
		);
		expect(error).toBeUndefined();
		expect(statuses(items)).toEqual(['SUCCESS', 'SUCCESS']);
		expect(items[0].json.warning).toMatch(
			/^Sent although an open incident affects transfer mode imps at bank HDFC: incident 1000/,
		);
		expect((items[0].json.incidents as IDataObject[]).map((incident) => incident.id)).toEqual([
			1000,
		]);
		expect(items[1].json.warning).toBeUndefined();
		expect(paidIds()).toEqual(['g_any_hdfc', 'g_any_ok']);
	});
});

describe('when the guard cannot check', () => {
	const failing = () =>
		service.sandbox.configure({
			faults: [{ fault: 'error-520', match: { path: '/payout/v1/incidents' } }],
		});

	test('a failed listing stops the run with a clear error and sends nothing (never a silent "no incidents")', async () => {
		failing();
		const { error } = await runNode(
			guarded({}),
			[row('g_list_1', verified, 'banktransfer'), row('g_list_2', verified, 'imps')],
			service.credentials(),
		);
		expect(error?.message).toBe(
			'The Incident Guard could not check the item: the incidents could not be listed: Listing incidents failed: Unknown error occurred (The service failed with an unknown error: run the item again later.) [item 0]',
		);
		expect(error?.description).toMatch(/Also refused by the Incident Guard: item 1\./);
		expect(sentIds()).toEqual([]);
		// 520 is the service's own failure: tried three times in each of the 4 lanes at most, then no further window is asked.
		expect(listings().length).toBeLessThanOrEqual(4 * 3);
		// No request of the guard outlives the run.
		const after = requests().length;
		await new Promise((resolve) => setTimeout(resolve, 1200));
		expect(requests()).toHaveLength(after);
	});

	test("'Send Without the Guard': every item is sent and says so", async () => {
		failing();
		const { items, error } = await runNode(
			guarded({ onCheckFailure: 'sendWithoutGuard' }),
			[row('g_unguarded_1', hdfcBank, 'imps'), row('g_unguarded_2', verified, 'banktransfer')],
			service.credentials(),
		);
		expect(error).toBeUndefined();
		expect(statuses(items)).toEqual(['SUCCESS', 'SUCCESS']);
		for (const item of items)
			expect(item.json.warning).toMatch(
				/^Sent without the Incident Guard: the incidents could not be listed: Listing incidents failed: Unknown error occurred/,
			);
		expect(paidIds()).toEqual(['g_unguarded_1', 'g_unguarded_2']);
	});

	test('a listing that fails once is retried and the guard still holds', async () => {
		service.sandbox.configure({
			faults: [{ fault: 'html-500', match: { path: '/payout/v1/incidents' }, times: 1 }],
		});
		const { items } = await runNode(
			guarded({ lookBackDays: 4 }),
			[row('g_retry_1', hdfcBank, 'imps')],
			service.credentials(),
		);
		expect(statuses(items)).toEqual(['HELD']);
		expect(listings()).toHaveLength(2);
	});

	test("a beneficiary that cannot be looked up is not guessed: its items are refused, the run's other items too", async () => {
		const { error } = await runNode(
			guarded({}),
			[row('g_lookup_1', seed.unknownBeneId, 'imps'), row('g_lookup_2', verified, 'banktransfer')],
			service.credentials(),
		);
		expect(error?.message).toMatch(
			/^The Incident Guard could not check the item: beneficiary BENEUNKNOWN9 could not be looked up: Beneficiary does not exist \(subCode 404\)/,
		);
		expect(sentIds()).toEqual([]);
		expect(lookups()).toHaveLength(1);
	});
});

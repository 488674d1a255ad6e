/**
 * Every operation's success and pending outcomes through n8n's engine against the sandbox,
 * in both HTTP styles, with the exact output items a user gets.
 */
import { runNode, stopEngineTimers } from '../../harness/engine';
import { seed, useSandbox } from '../../harness/sandbox';

afterAll(stopEngineTimers);

const referenceOutcome = {
	referenceId: expect.any(String),
	utr: expect.any(String),
};

describe.each(['mirror', 'always200'] as const)('HTTP style %s', (httpStyle) => {
	const service = useSandbox({ httpStyle });

	test('a card transfer that succeeds: one flat item, paired, money moved once', async () => {
		const before = service.sandbox.state().balances;
		const { items, error } = await runNode(
			{
				type: 'payoutsTransfer',
				parameters: {
					operation: 'cardTransfer',
					token: seed.cards.success1,
					amount: '125.50',
					transferId: 'card_ok_1',
					cardType: 'DEBIT',
					additionalFields: { networkType: 'NETWORK_A', remarks: 'November payout' },
				},
			},
			[{ row: 1 }],
			service.credentials(),
		);
		expect(error).toBeUndefined();
		expect(items).toEqual([
			{
				json: {
					status: 'SUCCESS',
					subCode: '200',
					message: expect.stringMatching(/transfer completed successfully/i),
					transferId: 'card_ok_1',
					...referenceOutcome,
					acknowledged: 1,
				},
				pairedItem: { item: 0 },
			},
		]);
		const [request] = service.sandbox.requests();
		expect(request.body).toEqual({
			token: seed.cards.success1,
			amount: '125.50',
			transferId: 'card_ok_1',
			cardType: 'DEBIT',
			networkType: 'NETWORK_A',
			remarks: 'November payout',
		});
		expect(service.sandbox.state().balances).not.toEqual(before);
		expect(service.sandbox.state().transfers).toHaveLength(1);
	});

	test('a card transfer that stays pending is an outcome, not an error', async () => {
		const { items, error } = await runNode(
			{
				type: 'payoutsTransfer',
				parameters: {
					operation: 'cardTransfer',
					token: seed.cards.pending,
					amount: '20',
					transferId: 'card_pending_1',
					cardType: 'CREDIT',
					additionalFields: {},
				},
			},
			[{}],
			service.credentials(),
		);
		expect(error).toBeUndefined();
		expect(items[0].json).toEqual({
			status: 'PENDING',
			subCode: '201',
			message: expect.any(String),
			transferId: 'card_pending_1',
			referenceId: expect.any(String),
			utr: '',
			acknowledged: 0,
		});
	});

	test('a card transfer with an empty card type is sent as CREDIT, the service default', async () => {
		await runNode(
			{
				type: 'payoutsTransfer',
				parameters: {
					operation: 'cardTransfer',
					token: seed.cards.success2,
					amount: '5',
					transferId: 'card_default_1',
					cardType: '',
					additionalFields: {},
				},
			},
			[{}],
			service.credentials(),
		);
		expect(service.sandbox.requests()[0].body).toMatchObject({ cardType: 'CREDIT', amount: '5' });
	});

	test('a standard transfer that succeeds, with the amount sent as a JSON number', async () => {
		const { items, error } = await runNode(
			{
				type: 'payoutsTransfer',
				parameters: {
					operation: 'standardTransfer',
					beneId: seed.beneficiaries.verified,
					amount: '150.25',
					transferId: 'std_ok_1',
					transferMode: 'imps',
					additionalFields: {},
				},
			},
			[{}],
			service.credentials(),
		);
		expect(error).toBeUndefined();
		expect(items).toEqual([
			{
				json: {
					status: 'SUCCESS',
					subCode: '200',
					message: expect.any(String),
					transferId: 'std_ok_1',
					...referenceOutcome,
					acknowledged: 1,
				},
				pairedItem: { item: 0 },
			},
		]);
		expect(service.sandbox.requests()[0].body).toEqual({
			beneId: seed.beneficiaries.verified,
			amount: 150.25,
			transferId: 'std_ok_1',
			transferMode: 'imps',
		});
	});

	test('standard transfer outcomes that are not errors: scheduled, pending (201 and 202)', async () => {
		const outcomes = [
			{ beneId: seed.beneficiaries.scheduled, expected: { status: 'SUCCESS', subCode: '201' } },
			{ beneId: seed.beneficiaries.pendingAtBank, expected: { status: 'PENDING', subCode: '201' } },
			{
				beneId: seed.beneficiaries.awaitingConfirmation,
				expected: { status: 'PENDING', subCode: '201' },
			},
			{ beneId: seed.beneficiaries.accepted, expected: { status: 'PENDING', subCode: '202' } },
		];
		const { items, error } = await runNode(
			{
				type: 'payoutsTransfer',
				parameters: {
					operation: 'standardTransfer',
					beneId: '={{ $json.beneId }}',
					amount: 150,
					transferId: '={{ "std_outcome_" + $itemIndex }}',
					transferMode: 'banktransfer',
					additionalFields: {},
				},
			},
			outcomes.map(({ beneId }) => ({ beneId })),
			service.credentials(),
		);
		expect(error).toBeUndefined();
		expect(items.map((item) => ({ status: item.json.status, subCode: item.json.subCode }))).toEqual(
			outcomes.map(({ expected }) => expected),
		);
		expect(items.map((item) => item.pairedItem)).toEqual(outcomes.map((_, item) => ({ item })));
	});

	test('an internal transfer: the transferId the service returns', async () => {
		const { items, error } = await runNode(
			{
				type: 'payoutsTransfer',
				parameters: {
					operation: 'internalTransfer',
					amount: 1000,
					rechargeAccount: seed.rechargeAccounts.configured,
					additionalFields: { transferId: 'internal-ok_1' },
				},
			},
			[{}],
			service.credentials(),
		);
		expect(error).toBeUndefined();
		expect(items).toEqual([
			{
				json: {
					status: 'SUCCESS',
					subCode: '200',
					message: expect.stringMatching(/internal fund transfer/i),
					transferId: 'internal-ok_1',
				},
				pairedItem: { item: 0 },
			},
		]);
	});

	test('an internal transfer without a Transfer ID gets one made of its Top-Up Key, shown before it is sent, the same in any run', async () => {
		const node = (options = {}) => ({
			type: 'payoutsTransfer',
			parameters: {
				operation: 'internalTransfer',
				amount: '={{ $json.amount }}',
				rechargeAccount: seed.rechargeAccounts.configured,
				topUpKey: '={{ $json.key }}',
				additionalFields: {},
				options,
			},
		});
		const rows = [
			{ amount: 10, key: 'evt_1001' },
			{ amount: 10, key: 'evt 1002/b' },
			{ amount: 11, key: '2026-11-25' },
		];
		const dry = await runNode(node({ dryRun: true }), rows, service.credentials(), {
			executionId: '4711',
		});
		const shown = dry.items.map((item) => (item.json.body as { transferId: string }).transferId);
		// The key's first characters (as the Transfer ID rule allows them), then a digest of it, the recharge account and the workflow.
		expect(shown).toEqual([
			expect.stringMatching(/^evt_1001-[0-9a-f]{31}$/),
			expect.stringMatching(/^evt_1002_b-[0-9a-f]{29}$/),
			expect.stringMatching(/^2026-11-25-[0-9a-f]{29}$/),
		]);
		expect(service.sandbox.requests()).toEqual([]);

		const { items } = await runNode(node(), rows, service.credentials(), { executionId: '4712' });
		const bodies = service.sandbox
			.requests()
			.map((request) => request.body as Record<string, unknown>);
		const sent = bodies.map((body) => body.transferId);
		expect(sent).toEqual(shown);
		// The key names the transfer; the service never sees it.
		expect(bodies.map((body) => Object.keys(body).sort())).toEqual(
			rows.map(() => ['amount', 'rechargeAccount', 'transferId']),
		);
		expect(items.map((item) => item.json.transferId)).toEqual(shown);
		// Another execution with the same keys: the same IDs, nothing sent, each row ALREADY_SUBMITTED.
		service.sandbox.clearRequests();
		const again = await runNode(node(), rows, service.credentials(), { executionId: '4713' });
		expect(again.items.map((item) => [item.json.status, item.json.transferId])).toEqual(
			shown.map((id) => ['ALREADY_SUBMITTED', id]),
		);
		expect(service.sandbox.requests()).toEqual([]);
	});

	test('a beneficiary: the data object as the item', async () => {
		const { items, error } = await runNode(
			{
				type: 'payoutsBeneficiary',
				parameters: { operation: 'get', beneId: seed.beneficiaries.verified },
			},
			[{}],
			service.credentials(),
		);
		expect(error).toBeUndefined();
		expect(items).toHaveLength(1);
		expect(items[0].json).toMatchObject({
			beneId: seed.beneficiaries.verified,
			status: 'VERIFIED',
		});
		expect(Object.keys(items[0].json).sort()).toEqual([
			'address1',
			'address2',
			'bankAccount',
			'beneId',
			'city',
			'email',
			'groupName',
			'ifsc',
			'name',
			'phone',
			'pincode',
			'state',
			'status',
		]);
	});

	test('incidents: one item per incident, every field of the interface document', async () => {
		const { items, error } = await runNode(
			{
				type: 'payoutsIncident',
				parameters: { operation: 'getMany', status: 'ALL', additionalFields: {} },
			},
			[{}],
			service.credentials(),
		);
		expect(error).toBeUndefined();
		expect(items.length).toBeGreaterThan(0);
		for (const item of items) {
			expect(Object.keys(item.json).sort()).toEqual(
				[
					'createdAt',
					'entity',
					'entityCode',
					'entityName',
					'id',
					'impact',
					'isResolved',
					'isScheduled',
					'mode',
					'resolvedAt',
					'type',
				].sort(),
			);
			expect(item.pairedItem).toEqual({ item: 0 });
		}
		expect(service.sandbox.requests()[0].query).toEqual({ status: 'ALL' });
	});

	test('a paylink: the data object as the item', async () => {
		const { items, error } = await runNode(
			{
				type: 'payoutsPaylink',
				parameters: { operation: 'getStatus', paylinkId: seed.paylinks.active },
			},
			[{}],
			service.credentials(),
		);
		expect(error).toBeUndefined();
		expect(items[0].json).toMatchObject({
			paylinkId: seed.paylinks.active,
			paylinkStatus: 'ACTIVE',
			referenceId: expect.any(Number),
			paylinkLink: expect.any(String),
		});
		expect(service.sandbox.requests()[0].query).toEqual({ paylinkId: seed.paylinks.active });
	});

	test('an OAuth token: the token response without the envelope, sent with the client headers and no bearer token', async () => {
		const { items, error } = await runNode(
			{
				type: 'payoutsOAuth',
				parameters: { operation: 'generateToken', authCode: seed.authCodes[0] },
			},
			[{}],
			service.credentials(),
		);
		expect(error).toBeUndefined();
		expect(items[0].json).toEqual({
			reference_id: expect.any(Number),
			verification_id: expect.any(String),
			expiry: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
			access_token: expect.any(String),
		});
		const [request] = service.sandbox.requests();
		expect(request.body).toEqual({ auth_code: seed.authCodes[0] });
		expect(request.headers).toMatchObject({
			'x-client-id': seed.credentials.clientId,
			'x-api-version': seed.credentials.apiVersion,
		});
		expect(request.headers.authorization).toBeUndefined();
	});
});

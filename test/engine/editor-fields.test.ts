/**
 * What the editor's fields hand the node, and what the service then receives:
 * the amount is text that is sent exactly as typed or refused, never rounded or clamped, and a
 * number saved by the old number field still works; Network B-only fields stay out of other
 * networks' transfers; Simplify; the trigger's "Fetch Test Event" honours "Trigger On"; an empty
 * credential URL is named as such. Options are shown only where they act, by n8n's
 * own display rules.
 */
import type { IDataObject, INode, INodeParameters, INodeProperties } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { PayoutsTransfer } from '../../nodes/PayoutsTransfer/PayoutsTransfer.node.ts';

import { runNode, runPoll, stopEngineTimers } from '../../harness/engine';
import { seed, useSandbox } from '../../harness/sandbox';

const service = useSandbox();
afterAll(stopEngineTimers);

const standard = (parameters: INodeParameters) => ({
	type: 'payoutsTransfer',
	parameters: {
		operation: 'standardTransfer',
		beneId: seed.beneficiaries.verified,
		transferId: 'typed_std_1',
		transferMode: 'banktransfer',
		...parameters,
	},
});
const internal = (parameters: INodeParameters) => ({
	type: 'payoutsTransfer',
	parameters: {
		operation: 'internalTransfer',
		rechargeAccount: seed.rechargeAccounts.configured,
		additionalFields: { transferId: 'typed_int_1' },
		...parameters,
	},
});
const card = (parameters: INodeParameters, additionalFields: INodeParameters = {}) => ({
	type: 'payoutsTransfer',
	parameters: {
		operation: 'cardTransfer',
		token: seed.cards.success1,
		transferId: 'typed_card_1',
		cardType: 'CREDIT',
		...parameters,
		additionalFields,
	},
});

/** Money in paise, so that a comparison is exact. */
const paise = (rupees: number) => Math.round(rupees * 100);
const mainBalance = () => paise(service.sandbox.state().balances.main as number);
const sentBodies = () => service.sandbox.requests().map((request) => request.body as IDataObject);

describe('the amount is sent as typed or refused', () => {
	test('standard transfer: the text 1500.50 arrives as the amount 1500.50 and debits exactly that', async () => {
		const before = mainBalance();
		const { error, items } = await runNode(
			standard({ amount: '1500.50' }),
			[{}],
			service.credentials(),
		);
		expect(error).toBeUndefined();
		expect(items[0].json.status).toBe('SUCCESS');
		expect(sentBodies()).toEqual([
			expect.objectContaining({ amount: 1500.5, transferId: 'typed_std_1' }),
		]);
		const [transfer] = service.sandbox.state().transfers as IDataObject[];
		expect(paise(transfer.amount as number)).toBe(150050);
		expect(before - mainBalance()).toBe(150050);
	});

	test('standard transfer: 150000 is refused with our message and nothing is sent (no clamping to 100000)', async () => {
		const { error } = await runNode(standard({ amount: '150000' }), [{}], service.credentials());
		expect(error?.message).toContain("'Amount' must be at most 100000.00");
		expect(service.sandbox.requests()).toEqual([]);
		expect(service.sandbox.state().transfers).toEqual([]);
	});

	test('standard transfer: 0.5 is refused, not raised to 1', async () => {
		const { error } = await runNode(standard({ amount: '0.5' }), [{}], service.credentials());
		expect(error?.message).toContain("'Amount' must be at least 1.00");
		expect(service.sandbox.requests()).toEqual([]);
	});

	test('a workflow saved with the old number field (amount: 150) keeps working', async () => {
		const { error, items } = await runNode(standard({ amount: 150 }), [{}], service.credentials());
		expect(error).toBeUndefined();
		expect(items[0].json.status).toBe('SUCCESS');
		expect(sentBodies()).toEqual([expect.objectContaining({ amount: 150 })]);
		expect(paise((service.sandbox.state().transfers as IDataObject[])[0].amount as number)).toBe(
			15000,
		);
	});

	test('a workflow saved without an amount (the old field defaulted to 1) is not run, not paid 1.00', async () => {
		// n8n's engine itself refuses a workflow whose required parameter is empty (2.8: "The workflow has
		// issues and cannot be executed"; 2.41: "The 'Payouts' node has issues: Parameter "Amount" is required").
		await expect(runNode(standard({}), [{}], service.credentials())).rejects.toThrow(
			/The workflow has issues|Parameter "Amount" is required/,
		);
		expect(service.sandbox.requests()).toEqual([]);
	});

	test('an amount that is empty only at run time (an empty cell) is refused with our message', async () => {
		const { error } = await runNode(
			standard({ amount: '={{ $json.amount }}' }),
			[{ amount: '' }],
			service.credentials(),
		);
		expect(error?.message).toContain("'Amount' is required");
		expect(service.sandbox.requests()).toEqual([]);
	});

	test('an expression gives the amount of each item, exactly', async () => {
		const node = standard({ amount: '={{ $json.amount }}', transferId: '={{ $json.id }}' });
		const { error } = await runNode(
			node,
			[
				{ amount: '99.90', id: 'expr_a' },
				{ amount: 1500.5, id: 'expr_b' },
			],
			service.credentials(),
		);
		expect(error).toBeUndefined();
		expect(sentBodies().map((body) => body.amount)).toEqual([99.9, 1500.5]);
	});

	test('internal transfer: the text 100.50 and a saved number 100 are both sent exactly', async () => {
		await runNode(internal({ amount: '100.50' }), [{}], service.credentials());
		await runNode(
			internal({ amount: 100, additionalFields: { transferId: 'typed_int_2' } }),
			[{}],
			service.credentials(),
		);
		expect(sentBodies().map((body) => body.amount)).toEqual([100.5, 100]);
		expect(
			(service.sandbox.state().transfers as IDataObject[]).map((transfer) =>
				paise(transfer.amount as number),
			),
		).toEqual([10050, 10000]);
	});

	test('internal transfer: 0.5 is refused, not raised to 1', async () => {
		const { error } = await runNode(internal({ amount: '0.5' }), [{}], service.credentials());
		expect(error?.message).toContain("'Amount' must be at least 1.00");
		expect(service.sandbox.requests()).toEqual([]);
	});

	test('card transfer: the text 100.50 is sent as the text 100.50', async () => {
		const { error } = await runNode(card({ amount: '100.50' }), [{}], service.credentials());
		expect(error).toBeUndefined();
		expect(sentBodies()).toEqual([expect.objectContaining({ amount: '100.50' })]);
	});
});

describe('card transfer: the Network B-only field', () => {
	test("'Token Expiry' is sent with Network B", async () => {
		const { error } = await runNode(
			card({ amount: '10.00' }, { networkType: 'NETWORK_B', tokenExpiry: '2030-12' }),
			[{}],
			service.credentials(),
		);
		expect(error).toBeUndefined();
		expect(sentBodies()).toEqual([
			expect.objectContaining({ networkType: 'NETWORK_B', tokenExpiry: '2030-12' }),
		]);
	});

	test("a 'Token Expiry' left in a workflow after switching to Network A is hidden there, and not sent", async () => {
		const { error } = await runNode(
			card({ amount: '10.00' }, { networkType: 'NETWORK_A', tokenExpiry: '2030-12' }),
			[{}],
			service.credentials(),
		);
		expect(error).toBeUndefined();
		const [body] = sentBodies();
		expect(body.networkType).toBe('NETWORK_A');
		expect(body).not.toHaveProperty('tokenExpiry');
	});
});

describe('Simplify', () => {
	const beneficiary = (typeVersion: number, extra: INodeParameters = {}) => ({
		type: 'payoutsBeneficiary',
		typeVersion,
		parameters: { operation: 'get', beneId: seed.beneficiaries.verified, ...extra },
	});

	test('Payouts Beneficiary version 2 simplifies by default; version 1 (saved workflows) keeps every field', async () => {
		const v2 = await runNode(beneficiary(2), [{}], service.credentials());
		expect(Object.keys(v2.items[0].json)).toEqual([
			'beneId',
			'name',
			'status',
			'groupName',
			'email',
			'phone',
			'bankAccount',
			'ifsc',
		]);
		const v1 = await runNode(beneficiary(1), [{}], service.credentials());
		expect(Object.keys(v1.items[0].json).sort()).toEqual(
			[
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
			].sort(),
		);
		const off = await runNode(beneficiary(2, { simplify: false }), [{}], service.credentials());
		expect(off.items[0].json).toEqual(v1.items[0].json);
	});

	test('Payouts Incident version 2 simplifies each incident, and Simplify is not sent to the service', async () => {
		const node = {
			type: 'payoutsIncident',
			typeVersion: 2,
			parameters: { operation: 'getMany', status: 'ALL' },
		};
		const { items } = await runNode(node, [{}], service.credentials());
		expect(items.length).toBeGreaterThan(0);
		for (const item of items)
			expect(Object.keys(item.json)).toEqual([
				'id',
				'entityCode',
				'entityName',
				'mode',
				'impact',
				'isResolved',
				'isScheduled',
				'createdAt',
				'resolvedAt',
			]);
		expect(service.sandbox.requests()[0].query).toEqual({ status: 'ALL' });
	});
});

describe("the trigger's Fetch Test Event honours 'Trigger On'", () => {
	test('New Incident gives an open incident even when the latest event is a resolution; Resolved Incident gives that resolution', async () => {
		const open = service.sandbox.addIncident({ mode: 'UPI' });
		const other = service.sandbox.addIncident({ mode: 'NEFT' });
		service.sandbox.resolveIncident(other.id);

		const onNew = await runPoll({ events: ['new'] }, service.credentials(), {
			mode: 'manual',
			typeVersion: 2,
		});
		expect(onNew.items).toHaveLength(1);
		expect(onNew.items[0].json).toMatchObject({ event: 'new', id: open.id, isResolved: false });

		const onResolved = await runPoll({ events: ['resolved'] }, service.credentials(), {
			mode: 'manual',
			typeVersion: 2,
		});
		expect(onResolved.items[0].json).toMatchObject({
			event: 'resolved',
			id: other.id,
			isResolved: true,
		});

		const onBoth = await runPoll({ events: ['new', 'resolved'] }, service.credentials(), {
			mode: 'manual',
			typeVersion: 2,
		});
		expect(onBoth.items[0].json).toMatchObject({ event: 'resolved', id: other.id });
	});

	test("version 2's Transfer Modes list filters as version 1's comma-separated text does", async () => {
		service.sandbox.addIncident({ mode: 'RTGS', entityCode: 'BANKQ' });
		const wanted = service.sandbox.addIncident({ mode: 'UPI', entityCode: 'BANKQ' });
		const v2 = await runPoll(
			{ events: ['new'], filters: { mode: ['UPI', 'IMPS'], entityCode: 'BANKQ' } },
			service.credentials(),
			{ mode: 'manual', typeVersion: 2 },
		);
		const v1 = await runPoll(
			{ events: ['new'], filters: { mode: 'upi, imps', entityCode: 'BANKQ' } },
			service.credentials(),
			{ mode: 'manual', typeVersion: 1 },
		);
		expect(v2.items[0].json.id).toBe(wanted.id);
		expect(v1.items[0].json.id).toBe(wanted.id);
	});
});

test("an empty 'Verification URL' (a new credential's default) is named as missing, and nothing is sent", async () => {
	const node = {
		type: 'payoutsOAuth',
		parameters: { operation: 'generateToken', authCode: seed.authCodes[0] },
	};
	const { error } = await runNode(node, [{}], service.credentials({ verificationUrl: '' }));
	expect(error?.message).toBe("The credential has no 'Verification URL'");
	expect(error?.description).toContain("Fill in 'Verification URL'");
	expect(service.sandbox.requests()).toEqual([]);
});

describe("options are shown only where they act, by n8n's own display rules", () => {
	const description = new PayoutsTransfer().description;
	const { properties } = description;
	const optionsOf = (operation: string) =>
		properties.find(
			(property) =>
				property.name === 'options' &&
				(property.displayOptions?.show?.operation as string[] | undefined)?.includes(operation),
		) as INodeProperties;
	/** The options the editor's "Add option" picker offers, as n8n decides it (CollectionParameter.vue: displayParameter with the collection's path). */
	const offered = (operation: string, options: INodeParameters = {}) =>
		(optionsOf(operation).options as INodeProperties[])
			.filter((option) =>
				NodeHelpers.displayParameterPath(
					{ operation, options },
					option,
					'options',
					null,
					description,
				),
			)
			.map((option) => option.name);
	/** What a run of a saved node gets: n8n drops the values of options its display rules hide. */
	const readByRun = (operation: string, options: INodeParameters) =>
		(NodeHelpers.getNodeParameters(
			properties,
			{ operation, options },
			false,
			false,
			{ typeVersion: 1 } as INode,
			description,
		)?.options ?? {}) as INodeParameters;

	test("Resend If No Clear Answer: offered for card and standard transfers, where the service refuses a repeat; for internal ones only with 'Service Refuses Repeated Transfer IDs' on", () => {
		expect(offered('cardTransfer')).toContain('retries');
		expect(offered('standardTransfer')).toContain('retries');
		expect(offered('internalTransfer')).not.toContain('retries');
		expect(offered('internalTransfer', { serviceRefusesRepeats: false })).not.toContain('retries');
		expect(offered('internalTransfer', { serviceRefusesRepeats: true })).toContain('retries');
		expect(readByRun('internalTransfer', { retries: 3 })).toEqual({});
		expect(readByRun('internalTransfer', { retries: 3, serviceRefusesRepeats: true })).toEqual({
			retries: 3,
			serviceRefusesRepeats: true,
		});
	});

	test('Queue Mode Safety is gone: offered for no operation; a workflow saved with it runs, n8n drops the value, and the top-up is paid once', async () => {
		for (const operation of ['cardTransfer', 'standardTransfer', 'internalTransfer']) {
			expect(offered(operation)).not.toContain('queueModeSafety');
			expect(offered(operation, { serviceRefusesRepeats: false })).not.toContain('queueModeSafety');
		}
		expect(readByRun('internalTransfer', { queueModeSafety: false, concurrency: 2 })).toEqual({
			concurrency: 2,
		});
		const saved = internal({ amount: '12.00', options: { queueModeSafety: true } });
		const { error, items } = await runNode(saved, [{}], service.credentials());
		expect(error).toBeUndefined();
		expect(items[0].json.status).toBe('SUCCESS');
		const again = await runNode(saved, [{}], service.credentials());
		expect(again.items[0].json.status).toBe('ALREADY_SUBMITTED');
		expect(service.sandbox.requests()).toHaveLength(1);
		expect(service.sandbox.state().transfers).toHaveLength(1);
	});

	test('Claim Held by an Earlier Step: offered for internal transfers while the node would guard them', () => {
		expect(offered('internalTransfer')).toContain('claimHeldEarlier');
		expect(offered('internalTransfer', { serviceRefusesRepeats: true })).not.toContain(
			'claimHeldEarlier',
		);
		expect(offered('standardTransfer')).not.toContain('claimHeldEarlier');
		expect(offered('cardTransfer')).not.toContain('claimHeldEarlier');
	});

	test("the dashboard's status is an input, labelled as one, and keeps the name saved workflows use", () => {
		const option = (optionsOf('internalTransfer').options as INodeProperties[]).find(
			(entry) => entry.name === 'dashboardStatus',
		);
		expect(option?.displayName).toBe('Settle With Dashboard Status');
		// Every transfer can be in doubt: the node's own (internal), or held by the service (card, standard).
		expect(offered('cardTransfer')).toContain('dashboardStatus');
		expect(offered('standardTransfer')).toContain('dashboardStatus');
	});

	test("each operation's options are in alphabetical order of their labels, as n8n's guidelines ask", () => {
		for (const operation of ['cardTransfer', 'standardTransfer', 'internalTransfer']) {
			const labels = (optionsOf(operation).options as INodeProperties[]).map(
				(option) => option.displayName,
			);
			expect(labels).toEqual([...labels].sort((a, b) => a.localeCompare(b)));
		}
	});
});

/**
 * Options > Claim Held by an Earlier Step (internal transfers): an earlier step of the workflow
 * holds each row's claim (docs/queue-claims.md: a Postgres insert that one execution wins), so the
 * node keeps no record in n8n's store and says on each row whose claim it relied on. Within one
 * execution it remembers what each transfer came to, because n8n 2.41 runs a node again in the
 * same execution (Retry On Fail, also when its first output item carries an error under On Error
 * Continue) and a retry branch hands the rows to a second node: a paid transfer reads
 * ALREADY_SUBMITTED, one without a clear answer reads UNKNOWN, and neither is sent again. What the claim table does end to end, in queue mode: test/e2e/queueClaims.test.ts.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	passThroughNode,
	payoutsNode,
	runNode,
	runWorkflow,
	stopEngineTimers,
} from '../../harness/engine';
import { store } from '../../harness/processedData';
import { seed, useSandbox } from '../../harness/sandbox';
import { booked, expectEachPaidOnce, statuses, transferRequests } from './ledger';

jest.setTimeout(60_000);
afterAll(stopEngineTimers);

const service = useSandbox();
beforeEach(() => service.sandbox.configure({ internalDuplicates: 'book' }));

const internal = (options: IDataObject = {}, extra: IDataObject = {}) => ({
	type: 'payoutsTransfer',
	parameters: {
		operation: 'internalTransfer',
		amount: '={{ $json.amount }}',
		rechargeAccount: '={{ $json.account }}',
		additionalFields: { transferId: '={{ $json.transferId }}' },
		options: { claimHeldEarlier: true, ...options },
	},
	...extra,
});
const event = (transferId: string, amount = 10, account = seed.rechargeAccounts.configured) => ({
	amount,
	account,
	transferId,
});
const rows = [event('claimed_1', 10), event('claimed_2', 20)];
/** n8n's Retry On Fail as the template's Top Up node might have it, with On Error: Continue. */
const retried = { continueOnFail: true, retryOnFail: true, maxTries: 3, waitBetweenTries: 0 };
const CLAIM_NOTE = 'held by an earlier step of this workflow: this node kept no record of it';

test("with an earlier step's claim the node sends at once, writes nothing to n8n's store, and says whose claim it relied on", async () => {
	const { items, error } = await runNode(internal({ concurrency: 2 }), rows, service.credentials());
	expect(error).toBeUndefined();
	expect(items.map((item) => [item.json.status, item.json.claim])).toEqual([
		['SUCCESS', CLAIM_NOTE],
		['SUCCESS', CLAIM_NOTE],
	]);
	expect(store.calls).toEqual([]);
	// Another execution is the earlier step's to stop: the node itself sends the same rows again.
	await runNode(internal(), rows, service.credentials());
	expect(booked(service.sandbox).map((transfer) => transfer.transferId)).toEqual([
		'claimed_1',
		'claimed_2',
		'claimed_1',
		'claimed_2',
	]);
});

test("an unknown outcome under an earlier step's claim says to keep the claim and write the dashboard's word into it", async () => {
	service.sandbox.configure({ faults: [{ fault: 'drop-after', times: 1 }] });
	const { error } = await runNode(internal(), rows.slice(0, 1), service.credentials());
	expect(error?.message).toBe(
		'The outcome of the transfer is unknown: the connection was dropped before an answer came [item 0]',
	);
	expect(error?.description).toMatch(
		/^The transfer may have been paid\. Keep its claim in the earlier step's table \(never give it a new Transfer ID\)\. Once no run is sending it and 10 minutes have passed \(a request that timed out can still arrive\), look up Transfer ID claimed_1 in the payouts dashboard and write what it says as the claim's outcome\./,
	);
	expect(error?.context?.rows).toEqual([
		expect.objectContaining({
			item: 0,
			status: 'UNKNOWN',
			nextStep: 'settleClaim',
			transferId: 'claimed_1',
		}),
	]);
	expect(store.calls).toEqual([]);
});

test('a Dry Run says an earlier step holds the claim; the option acts only where the node would guard', async () => {
	const dry = await runNode(internal({ dryRun: true }), rows, service.credentials());
	expect(dry.items[0].json.realRun).toBe(
		'would send: an earlier step holds its claim (this node keeps no record of it)',
	);
	// With Service Refuses Repeated Transfer IDs the service guards: the option does not apply, and the record is kept.
	const serviceGuards = await runNode(
		internal({ serviceRefusesRepeats: true }),
		rows,
		service.credentials(),
	);
	expect(serviceGuards.items.map((item) => item.json.claim)).toEqual([undefined, undefined]);
	expect(store.calls.length).toBeGreaterThan(0);
});

describe("n8n 2.41's Retry On Fail runs the node again while its first item carries an error (On Error: Continue)", () => {
	test('a batch [a refused row, a paid row]: the refused row is tried on each run, the paid row is booked once and then reads ALREADY_SUBMITTED', async () => {
		const refused = event('claimed_refused', 15, seed.rechargeAccounts.unknown);
		const paid = event('claimed_paid', 25);
		const { items } = await runNode(internal({}, retried), [refused, paid], service.credentials());
		expectEachPaidOnce(service.sandbox, [25]);
		expect(transferRequests(service.sandbox)).toEqual([
			'claimed_refused',
			'claimed_paid',
			'claimed_refused',
			'claimed_refused',
		]);
		// What n8n keeps is the last try's output.
		expect(items[0].json).toMatchObject({ status: 'ERROR', subCode: '404', nextStep: 'fixRow' });
		expect(items[1].json).toMatchObject({
			status: 'ALREADY_SUBMITTED',
			firstStatus: 'SUCCESS',
			transferId: 'claimed_paid',
			claim: CLAIM_NOTE,
		});
	});

	test('a single event whose first answer is a clear refusal and whose retry passes: paid once, and the sender hears SUCCESS', async () => {
		service.sandbox.configure({
			faults: [
				{
					fault: 'replay',
					status: 422,
					body: JSON.stringify({
						status: 'ERROR',
						subCode: '422',
						message: 'Account not configured; contact the account manager',
					}),
					times: 1,
				},
			],
		});
		const { items } = await runNode(
			internal({}, retried),
			[event('evt_42', 42)],
			service.credentials(),
		);
		expect(items[0].json).toMatchObject({ status: 'SUCCESS', transferId: 'evt_42' });
		expect(transferRequests(service.sandbox)).toEqual(['evt_42', 'evt_42']);
		expectEachPaidOnce(service.sandbox, [42]);
	});

	test('a single event whose first answer is lost: the retries send nothing, it reads UNKNOWN with its claim to settle, booked once', async () => {
		service.sandbox.configure({ faults: [{ fault: 'drop-after', times: 1 }] });
		const { items } = await runNode(
			internal({}, retried),
			[event('evt_43', 43)],
			service.credentials(),
		);
		expectEachPaidOnce(service.sandbox, [43]);
		expect(items[0].json).toMatchObject({
			status: 'UNKNOWN',
			nextStep: 'settleClaim',
			error:
				'The outcome of the transfer is unknown: this execution sent it before (n8n ran the node again, or an earlier Payouts Transfer node sent it) and no clear answer came [item 0]',
		});
		expect(transferRequests(service.sandbox)).toEqual(['evt_43']);
		expectEachPaidOnce(service.sandbox, [43]);
	});
});

test("a retry branch on the error output, under an earlier step's claim: the second Payouts Transfer node does not send again what the first sent without an answer", async () => {
	service.sandbox.configure({ faults: [{ fault: 'drop-after', times: 1 }] });
	const nodes = [
		passThroughNode('Event'),
		payoutsNode({ ...internal({}, { errorOutput: true }), name: 'Top Up', id: 'top-up' }),
		payoutsNode({
			...internal({}, { continueOnFail: true }),
			name: 'Top Up Again',
			id: 'top-up-again',
		}),
	];
	const connections = {
		Event: { main: [[{ node: 'Top Up', type: 'main' as const, index: 0 }]] },
		'Top Up': { main: [[], [{ node: 'Top Up Again', type: 'main' as const, index: 0 }]] },
	};
	const run = await runWorkflow({
		nodes,
		connections,
		input: [event('evt_44', 44)],
		credentials: { payoutsApi: service.credentials() },
	});
	expect(run.output('Top Up', 1)[0].json).toMatchObject({
		transferId: 'evt_44',
		error: expect.objectContaining({ status: 'UNKNOWN', transferId: 'evt_44' }),
	});
	expect(run.output('Top Up Again')[0].json).toMatchObject({
		status: 'UNKNOWN',
		nextStep: 'settleClaim',
		transferId: 'evt_44',
	});
	expect(statuses(run.output('Top Up Again'))).toEqual(['UNKNOWN']);
	expect(transferRequests(service.sandbox)).toEqual(['evt_44']);
	expectEachPaidOnce(service.sandbox, [44]);
});

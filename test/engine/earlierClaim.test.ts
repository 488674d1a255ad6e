/**
 * Options > Claim Held by an Earlier Step (internal transfers): an earlier step of the workflow
 * holds each row's claim (docs/queue-claims.md: a Postgres insert that one execution wins). The
 * claim is a guard more, never one instead: the node keeps its record as everywhere, so that what
 * n8n does around it without asking the earlier step again finds what was sent: n8n's Retry of a
 * failed execution (a new execution from the failed node, the claim step not run again), Retry On
 * Fail (the node again in the same execution, also when its first output item carries an error
 * under On Error Continue) and a retry branch (a second node on the error output). A paid transfer
 * reads ALREADY_SUBMITTED, one without a clear answer UNKNOWN with its claim to settle; neither is
 * sent again. What the claim table does end to end, in queue mode: test/e2e/queueClaims.test.ts.
 */
import { Container } from '@n8n/di';
import { InstanceSettings } from 'n8n-core';
import type { IDataObject } from 'n8n-workflow';

import {
	passThroughNode,
	payoutsNode,
	retryWorkflow,
	runNode,
	runWorkflow,
	stopEngineTimers,
} from '../../harness/engine';
import type { RunWorkflowOptions } from '../../harness/engine';
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

test("with an earlier step's claim the node still keeps its record: the same rows in another execution read ALREADY_SUBMITTED, paid once", async () => {
	const { items, error } = await runNode(internal({ concurrency: 2 }), rows, service.credentials());
	expect(error).toBeUndefined();
	expect(statuses(items)).toEqual(['SUCCESS', 'SUCCESS']);
	expect(store.calls.length).toBeGreaterThan(0);
	// However the rows come back without the earlier step (n8n's Retry, a copy of the step's output), the record holds them.
	const again = await runNode(internal(), rows, service.credentials());
	expect(statuses(again.items)).toEqual(['ALREADY_SUBMITTED', 'ALREADY_SUBMITTED']);
	expect(booked(service.sandbox).map((transfer) => transfer.transferId)).toEqual([
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
		/^The transfer may have been paid\. Keep its claim in the earlier step's table \(never give it a new Transfer ID before you know\)\. Once no run is sending it and 10 minutes have passed \(a request that timed out can still arrive\), look up Transfer ID claimed_1 in the payouts dashboard and write what it says as the claim's outcome: SUCCESS or PENDING, it is paid; FAILED, or not there, it did not pay/,
	);
	expect(error?.context?.rows).toEqual([
		expect.objectContaining({
			item: 0,
			status: 'UNKNOWN',
			nextStep: 'settleClaim',
			transferId: 'claimed_1',
		}),
	]);
	// The record holds it in doubt: the same row again, by whatever way, is not sent.
	const again = await runNode(
		internal({}, { continueOnFail: true }),
		rows.slice(0, 1),
		service.credentials(),
	);
	expect(again.items[0].json).toMatchObject({ status: 'UNKNOWN', nextStep: 'settleClaim' });
	expect(transferRequests(service.sandbox)).toEqual(['claimed_1']);
});

test('a Dry Run reads as where the node guards; with Service Refuses Repeated Transfer IDs the option does not apply', async () => {
	const dry = await runNode(internal({ dryRun: true }), rows, service.credentials());
	expect(dry.items[0].json.realRun).toMatch(
		/^would send, unless the record holds this Transfer ID .* a copy of the workflow, or this workflow imported into another n8n, starts with an empty record and pays this Transfer ID again/,
	);
	expect(store.calls).toEqual([]);
	const serviceGuards = await runNode(
		internal({ serviceRefusesRepeats: true }),
		rows,
		service.credentials(),
	);
	expect(statuses(serviceGuards.items)).toEqual(['SUCCESS', 'SUCCESS']);
	expect(store.calls.length).toBeGreaterThan(0);
});

describe("n8n's Retry of a failed execution (n8n's own ExecutionService.retry): the claim step is not run again, the record holds", () => {
	/** The template's shape: the claim step, then the node with On Error at its default (Stop Workflow). */
	const claimed = (options: IDataObject = {}): RunWorkflowOptions => ({
		nodes: [
			passThroughNode('Claim the Event'),
			{ ...payoutsNode(internal(options, { concurrency: 2 })), name: 'Top Up' },
		],
		connections: {
			'Claim the Event': { main: [[{ node: 'Top Up', type: 'main', index: 0 }]] },
		},
		credentials: { payoutsApi: service.credentials() },
	});

	test('a batch [a refused row, a paid row] ends with an error; the Retry pays nothing twice, and the refused row once its cause is gone', async () => {
		const workflow = claimed();
		// The service refuses the first row once (its account not yet set up), then takes it.
		service.sandbox.configure({
			internalDuplicates: 'book',
			faults: [
				{
					match: { transferId: 'claimed_refused' },
					fault: 'replay',
					status: 404,
					body: JSON.stringify({
						status: 'ERROR',
						subCode: '404',
						message: 'Recharge Account not found',
					}),
					times: 1,
				},
			],
		});
		const failed = await runWorkflow({
			...workflow,
			input: [event('claimed_refused', 15), event('claimed_paid', 25)],
		});
		expect(failed.error?.message).toMatch(/Recharge Account not found/);
		expect(failed.error?.description).toContain(
			'Running the same rows again pays none of them twice.',
		);
		expectEachPaidOnce(service.sandbox, [25]);
		// The user presses Retry on the failed execution.
		const retry = await retryWorkflow(failed, workflow);
		expect(retry.error).toBeUndefined();
		expect(retry.run.data.resultData.runData['Claim the Event']).toHaveLength(1);
		expect(statuses(retry.output('Top Up'))).toEqual(['SUCCESS', 'ALREADY_SUBMITTED']);
		expectEachPaidOnce(service.sandbox, [25, 15]);
		// A second Retry of the same failed execution pays nothing more.
		const second = await retryWorkflow(failed, workflow);
		expect(statuses(second.output('Top Up'))).toEqual(['ALREADY_SUBMITTED', 'ALREADY_SUBMITTED']);
		expectEachPaidOnce(service.sandbox, [25, 15]);
	});

	test('a batch whose one answer was lost: the Retry sends nothing again, the row reads UNKNOWN with its claim to settle', async () => {
		const workflow = claimed();
		service.sandbox.configure({
			internalDuplicates: 'book',
			faults: [{ fault: 'drop-after', times: 1 }],
		});
		const failed = await runWorkflow({ ...workflow, input: rows });
		expect(failed.error?.message).toMatch(/unknown/);
		const retry = await retryWorkflow(failed, workflow);
		expect(retry.error?.message).toMatch(/unknown/);
		expect(retry.error?.context?.rows).toEqual([
			expect.objectContaining({ item: 0, status: 'UNKNOWN', nextStep: 'settleClaim' }),
			expect.objectContaining({ item: 1, status: 'ALREADY_SUBMITTED' }),
		]);
		expect(transferRequests(service.sandbox)).toEqual(['claimed_1', 'claimed_2']);
		expectEachPaidOnce(service.sandbox, [10, 20]);
	});

	test("Pay Again on Every Run: the Retry sends the failed execution's Transfer IDs and pays nothing twice; a new execution pays again, as its words said", async () => {
		const everyRun = (options: IDataObject = {}): RunWorkflowOptions => ({
			nodes: [
				passThroughNode('Rows'),
				{
					...payoutsNode({
						type: 'payoutsTransfer',
						parameters: {
							operation: 'internalTransfer',
							amount: '={{ $json.amount }}',
							rechargeAccount: '={{ $json.account }}',
							options: { payEveryRun: true, concurrency: 2, ...options },
						},
					}),
					name: 'Pay',
				},
			],
			connections: { Rows: { main: [[{ node: 'Pay', type: 'main', index: 0 }]] } },
			credentials: { payoutsApi: service.credentials() },
		});
		const workflow = everyRun();
		const refused = { amount: 15, account: seed.rechargeAccounts.unknown };
		const paid = { amount: 25, account: seed.rechargeAccounts.configured };
		service.sandbox.configure({ internalDuplicates: 'book' });
		const failed = await runWorkflow({ ...workflow, input: [refused, paid] });
		expect(failed.error?.description).toContain(
			"Options > 'Pay Again on Every Run' is on: once the causes are fixed, retry this execution (n8n's Retry, from the Executions list): it sends the rows that need you under the same Transfer IDs and pays none twice. Do not run them in a new execution as well: there every row is a new transfer, and item 1, paid in this execution, would be paid again.",
		);
		// The refused row itself says the same: one way, the Retry.
		expect(failed.error?.context?.rows).toEqual(
			expect.arrayContaining([
				expect.objectContaining({
					item: 0,
					hint: expect.stringContaining('Pay it once, one way: retry this execution'),
				}),
			]),
		);
		expect(failed.error?.description).not.toContain('pays none of them twice');
		// The account is still unknown: the Retry fails again on that row, and pays the other nothing more.
		const retry = await retryWorkflow(failed, workflow);
		expect(retry.error?.context?.rows).toEqual([
			expect.objectContaining({ item: 0, status: 'ERROR', nextStep: 'fixRow' }),
			expect.objectContaining({ item: 1, status: 'ALREADY_SUBMITTED' }),
		]);
		expectEachPaidOnce(service.sandbox, [25]);
		// A new execution is a new payment, as the option and the error said.
		const rerun = await runWorkflow({ ...workflow, input: [paid] });
		expect(statuses(rerun.output('Pay'))).toEqual(['SUCCESS']);
		expect(booked(service.sandbox).map((transfer) => transfer.amount)).toEqual([25, 25]);
	});
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
				'The outcome of the transfer is unknown: this node sent it before and no clear answer came, or another execution is sending it right now [item 0]',
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

describe('on a queue-mode worker, where the record holds in one n8n process only', () => {
	const asWorker = async <T>(work: () => Promise<T>): Promise<T> => {
		const settings = Container.get(InstanceSettings) as unknown as { instanceType: string };
		const was = settings.instanceType;
		settings.instanceType = 'worker';
		try {
			return await work();
		} finally {
			settings.instanceType = was;
		}
	};
	const keyed = (options: IDataObject = {}, extra: IDataObject = {}) => ({
		...internal({ claimHeldEarlier: false, ...options }, extra),
	});

	test('a top-up only the record would guard is refused, every row saying what to set, nothing sent; a Dry Run says it would not send', async () => {
		const refused = await asWorker(() =>
			runNode(keyed({}, { continueOnFail: true }), rows, service.credentials()),
		);
		expect(refused.items.map((item) => [item.json.status, item.json.nextStep])).toEqual([
			['ERROR', 'fixRow'],
			['ERROR', 'fixRow'],
		]);
		expect(refused.items[0].json.error).toBe(
			'Not sent: this n8n runs in queue mode (a worker process), where this node alone cannot keep a top-up to one execution [item 0]',
		);
		expect(refused.items[0].json.hint).toContain(
			"turn on Options > 'Claim Held by an Earlier Step'",
		);
		const dry = await asWorker(() => runNode(keyed({ dryRun: true }), rows, service.credentials()));
		expect(dry.items[0].json.realRun).toMatch(/^would not send: this n8n runs in queue mode/);
		expect(transferRequests(service.sandbox)).toEqual([]);
		expect(store.calls).toEqual([]);
	});

	test('with the claim, or where the service refuses repeats, it is sent', async () => {
		const claimed = await asWorker(() => runNode(internal(), rows, service.credentials()));
		expect(statuses(claimed.items)).toEqual(['SUCCESS', 'SUCCESS']);
		service.sandbox.configure({ internalDuplicates: 'refuse' });
		const byService = await asWorker(() =>
			runNode(
				keyed({ serviceRefusesRepeats: true }),
				[event('service_1', 30)],
				service.credentials(),
			),
		);
		expect(statuses(byService.items)).toEqual(['SUCCESS']);
	});
});

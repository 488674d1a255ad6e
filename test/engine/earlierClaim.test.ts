/**
 * Options > Claim Held by an Earlier Step (internal transfers): an earlier step of the workflow
 * holds each row's claim (docs/queue-claims.md: a Postgres insert that one execution wins), so the
 * node keeps no record of its own, does not wait, says on each row whose claim it relied on, and
 * says what to do with an unknown outcome in those words. What the claim table does end to end, in
 * queue mode: test/e2e/queueClaims.test.ts.
 */
import type { IDataObject } from 'n8n-workflow';

import { runNode, stopEngineTimers } from '../helpers/engine';
import { store } from '../helpers/processedData';
import { seed, useSandbox } from '../helpers/sandbox';

afterAll(stopEngineTimers);

const service = useSandbox();
beforeEach(() => service.sandbox.configure({ internalDuplicates: 'book' }));

const internal = (options: IDataObject = {}, extra: IDataObject = {}) => ({
	type: 'payoutsTransfer',
	parameters: { operation: 'internalTransfer', amount: '={{ $json.amount }}', rechargeAccount: seed.rechargeAccounts.configured, additionalFields: { transferId: '={{ $json.transferId }}' }, options: { claimHeldEarlier: true, ...options } },
	...extra,
});
const rows = [{ amount: 10, transferId: 'claimed_1' }, { amount: 20, transferId: 'claimed_2' }];

test("with an earlier step's claim the node sends at once, writes nothing to n8n's store, and says whose claim it relied on", async () => {
	const { items, error } = await runNode(internal({ concurrency: 2 }), rows, service.credentials());
	expect(error).toBeUndefined();
	expect(items.map((item) => [item.json.status, item.json.claim])).toEqual([
		['SUCCESS', 'held by an earlier step of this workflow: this node kept no record of it'],
		['SUCCESS', 'held by an earlier step of this workflow: this node kept no record of it'],
	]);
	expect(store.calls).toEqual([]);
	// The node guards nothing itself now: the same rows again are sent again (the earlier step must not let them through).
	await runNode(internal(), rows, service.credentials());
	expect(service.sandbox.state().transfers.map((transfer) => transfer.transferId)).toEqual(['claimed_1', 'claimed_2', 'claimed_1', 'claimed_2']);
});

test("an unknown outcome under an earlier step's claim says to keep the claim and write the dashboard's word into it", async () => {
	service.sandbox.configure({ faults: [{ fault: 'drop-after', times: 1 }] });
	const { error } = await runNode(internal(), rows.slice(0, 1), service.credentials());
	expect(error?.message).toMatch(/^The outcome of the transfer is unknown/);
	expect(error?.description).toMatch(/Keep its claim in the earlier step's table \(never give it a new Transfer ID\): look up Transfer ID claimed_1 in the payouts dashboard/);
	expect(store.calls).toEqual([]);
});

test("a Dry Run says an earlier step holds the claim; the option acts only where the node would guard", async () => {
	const dry = await runNode(internal({ dryRun: true }), rows, service.credentials());
	expect(dry.items[0].json.realRun).toBe('would send: an earlier step holds its claim (this node keeps no record of it)');
	// With Service Refuses Repeated Transfer IDs the service guards: the option does not apply, and the record is kept.
	const serviceGuards = await runNode(internal({ serviceRefusesRepeats: true }), rows, service.credentials());
	expect(serviceGuards.items.map((item) => item.json.claim)).toEqual([undefined, undefined]);
	expect(store.calls.length).toBeGreaterThan(0);
});

/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code runs in Node under jest, never inside n8n (it waits with Node's timers); this rule guards the code n8n loads (nodes/, credentials/) */
/**
 * The record's reach, said on the rows (`recordNote`): a run whose transfers make the record nearly
 * full says so, and one whose transfers make n8n forget the oldest says how many, for the guard
 * the node is (the service's refusal for card and standard, its own record for internal). At the
 * size users reach: the node's row in n8n's store seeded with what 19,000 to 21,000 earlier marks
 * leave. The same at full size in real n8n: test/e2e/scale.test.ts.
 */
import type { IDataObject } from 'n8n-workflow';

import { MAX_ENTRIES, NEARLY_FULL } from '../../nodes/shared/record/journal';
import { runNode, stopEngineTimers, workflowIdOfTest } from '../helpers/engine';
import { store } from '../helpers/processedData';
import { seed, useSandbox } from '../helpers/sandbox';

afterAll(stopEngineTimers);

const service = useSandbox();
beforeEach(() => service.sandbox.configure({ internalDuplicates: 'book' }));

const NODE_ID = 'payoutsTransfer-id-0001';
/** The node's row as earlier runs left it: `count` marks. */
const earlierMarks = (count: number) => store.seed(workflowIdOfTest(), NODE_ID, Array.from({ length: count }, (_, index) => `earlier:${index}`));

const nodes = {
	standard: { type: 'payoutsTransfer', parameters: { operation: 'standardTransfer', beneId: seed.beneficiaries.verified, amount: '={{ $json.amount }}', transferId: '={{ $json.transferId }}', transferMode: 'banktransfer', additionalFields: {}, options: {} } },
	internal: { type: 'payoutsTransfer', parameters: { operation: 'internalTransfer', amount: '={{ $json.amount }}', rechargeAccount: seed.rechargeAccounts.configured, topUpKey: '={{ $json.transferId }}', additionalFields: {}, options: { queueModeSafety: false } } },
};
/** The record's writes that go on after the run (card and standard rows'), done. */
async function settledStore() {
	for (let last = -1; last !== store.calls.length; ) {
		last = store.calls.length;
		await new Promise((resolve) => setTimeout(resolve, 200));
	}
}
// The run's estimate of the row's size may lag a few marks behind (each call's size is known only
// as the journal keeps it up): enough rows that the run goes well past each mark it reports.
const rows = (count: number): IDataObject[] => Array.from({ length: count }, (_, index) => ({ amount: 1 + index, transferId: `reach_${index}` }));

test.each(['standard', 'internal'] as const)('%s: below the nearly-full mark nothing is said; from it on, each row says how full the record is', async (kind) => {
	earlierMarks(NEARLY_FULL - 10);
	const { items, error } = await runNode(nodes[kind], rows(40), service.credentials());
	expect(error).toBeUndefined();
	const notes = items.map((item) => item.json.recordNote as string | undefined);
	expect(notes[0]).toBeUndefined();
	expect(notes.at(-1)).toMatch(new RegExp(`^n8n keeps this node's last 21,000 marks of sent transfers \\(about ${kind === 'standard' ? '20,000' : '10,000'} paid transfers; .*\\), and holds 19,0\\d\\d: from 21,000 on, each new transfer makes it forget the oldest\\.`));
	expect(items.every((item) => item.json.status === "SUCCESS")).toBe(true);
});

test.each(['standard', 'internal'] as const)('%s: the rows that make n8n forget the oldest marks say how many', async (kind) => {
	earlierMarks(MAX_ENTRIES - 5);
	const { items } = await runNode(nodes[kind], rows(30), service.credentials());
	// Which rows' calls pass the limit depends on how the run's calls group the rows; some do.
	const forgetting = items.map((item) => String(item.json.recordNote)).filter((note) => /: this run made it forget the oldest \d+\. A repeat of a transfer that old is no longer recognised by this node\./.test(note));
	expect(forgetting.length).toBeGreaterThan(0);
	for (const note of forgetting) expect(note).toMatch(kind === 'standard' ? /such a repeat reads ALREADY_EXISTS instead of ALREADY_SUBMITTED/ : /Settle the rows in doubt/);
	await settledStore();
	// n8n kept the last 21,000 and the answered rows' "no clear answer" marks went after: never more.
	const kept = store.row(workflowIdOfTest(), NODE_ID).length;
	expect(kept).toBeLessThanOrEqual(MAX_ENTRIES);
	expect(kept).toBeGreaterThanOrEqual(MAX_ENTRIES - 30);
});

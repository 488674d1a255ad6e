/**
 * The loop closed, in real n8n: the example "guarded CSV batch" (examples/incident-guarded-batch.json)
 * holds the rows that an open bank incident would break and keeps them in an n8n data table; the
 * example "release held payouts" (examples/incident-release-held.json), started by the Payouts
 * Incident Trigger of an active workflow on `resolved`, pays the held rows of that bank and mode
 * with their own Transfer IDs and forgets them. The evidence is the sandbox's ledger.
 *
 * Both run in the n8n server (the Data Table module is not loaded by `n8n execute`).
 *
 * Seeded: an open IMPS incident at HDFC (row 0001, BENEHDFC1, imps: held) and an open RTGS
 * incident at YESB (row 0004, BENEVERIFIED2, rtgs: held, and still held when HDFC resolves).
 */
import { example, expectRun, runInServer, suiteN8n, until } from '../helpers/e2e';
import type { Json, Rest, SuiteN8n } from '../helpers/e2e';
import { seed } from '../helpers/sandbox';
import type { Sandbox } from '../helpers/sandbox';

jest.setTimeout(20 * 60 * 1000);

/** Reads the held rows back through n8n's own Data Table node. */
const readHeld = {
	id: 'payoutsReadHeld',
	name: 'E2E: read held payouts',
	nodes: [
		{ id: 'r-1', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
		{ id: 'r-2', name: 'Held Rows', type: 'n8n-nodes-base.dataTable', typeVersion: 1, position: [240, 0], parameters: { resource: 'row', operation: 'get', dataTableId: { __rl: true, mode: 'name', value: 'payouts_held' }, returnAll: true, filters: {} }, alwaysOutputData: true },
	],
	connections: { Start: { main: [[{ node: 'Held Rows', type: 'main', index: 0 }]] } },
	settings: { executionOrder: 'v1' },
	active: false,
};

let suite: SuiteN8n;
let sandbox: Sandbox;
let rest: Rest;

beforeAll(async () => {
	// The release workflow is active (published) before n8n starts, as a user would leave it.
	suite = await suiteN8n({ name: 'e2e-incidents', workflows: [example('incident-guarded-batch'), example('incident-release-held'), readHeld], publish: ['payoutsReleaseHeld'], server: true });
	sandbox = suite.sandbox;
	rest = suite.rest as Rest;
});

afterAll(async () => suite?.close());

/**
 * Runs a workflow as the editor's "Execute workflow" does, in the n8n server (the Data Table
 * module is loaded by `n8n start`, not by the `n8n execute` command); a run that does not succeed
 * fails with its error, output by status and the ledger.
 */
async function execute(id: string, trigger: string) {
	const run = await runInServer(rest, id, { trigger });
	expectRun(run, { status: 'success' }, sandbox);
	return run;
}

const heldRows = async () => (await execute('payoutsReadHeld', 'Start')).output('Held Rows').filter((row) => row.transferId !== undefined);
const ledger = () => sandbox.state().transfers.map((transfer) => transfer.transferId);

test('a row held by an open incident is kept, then paid exactly once when the incident is resolved', async () => {
	// 0. The release workflow's trigger polled once on activation: the open incidents are history.
	await until("the trigger's first poll", () => sandbox.requests().some((request) => request.path === '/payout/v1/incidents'), 60);

	// 1. The batch: rows at banks with open incidents on their mode are held, the others paid.
	const batch = await execute('payoutsGuardedBatch', 'When Clicking Test');
	expect(batch.output('Paid').map((row) => [row.transferId, row.status])).toEqual([
		['dec_payout_0002', 'SUCCESS'],
		['dec_payout_0003', 'SUCCESS'],
	]);
	expect(ledger()).toEqual(['dec_payout_0002', 'dec_payout_0003']);
	const held = await heldRows();
	expect(held.map(({ transferId, bankCode, incidentMode, amount, incidentIds }) => ({ transferId, bankCode, incidentMode, amount, incidentIds }))).toEqual([
		{ transferId: 'dec_payout_0001', bankCode: 'HDFC', incidentMode: 'IMPS', amount: 1200, incidentIds: String(seed.incidentBanks.openScheduledImpsAtHdfc.incidentId) },
		{ transferId: 'dec_payout_0004', bankCode: 'YESB', incidentMode: 'RTGS', amount: 2500, incidentIds: String(seed.incidentBanks.openRtgsAtYesb.incidentId) },
	]);

	expect(ledger()).toEqual(['dec_payout_0002', 'dec_payout_0003']);

	// 3. HDFC's IMPS incident is resolved (over the sandbox's HTTP control interface).
	const resolved = await fetch(`${sandbox.baseUrl}/__sandbox/incidents/resolve`, { method: 'POST', body: JSON.stringify({ entityCode: 'HDFC', mode: 'IMPS' }) });
	expect((await resolved.json()).map((incident: Json) => incident.id)).toEqual([seed.incidentBanks.openScheduledImpsAtHdfc.incidentId]);

	// 4. The next poll (at most a minute later) pays the HDFC IMPS row with its own Transfer ID, and forgets it.
	await until('the held row to be paid (the release workflow runs on the trigger\'s next poll)', () => ledger().includes('dec_payout_0001'), 150);
	await until('the paid row to leave the table', async () => (await heldRows()).length === 1, 60);
	expect((await heldRows()).map((row) => row.transferId)).toEqual(['dec_payout_0004']);
	const payment = sandbox.requests().filter((request) => request.path === '/payout/v1.2/requestTransfer' && (request.body as Json).transferId === 'dec_payout_0001');
	expect(payment).toHaveLength(1);
	expect(payment[0].body).toMatchObject({ beneId: seed.beneficiaries.hdfcBank, amount: 1200, transferMode: 'imps' });

	// 5. Paid exactly once, even when the batch is run again: the service refuses the Transfer ID it has.
	const again = await execute('payoutsGuardedBatch', 'When Clicking Test');
	// Row 0001 was paid by the release workflow's own node: this node has no record of sending it,
	// so the service's refusal reads ALREADY_EXISTS and the row is routed to "Needs a Check".
	const routed = (name: string) => again.output(name).map((row) => [row.transferId, row.status]);
	expect({ paid: routed('Paid'), check: routed('Needs a Check'), notSent: routed('Not Sent') }).toEqual({
		paid: [
			['dec_payout_0002', 'ALREADY_SUBMITTED'],
			['dec_payout_0003', 'ALREADY_SUBMITTED'],
		],
		check: [['dec_payout_0001', 'ALREADY_EXISTS']],
		notSent: [],
	});
	const transfers = ledger();
	expect(transfers.sort()).toEqual(['dec_payout_0001', 'dec_payout_0002', 'dec_payout_0003']);
	expect(sandbox.state().transfers.find((transfer) => transfer.transferId === 'dec_payout_0001')?.amount).toBe(1200);
	expect((await heldRows()).map((row) => row.transferId)).toEqual(['dec_payout_0004']);
});

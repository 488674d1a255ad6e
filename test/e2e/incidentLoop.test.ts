/**
 * The loop closed, in real n8n: the example "guarded CSV batch" (examples/incident-guarded-batch.json)
 * holds the rows that an open bank incident would break and keeps them in an n8n data table; the
 * example "release held payouts" (examples/incident-release-held.json), started by the Payouts
 * Incident Trigger of an active workflow on `resolved`, pays the held rows of that bank and mode
 * with their own Transfer IDs and forgets only those whose money moved; a row in doubt stays in the
 * table with its status and hint; an hourly check alerts on every row kept longer than the limit
 * the user sets. The evidence is the sandbox's ledger.
 *
 * Both run in the n8n server (the Data Table module is not loaded by `n8n execute`).
 *
 * Seeded: an open IMPS incident at HDFC (row 0001, BENEHDFC1, imps: held, its release's answer
 * lost) and an open RTGS incident at YESB (row 0004, BENEVERIFIED2, rtgs: held, then paid).
 */
import { example, expectRun, runInServer, suiteN8n, until } from '../helpers/e2e';
import type { Json, Rest, SuiteN8n } from '../helpers/e2e';
import { seed } from '../../harness/sandbox';
import type { Sandbox } from '../../harness/sandbox';

jest.setTimeout(20 * 60 * 1000);

/** Reads the held rows back through n8n's own Data Table node. */
const readHeld = {
	id: 'payoutsReadHeld',
	name: 'E2E: read held payouts',
	nodes: [
		{
			id: 'r-1',
			name: 'Start',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		},
		{
			id: 'r-2',
			name: 'Held Rows',
			type: 'n8n-nodes-base.dataTable',
			typeVersion: 1,
			position: [240, 0],
			parameters: {
				resource: 'row',
				operation: 'get',
				dataTableId: { __rl: true, mode: 'name', value: 'payouts_held' },
				returnAll: true,
				filters: {},
			},
			alwaysOutputData: true,
		},
	],
	connections: { Start: { main: [[{ node: 'Held Rows', type: 'main', index: 0 }]] } },
	settings: { executionOrder: 'v1' },
	active: false,
};

/** The release workflow with its Waiting Limit at 0 hours: every row kept is kept too long. */
const releaseLimitZero = {
	...example('incident-release-held'),
	id: 'payoutsReleaseHeldNow',
	name: 'E2E: release held payouts, waiting limit 0',
	nodes: example('incident-release-held').nodes.map((node) =>
		node.name === 'Waiting Limit'
			? {
					...node,
					parameters: {
						...(node.parameters as Json),
						assignments: {
							assignments: [{ id: 'l-0', name: 'maxHeldHours', value: '0', type: 'number' }],
						},
					},
				}
			: node,
	),
};

let suite: SuiteN8n;
let sandbox: Sandbox;
let rest: Rest;

beforeAll(async () => {
	// The release workflow is active (published) before n8n starts, as a user would leave it.
	suite = await suiteN8n({
		name: 'e2e-incidents',
		workflows: [
			example('incident-guarded-batch'),
			example('incident-release-held'),
			releaseLimitZero,
			readHeld,
		],
		publish: ['payoutsReleaseHeld'],
		server: true,
	});
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

const heldRows = async () =>
	(await execute('payoutsReadHeld', 'Start'))
		.output('Held Rows')
		.filter((row) => row.transferId !== undefined);
const ledger = () => sandbox.state().transfers.map((transfer) => transfer.transferId);

test('a row held by an open incident is kept, then paid exactly once when the incident is resolved; a row whose money moved leaves the table, one in doubt stays with its hint', async () => {
	// 0. The release workflow's trigger polled once on activation: the open incidents are history.
	await until(
		"the trigger's first poll",
		() => sandbox.requests().some((request) => request.path === '/payout/v1/incidents'),
		60,
	);

	// 1. The batch (read by Extract From File, amounts as text): rows at banks with open incidents on their mode are held, the others paid.
	const batch = await execute('payoutsGuardedBatch', 'When Clicking Test');
	expect(batch.output('Paid').map((row) => [row.transferId, row.status])).toEqual([
		['dec_payout_0002', 'SUCCESS'],
		['dec_payout_0003', 'SUCCESS'],
	]);
	expect(ledger()).toEqual(['dec_payout_0002', 'dec_payout_0003']);
	expect(sandbox.state().transfers.map((transfer) => transfer.amount)).toEqual([800, 450]);
	const held = await heldRows();
	expect(
		held.map(({ transferId, bankCode, incidentMode, amount, incidentIds, lastStatus }) => ({
			transferId,
			bankCode,
			incidentMode,
			amount,
			incidentIds,
			lastStatus,
		})),
	).toEqual([
		{
			transferId: 'dec_payout_0001',
			bankCode: 'HDFC',
			incidentMode: 'IMPS',
			amount: '1200.00',
			incidentIds: String(seed.incidentBanks.openScheduledImpsAtHdfc.incidentId),
			lastStatus: 'HELD',
		},
		{
			transferId: 'dec_payout_0004',
			bankCode: 'YESB',
			incidentMode: 'RTGS',
			amount: '2500.00',
			incidentIds: String(seed.incidentBanks.openRtgsAtYesb.incidentId),
			lastStatus: 'HELD',
		},
	]);

	// The hourly check: as shipped (24 hours) the rows just held raise no alert; with a limit of 0 hours, each does, with its last status.
	expect(
		(await execute('payoutsReleaseHeld', 'Every Hour')).output('Alert: Waiting Too Long'),
	).toEqual([]);
	const alerts = (await execute('payoutsReleaseHeldNow', 'Every Hour')).output(
		'Alert: Waiting Too Long',
	);
	expect(alerts.map(({ transferId, lastStatus }) => [transferId, lastStatus]).sort()).toEqual([
		['dec_payout_0001', 'HELD'],
		['dec_payout_0004', 'HELD'],
	]);
	expect(alerts[0].message).toMatch(/^Not paid for more than 0 hours: dec_payout_000[14] \(/);

	// 2. Both incidents are resolved (over the sandbox's HTTP control interface); the HDFC row's
	// transfer is booked but its answer is lost (the connection dropped): in doubt.
	sandbox.configure({
		faults: [{ fault: 'drop-after', match: { transferId: 'dec_payout_0001' }, times: 1 }],
	});
	for (const incident of [
		seed.incidentBanks.openScheduledImpsAtHdfc,
		seed.incidentBanks.openRtgsAtYesb,
	]) {
		const resolved = await fetch(`${sandbox.baseUrl}/__sandbox/incidents/resolve`, {
			method: 'POST',
			body: JSON.stringify({ entityCode: incident.entityCode, mode: incident.mode }),
		});
		expect((await resolved.json()).map((entry: Json) => entry.id)).toEqual([incident.incidentId]);
	}

	// 3. The next poll (at most a minute later) sends both held rows with their own Transfer IDs:
	// the paid one leaves the table; the one in doubt stays, with its status and hint, for a person.
	await until(
		"the held rows to be sent (the release workflow runs on the trigger's next poll)",
		() => ledger().includes('dec_payout_0001') && ledger().includes('dec_payout_0004'),
		150,
	);
	await until(
		'the paid row to leave the table and the row in doubt to get its hint',
		async () => {
			const rows = await heldRows();
			return rows.length === 1 && rows[0].lastStatus === 'UNKNOWN';
		},
		60,
	);
	const [inDoubt] = await heldRows();
	expect(inDoubt).toMatchObject({
		transferId: 'dec_payout_0001',
		lastStatus: 'UNKNOWN',
		hint: expect.stringMatching(/\S/),
	});
	const payment = sandbox
		.requests()
		.filter(
			(request) =>
				request.path === '/payout/v1.2/requestTransfer' &&
				['dec_payout_0001', 'dec_payout_0004'].includes(
					(request.body as Json).transferId as string,
				),
		);
	expect(payment.map((request) => request.body)).toEqual(
		expect.arrayContaining([
			expect.objectContaining({
				transferId: 'dec_payout_0001',
				beneId: seed.beneficiaries.hdfcBank,
				amount: 1200,
				transferMode: 'imps',
			}),
			expect.objectContaining({
				transferId: 'dec_payout_0004',
				beneId: seed.beneficiaries.verified2,
				amount: 2500,
				transferMode: 'rtgs',
			}),
		]),
	);
	expect(payment).toHaveLength(2);

	// 4. Paid exactly once, even when the batch is run again: the service refuses the Transfer IDs it has.
	const again = await execute('payoutsGuardedBatch', 'When Clicking Test');
	// Rows 0001 and 0004 were sent by the release workflow's own node: this node has no record of
	// sending them, so the service's refusal reads ALREADY_EXISTS and they go to "Needs a Check".
	const routed = (name: string) => again.output(name).map((row) => [row.transferId, row.status]);
	expect({
		paid: routed('Paid'),
		check: routed('Needs a Check'),
		notSent: routed('Not Sent'),
	}).toEqual({
		paid: [
			['dec_payout_0002', 'ALREADY_SUBMITTED'],
			['dec_payout_0003', 'ALREADY_SUBMITTED'],
		],
		check: [
			['dec_payout_0001', 'ALREADY_EXISTS'],
			['dec_payout_0004', 'ALREADY_EXISTS'],
		],
		notSent: [],
	});
	const transfers = ledger();
	expect(transfers.sort()).toEqual([
		'dec_payout_0001',
		'dec_payout_0002',
		'dec_payout_0003',
		'dec_payout_0004',
	]);
	expect(
		sandbox.state().transfers.find((transfer) => transfer.transferId === 'dec_payout_0001')?.amount,
	).toBe(1200);
	expect((await heldRows()).map((row) => row.transferId)).toEqual(['dec_payout_0001']);
});

/**
 * The record of sent transfers (nodes/shared/record, over processedData/store.ts) on faked n8n
 * helpers (fakeN8n.ts): the group commit and its order, the row's size and its limits, forgetting,
 * the claim of each kind of row, what each conclusion keeps, and a store's place in memory. What
 * the record does inside n8n's engine and across processes: test/engine/record.test.ts and the
 * simulator.
 */
import { IDLE_MS, ProcessedDataStore, StoreFull } from '../../nodes/shared/processedData/store';
import { NEW_KEY_LIMIT, TransferRecord } from '../../nodes/shared/record';
import type { Claim } from '../../nodes/shared/record';
import type { RepeatGuard } from '../../nodes/shared/types';
import { callSizes, fakeN8n, store } from './fakeN8n';

// n8n's sleeps are timers: the tests move time on themselves (the model's database steps are not timers).
beforeEach(() => {
	jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
	store.clear();
	workflow++;
});
afterEach(() => {
	// Writes made again later (other processes) never come: a test is one process, alone.
	jest.clearAllTimers();
	jest.useRealTimers();
});
let workflow = 0;
const workflowId = () => `unit-record-${workflow}`;
const n8n = () => fakeN8n(workflowId());
/** Lets lingering forgets go and every queued call finish. */
const later = async (ms = 200) => await jest.advanceTimersByTimeAsync(ms);
const holds = (entry: string) => store.holds(workflowId(), undefined, entry);
const keysOf = (transferId: string, digest = 'd1') => ({
	id: `id:${transferId}`,
	claim: `sent:${transferId}:${digest}`,
	unconfirmed: `open:${transferId}:${digest}`,
});
/** Entries an earlier run left in the workflow's row. */
const seed = async (entries: string[]) => {
	await store.checkProcessedAndRecord(
		entries,
		'workflow',
		{ workflow: { id: workflowId(), active: false } },
		{ mode: 'entries', maxEntries: 60_000 },
	);
	store.calls.length = 0;
};

describe("the store: n8n's processed-data row, one flush at a time", () => {
	const storeOf = () => ProcessedDataStore.acquire(n8n().context, workflowId());

	test('a test-and-set: what one call records, the next finds held', async () => {
		const row = storeOf();
		expect([...(await row.record(['a', 'b'])).held]).toEqual([]);
		expect([...(await row.record(['b', 'c'])).held]).toEqual(['b']);
	});

	test('what is asked while a call is under way goes into the next call, together', async () => {
		const row = storeOf();
		const asked = [row.record(['a']), row.record(['b']), row.record(['c', 'a'])];
		await Promise.all(asked);
		expect(callSizes('check')).toEqual([1, 3]);
		// Two requests of one flush asking the same entry: the first found it new, the next one held.
		expect([...(await asked[2]).held]).toEqual(['a']);
	});

	test('a forget that undoes an ask goes before the claims queued meanwhile; other forgets wait for more', async () => {
		const row = storeOf();
		const first = row.record(['a']);
		const claims = [row.record(['x'])];
		const undo = row.forget(['a'], { now: true });
		await Promise.all([first, undo, ...claims]);
		expect(store.calls.map((call) => `${call.kind} ${call.values.join(',')}`)).toEqual([
			'count ',
			'check a',
			'remove a',
			'check x',
		]);
		store.calls.length = 0;
		const paid = row.forget(['x']);
		const next = row.record(['y']);
		await next;
		expect(callSizes('remove')).toEqual([]);
		await later();
		await paid;
		expect(callSizes('remove')).toEqual([1]);
	});

	test('what one entry goes through keeps its order: a claim never overtakes a forget of its entry', async () => {
		const row = storeOf();
		await row.record(['a']);
		const forgotten = row.forget(['a']);
		const asked = row.record(['a']);
		await later();
		await forgotten;
		expect([...(await asked).held]).toEqual([]);
		expect(store.calls.map((call) => call.kind)).toEqual(['count', 'check', 'remove', 'check']);
	});

	test('the size: counted at the first call, kept up after; a call that could pass its limit writes nothing', async () => {
		await seed(['s1', 's2', 's3']);
		const row = storeOf();
		expect((await row.record(['a'])).size).toBe(4);
		expect(callSizes('count')).toEqual([0]);
		expect((await row.record(['b'])).size).toBe(5);
		expect(callSizes('count')).toEqual([0]);
		await expect(row.record(['c', 'd'], undefined, 6)).rejects.toEqual(new StoreFull(5));
		expect(holds('c')).toBe(false);
	});

	test('a store held by no run and idle for IDLE_MS leaves memory; one a run holds stays, whatever its age', async () => {
		const held = ProcessedDataStore.acquire(n8n().context, 'unit-held-workflow');
		const before = ProcessedDataStore.count();
		for (let other = 0; other < 1_000; other++) {
			const row = ProcessedDataStore.acquire(
				fakeN8n(`unit-idle-${other}`).context,
				`unit-idle-${other}`,
			);
			await row.record([`entry-${other}`]);
			row.release();
		}
		expect(ProcessedDataStore.count()).toBe(before + 1_000);
		await later(IDLE_MS + 1);
		ProcessedDataStore.acquire(n8n().context, workflowId()).release();
		// The thousand idle ones are gone; the ones runs hold (this file's earlier tests keep theirs) stay.
		expect(ProcessedDataStore.count()).toBe(before + 1);
		expect(ProcessedDataStore.acquire(n8n().context, 'unit-held-workflow')).toBe(held);
	});
});

describe('the record: a claim of each kind of row, and what each conclusion keeps', () => {
	const recordFor = (guard: RepeatGuard) =>
		TransferRecord.forWorkflow(n8n().context, workflowId(), guard);
	const claimOf = async (record: TransferRecord, transferId: string, index = 0) =>
		await record.claim(index, transferId, 'd1');

	test.each(['node', 'service'] as const)(
		'%s: a new transfer is claimed, its keys written before it is sent',
		async (guard) => {
			const record = recordFor(guard);
			expect(await claimOf(record, 'T1')).toEqual<Claim>({
				kind: 'claimed',
				earlier: 'none',
				unrecorded: false,
			});
			const keys = keysOf('T1');
			expect([holds(keys.claim), holds(keys.unconfirmed), holds(keys.id)]).toEqual([
				true,
				true,
				guard === 'node',
			]);
			await record.close(() => undefined);
		},
	);

	test("confirmed: its claim without `unconfirmed`; asking wrote `unconfirmed`, forgotten before the next claim's call", async () => {
		const keys = keysOf('T2');
		await seed([keys.id, keys.claim]);
		const record = recordFor('node');
		const claims = [claimOf(record, 'T2', 0), claimOf(record, 'T3', 1)];
		expect((await claims[0]).kind).toBe('confirmed');
		await Promise.all(claims);
		expect(store.calls.map((call) => call.kind)).toEqual(['count', 'check', 'remove', 'check']);
		expect(holds(keys.unconfirmed)).toBe(false);
		record.conclude(1, 'notSent');
		await record.close(() => undefined);
	});

	test('in doubt: where the node guards it is not sent; where the service guards it is sent again, and a release keeps the earlier doubt', async () => {
		const keys = keysOf('T4');
		await seed([keys.id, keys.claim, keys.unconfirmed]);
		const node = recordFor('node');
		expect(await claimOf(node, 'T4')).toEqual<Claim>({ kind: 'inDoubt' });
		await node.close(() => undefined);
		const service = recordFor('service');
		expect(await claimOf(service, 'T4')).toEqual<Claim>({ kind: 'claimed', earlier: 'inDoubt' });
		service.conclude(0, 'released');
		await service.close(() => undefined);
		expect([holds(keys.claim), holds(keys.unconfirmed)]).toEqual([true, true]);
	});

	test('another transfer with this Transfer ID (the node guards): other values, and what asking wrote is forgotten', async () => {
		const other = keysOf('T5', 'other');
		await seed([other.id, other.claim]);
		const record = recordFor('node');
		expect(await claimOf(record, 'T5')).toEqual<Claim>({ kind: 'otherValues' });
		await record.close(() => undefined);
		const keys = keysOf('T5');
		expect([holds(keys.claim), holds(keys.unconfirmed), holds(other.claim)]).toEqual([
			false,
			false,
			true,
		]);
	});

	test(`the full record (${NEW_KEY_LIMIT.toLocaleString('en-US')} entries): a new top-up is refused, a new card or standard transfer sent unrecorded, nothing of either kept; a transfer it holds is still asked`, async () => {
		const held = keysOf('T6');
		await seed([
			...Array.from({ length: NEW_KEY_LIMIT }, (_, i) => `filler-${i}`),
			held.id,
			held.claim,
		]);
		const node = recordFor('node');
		expect(await claimOf(node, 'T7', 0)).toEqual<Claim>({ kind: 'full', size: NEW_KEY_LIMIT + 5 });
		expect((await claimOf(node, 'T6', 1)).kind).toBe('confirmed');
		await node.close(() => undefined);
		const service = recordFor('service');
		expect(await claimOf(service, 'T8')).toEqual<Claim>({
			kind: 'claimed',
			earlier: 'none',
			unrecorded: true,
		});
		await service.close(() => undefined);
		expect(['T7', 'T8'].map((id) => holds(keysOf(id).claim))).toEqual([false, false]);
	});

	test.each([
		[{ confirmed: { status: 'SUCCESS' } }, { claim: true, unconfirmed: false }],
		['released', { claim: false, unconfirmed: false }],
		['inDoubt', { claim: true, unconfirmed: true }],
	] as const)('concluded %j: the record keeps %j', async (conclusion, kept) => {
		const record = recordFor('node');
		await claimOf(record, 'T9');
		record.sending(0);
		record.conclude(0, conclusion);
		await record.close(() => undefined);
		const keys = keysOf('T9');
		expect({ claim: holds(keys.claim), unconfirmed: holds(keys.unconfirmed) }).toEqual(kept);
	});

	/** Another n8n process's stale whole-row write (queue mode): it puts back a row without these entries. */
	const staleWriteTakes = async (entries: string[]) => {
		const row = { workflow: { id: workflowId(), active: false } };
		await store.removeProcessed(entries, 'workflow', row, { mode: 'entries', maxEntries: 60_000 });
		await store.checkProcessedAndRecord(['another-process'], 'workflow', row, {
			mode: 'entries',
			maxEntries: 60_000,
		});
	};

	/** Moves time on, letting the model's database steps (turns of the real event loop) run between. */
	const settlingWindows = async (ms: number) => {
		for (let passed = 0; passed < ms; passed += 50) {
			await later(50);
			for (let turn = 0; turn < 5; turn++)
				// eslint-disable-next-line @n8n/community-nodes/no-restricted-globals -- the model's database steps are turns of the real event loop, which jest's fake timers leave alone
				await new Promise((resolve) => setImmediate(resolve));
		}
	};

	test("the node guards: a claim another process's stale write took is written again a settling window later", async () => {
		const record = recordFor('node');
		await claimOf(record, 'T12');
		record.sending(0);
		const keys = keysOf('T12');
		await staleWriteTakes([keys.id, keys.claim, keys.unconfirmed]);
		expect(holds(keys.claim)).toBe(false);
		await settlingWindows(2_000);
		expect([holds(keys.id), holds(keys.claim), holds(keys.unconfirmed)]).toEqual([
			true,
			true,
			true,
		]);
		record.conclude(0, 'inDoubt');
		await record.close(() => undefined);
	});

	test('a request this process sent without a clear answer stays in doubt here, even where the store lost it (Retry On Fail, a re-run): asking writes it back', async () => {
		const first = recordFor('node');
		await claimOf(first, 'T13');
		first.sending(0);
		first.conclude(0, 'inDoubt');
		await first.close(() => undefined);
		const keys = keysOf('T13');
		await staleWriteTakes([keys.id, keys.claim, keys.unconfirmed]);
		const again = recordFor('node');
		expect(await claimOf(again, 'T13')).toEqual<Claim>({ kind: 'inDoubt' });
		await again.close(() => undefined);
		expect([holds(keys.id), holds(keys.claim), holds(keys.unconfirmed)]).toEqual([
			true,
			true,
			true,
		]);
		// A clear answer ends it: released, this process no longer holds it in doubt.
		const service = recordFor('service');
		await staleWriteTakes([keys.claim, keys.unconfirmed]);
		expect(await claimOf(service, 'T13')).toEqual<Claim>({ kind: 'claimed', earlier: 'inDoubt' });
		service.sending(0);
		service.conclude(0, 'released');
		await service.close(() => undefined);
		await staleWriteTakes([keys.id, keys.claim, keys.unconfirmed]);
		const after = recordFor('node');
		expect((await claimOf(after, 'T13')).kind).toBe('claimed');
		after.conclude(0, 'notSent');
		await after.close(() => undefined);
	});

	test('the run ends: rows claimed and never sent are given back; a row whose request went out keeps its claim', async () => {
		const record = recordFor('node');
		await claimOf(record, 'T10', 0);
		await claimOf(record, 'T11', 1);
		record.sending(1);
		record.conclude(1, 'notSent');
		await record.close(() => undefined);
		expect([holds(keysOf('T10').claim), holds(keysOf('T11').claim)]).toEqual([false, true]);
	});
});

/**
 * The record writes a state again (processedData/store.ts `rewriteLater`) only where another process writes its
 * row: in one n8n process each paid row's "no clear answer" is forgotten once; with a second
 * process writing the same row, the store sees it and forgets again. Each forget of n8n's store
 * scans the whole row, so one process writing states again is what slowed large batches.
 */
import { scripted, workflow } from './reports';

/** Each value the store was asked to forget, as often as asked. */
const forgotten = (calls: Array<{ kind: string; values: string[] }>) =>
	calls.filter((call) => call.kind === 'remove').flatMap((call) => call.values);
const repeated = (values: string[]) => values.length - new Set(values).size;
const timesEach = (values: string[]) => {
	const times = new Map<string, number>();
	for (const value of values) times.set(value, (times.get(value) ?? 0) + 1);
	return [...times.values()];
};

test('one process: each paid row is written once, nothing made again', async () => {
	const { world, violations } = await scripted(
		1,
		workflow('standardTransfer', 'transferId'),
		async (world, _user, rows) => {
			world.execute('p1', rows);
		},
		{ payouts: 20 },
	);
	expect(violations).toEqual([]);
	const values = forgotten(world.calls);
	expect(values).toHaveLength(20);
	expect(repeated(values)).toBe(0);
});

test('two processes writing the same row: every paid row is made again', async () => {
	const { world, violations } = await scripted(
		1,
		workflow('standardTransfer', 'transferId'),
		async (world, _user, rows) => {
			world.start('p2');
			world.execute('p1', rows.slice(0, 10));
			world.execute('p2', rows.slice(10));
		},
		{ payouts: 20 },
	);
	expect(violations).toEqual([]);
	const times = timesEach(forgotten(world.calls));
	expect(times).toHaveLength(20);
	expect(times.filter((count) => count < 2)).toEqual([]);
});

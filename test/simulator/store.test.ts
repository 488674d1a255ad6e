/* eslint-disable @n8n/community-nodes/no-restricted-globals -- test code runs in Node under jest, never inside n8n: it lets Node's event loop turn between database steps */
/**
 * The simulator's model of n8n's processed-data store (store.ts) against the plainest reading of
 * n8n 2.41.1's code (dist/deduplication/deduplication-helper.js): each call copies the row it
 * reads, tests each value against a set of it, computes in JavaScript, and writes the whole row back. Random calls of several "processes", their reads and writes interleaved at
 * random (fast-check), must give every call the same answer and leave the same row in both.
 * The real-n8n check of the model is test/e2e/storeModel.test.ts.
 */
import fc from 'fast-check';

import { hashOf, ProcessedDataModel } from '../../harness/processedDataModel';

const context = { workflow: { id: 'w1', active: true }, node: { id: 'n1' } } as never;

/** n8n's code, read plainly: a copy at `findOne`, the whole row at `update` or `insert`. */
class Plain {
	row?: string[];
	read() {
		return this.row ? [...this.row] : undefined;
	}
	check(read: string[] | undefined, values: string[], maxEntries: number) {
		const hashed = values.map(hashOf);
		if (!read) {
			if (this.row) throw new Error('duplicate');
			this.row = hashed.slice(Math.max(0, hashed.length - maxEntries));
			return [];
		}
		const processed: string[] = [];
		const readSet = new Set(read);
		hashed.forEach((hash, index) => {
			if (readSet.has(hash)) processed.push(values[index]);
			else read.push(hash);
		});
		read.splice(0, read.length - maxEntries);
		if (this.row) this.row = read;
		return processed;
	}
	remove(read: string[] | undefined, values: string[]) {
		if (!read) return;
		for (const hash of values.map(hashOf)) {
			const at = read.findIndex((entry) => entry === hash);
			if (at !== -1) read.splice(at, 1);
		}
		if (this.row) this.row = read;
	}
}

type Call = { kind: 'check' | 'remove'; values: string[] };
const call = fc.record({
	kind: fc.constantFrom<'check' | 'remove'>('check', 'check', 'remove'),
	values: fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'), {
		minLength: 0,
		maxLength: 4,
	}),
});

test('the model answers every call and leaves the row as n8n does, under any interleaving of reads and writes', async () => {
	await fc.assert(
		fc.asyncProperty(
			fc.array(call, { minLength: 1, maxLength: 12 }),
			fc.array(fc.nat(), { minLength: 30, maxLength: 30 }),
			fc.integer({ min: 2, max: 6 }),
			async (calls: Call[], order: number[], maxEntries: number) => {
				// Each call is two steps (read, then write); `order` picks which waiting step goes next.
				const gates: Array<{ call: number; open: () => void }> = [];
				let current = -1;
				const model = new ProcessedDataModel(
					async (_step, made) =>
						await new Promise<void>((open) => gates.push({ call: Number(made.by), open })),
				);
				model.by = () => String(current);
				const plain = new Plain();
				const plainReads = new Map<number, string[] | undefined>();
				const modelAnswers = new Map<number, string[] | 'duplicate'>();
				const plainAnswers = new Map<number, string[] | 'duplicate'>();
				const flush = async () => {
					for (let i = 0; i < 4; i++) await new Promise((resolve) => setImmediate(resolve));
				};
				const running = calls.map((each, index) => {
					current = index;
					const options = { mode: 'entries' as const, maxEntries };
					const done =
						each.kind === 'check'
							? model
									.checkProcessedAndRecord(each.values, 'node', context, options)
									.then((result) => result.processed.map(String))
							: model.removeProcessed(each.values, 'node', context, options).then(() => []);
					return done.then(
						(answer) => modelAnswers.set(index, answer),
						() => modelAnswers.set(index, 'duplicate'),
					);
				});
				await flush();
				const stepsOf = new Map<number, number>();
				for (let turn = 0; gates.length > 0; turn++) {
					const gate = gates.splice(order[turn % order.length] % gates.length, 1)[0];
					const step = (stepsOf.get(gate.call) ?? 0) + 1;
					stepsOf.set(gate.call, step);
					const each = calls[gate.call];
					if (step === 1) plainReads.set(gate.call, plain.read());
					else {
						try {
							plainAnswers.set(
								gate.call,
								each.kind === 'check'
									? plain.check(plainReads.get(gate.call), each.values, maxEntries)
									: (plain.remove(plainReads.get(gate.call), each.values), []),
							);
						} catch {
							plainAnswers.set(gate.call, 'duplicate');
						}
					}
					gate.open();
					await flush();
				}
				await Promise.all(running);
				// A remove that found no row has one step only: it answered at once in both.
				for (const [index, each] of calls.entries())
					if (!plainAnswers.has(index) && each.kind === 'remove') plainAnswers.set(index, []);
				expect(modelAnswers).toEqual(plainAnswers);
				expect(model.row('w1', 'n1')).toEqual(plain.row ?? []);
			},
		),
		{ numRuns: 3000 },
	);
});

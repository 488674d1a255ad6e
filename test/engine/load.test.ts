/**
 * Load through n8n's engine against the sandbox (the benchmark runs the same at 50,000 items):
 * every input is accounted for (outputs plus error items equal inputs), the sandbox's transfer
 * count equals the successes, and no transferId is ever sent twice, with bad rows and faults mixed in.
 */
import { runNode, stopEngineTimers } from '../../harness/engine';
import { seed, useSandbox } from '../../harness/sandbox';
import { standardTransfer } from './setup';

afterAll(stopEngineTimers);
jest.setTimeout(120_000);

const service = useSandbox();

test('2,000 standard transfers at concurrency 8, with bad rows, refusals and dropped answers', async () => {
	const count = 2000;
	const rows = Array.from({ length: count }, (_, index) => ({
		beneId: index % 97 === 0 ? seed.unknownBeneId : seed.beneficiaries.verified,
		amount: index % 89 === 0 ? 0.5 : 1 + (index % 50),
		transferId: `load_${index}`,
	}));
	service.sandbox.configure({
		faults: [
			{ fault: 'drop-after', match: { transferId: 'load_500' } },
			{ fault: 'html-500', match: { transferId: 'load_501' } },
		],
	});
	const { items, error } = await runNode(
		standardTransfer({ concurrency: 8 }, { continueOnFail: true }),
		rows,
		service.credentials(),
	);
	expect(error).toBeUndefined();

	expect(items).toHaveLength(count);
	expect(items.map((item) => (item.pairedItem as { item: number }).item)).toEqual(
		rows.map((_, index) => index),
	);
	const byStatus = (status: string) => items.filter((item) => item.json.status === status).length;
	const invalid = rows.filter((row) => row.amount < 1).length;
	expect(byStatus('UNKNOWN')).toBe(2);
	expect(byStatus('ERROR')).toBe(
		invalid +
			rows.filter(
				(row, index) =>
					row.beneId === seed.unknownBeneId && row.amount >= 1 && index !== 500 && index !== 501,
			).length,
	);
	expect(byStatus('SUCCESS') + byStatus('ERROR') + byStatus('UNKNOWN')).toBe(count);

	// The dropped answer's transfer did happen (money moved once); the 5xx one did not.
	const transfers = service.sandbox.state().transfers.map((transfer) => transfer.transferId);
	expect(transfers).toHaveLength(byStatus('SUCCESS') + 1);
	expect(transfers).toContain('load_500');
	const sent = service.sandbox
		.requests()
		.map((request) => (request.body as { transferId: string }).transferId);
	expect(new Set(sent).size).toBe(sent.length);
	expect(sent).toHaveLength(count - invalid);
});

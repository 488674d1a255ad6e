/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- test code runs in Node under jest, never inside n8n (it reads files and evaluates a template's expression with Node's own means); these rules guard the code n8n loads (nodes/, credentials/) */
/**
 * One table of answers to senders, in docs/examples.md ("What the sender hears"), used
 * by both event templates: their node "Answer by What the Sender Should Do" holds the same
 * expression, and evaluated on an outcome of each row of the table it gives that row's HTTP status
 * and Retry-After. The end-to-end suites meet the rows in real n8n (examplesPublished,
 * queueClaims); here every row, and the service's error messages one by one, without n8n.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.join(__dirname, '..', '..');
type Node = {
	name: string;
	parameters: { assignments?: { assignments: Array<{ name: string; value: string }> } };
};
const answerOf = (file: string) => {
	const workflow = JSON.parse(readFileSync(path.join(root, 'examples', file), 'utf8')) as {
		nodes: Node[];
	};
	return (
		workflow.nodes
			.find((node) => node.name === 'Answer by What the Sender Should Do')
			?.parameters.assignments?.assignments.find((field) => field.name === 'reply')?.value ?? ''
	);
};
const templates = ['event-payout.json', 'queue-claim-payout.json'];

/** The template's expression as a function of `$json` (it uses nothing else of n8n's). */
function table(expression: string): (outcome: Record<string, unknown>) => {
	httpStatus: number;
	retryAfter: number;
	body: Record<string, unknown>;
} {
	const inner = /^=\{\{([\s\S]*)\}\}$/.exec(expression)?.[1];
	if (!inner) throw new Error('not an n8n expression');
	return new Function('$json', `return (${inner});`) as (outcome: Record<string, unknown>) => {
		httpStatus: number;
		retryAfter: number;
		body: Record<string, unknown>;
	};
}

/** The rows of docs/examples.md's table: the first cell, the HTTP status(es), Retry-After. */
function documentedRows(): Array<{ row: string; http: string; retryAfter: string }> {
	const page = readFileSync(path.join(root, 'docs', 'examples.md'), 'utf8');
	const start = page.indexOf('\n### What the sender hears\n');
	const section = page.slice(start, page.indexOf('\n## ', start + 1));
	return section
		.split('\n')
		.filter((line) => line.startsWith('| ') && !/^\| (Outcome|---)/.test(line))
		.map((line) =>
			line
				.split('|')
				.slice(1, -1)
				.map((cell) => cell.trim()),
		)
		.map(([row, http, retryAfter]) => ({ row, http, retryAfter }));
}

const error = (message: string, extra: Record<string, unknown> = {}) => ({
	status: 'ERROR',
	message,
	...extra,
});
/** Outcomes of each documented row, as the nodes before the table give them (Payouts Transfer's item, or a template's own). */
const SAMPLES: Array<[RegExp, Array<Record<string, unknown>>]> = [
	[/^`SUCCESS`/, [{ status: 'SUCCESS', referenceId: '500001' }]],
	[/^`PENDING`/, [{ status: 'PENDING' }]],
	[/^`ALREADY_SUBMITTED`/, [{ status: 'ALREADY_SUBMITTED' }]],
	[
		/^`UNKNOWN`/,
		[{ status: 'UNKNOWN', message: 'Transfer request the service, no response from bank' }],
	],
	[
		/^`HELD`/,
		[
			{
				status: 'HELD',
				message: 'Not sent: an open incident affects transfer mode imps at bank HDFC',
			},
		],
	],
	[/30 minutes/, [error('Please wait 30 minutes after adding the beneficiary')]],
	[
		/^`ERROR` that may succeed later/,
		[
			error('', {
				error: 'The service could not be reached: the service refused the connection [item 0]',
			}),
			error('Internal server error'),
			error('Token is not valid'),
			error('IP not whitelisted'),
			error('APIs not enabled, use the form'),
			error('Not enough available balance in the account'),
			error('Transfer limit for your account exceeded'),
			error('Transfer limit for beneficiary exceeded'),
			error('Transfer attempt failed at the bank'),
			error('Transfer request to a wallet failed'),
			error('Transfer mode not enabled for the account'),
			error('Recharge Account not found'),
			error('Account not configured; contact the account manager'),
			error('Not sent: the execution was stopped before this transfer went out [item 0]'),
			error('The node could not record the transfer before sending it [item 0]'),
			error('The Base URL does not answer as the payouts service: HTTP 404, Not Found [item 0]'),
		],
	],
	[/^`NOT_SENT`/, [{}, { status: '' }, { status: 'NOT_SENT' }]],
	[
		/for good/,
		[
			error('Beneficiary does not exist'),
			error('Please provide a valid beneId'),
			error('Transfer to this beneficiary not allowed'),
			error('Invalid bank account number or IFSC provided'),
			error('Invalid IFSC code provided for bank account'),
			error('Mode Not valid for Beneficiary'),
			error('Transfer amount is less than minimum amount of Rs. 100'),
			error('Transfer amount is less than minimum amount of Rs. 1'),
			error('Transfer amount is greater than the maximum amount of Rs. 100000'),
			error('Invalid Amount Passed; only 2 decimal places are allowed'),
			error('Please provide a valid transferId'),
			error('', {
				error: `'Amount' must have at most 2 decimal places (given: "10.001") [item 0]`,
			}),
		],
	],
	[/^`INVALID`/, [{ status: 'INVALID', problems: ["'amount' must be at least 1.00"] }]],
	[/^`UNSIGNED`/, [{ status: 'UNSIGNED' }]],
	[/^`ALREADY_EXISTS`/, [{ status: 'ALREADY_EXISTS', message: 'Transfer Id already exists' }]],
	[/^`CONFLICT`/, [{ status: 'CONFLICT' }]],
	[
		/other values/,
		[
			error(
				'This node sent another transfer with Transfer ID evt_1 (other amount or account) [item 0]',
			),
			error(
				'The payouts dashboard says FAILED for Transfer ID evt_1: it did not pay, and it can never be paid under this Transfer ID [item 0]',
				{ nextStep: 'newTransferId' },
			),
		],
	],
];
/** Rows n8n answers, not the table: nothing of ours to evaluate. */
const N8N_OWN = [/^n8n's own refusal/, /^n8n's 500/];

test('both event templates hold the same table of answers', () => {
	const [event, claim] = templates.map(answerOf);
	expect(event.length).toBeGreaterThan(500);
	expect(claim).toBe(event);
});

test.each(templates)(
	"%s: every row of docs/examples.md's table, evaluated, gives that row's HTTP status and Retry-After",
	(file) => {
		const answer = table(answerOf(file));
		const rows = documentedRows();
		expect(rows.length).toBeGreaterThanOrEqual(15);
		for (const { row, http, retryAfter } of rows) {
			if (N8N_OWN.some((pattern) => pattern.test(row))) continue;
			const samples = SAMPLES.find(([pattern]) => pattern.test(row))?.[1];
			expect([row, samples === undefined]).toEqual([row, false]);
			for (const outcome of samples ?? []) {
				const { httpStatus, retryAfter: seconds, body } = answer(outcome);
				const said = {
					row: row.slice(0, 40),
					outcome,
					httpStatus,
					retryAfter: httpStatus === 503 ? String(seconds) : '',
				};
				expect(said).toEqual({
					row: row.slice(0, 40),
					outcome,
					httpStatus: Number(http),
					retryAfter,
				});
				expect(typeof body.senderShould).toBe('string');
			}
		}
	},
);

test('a status the table does not name is answered 503: it moved no money (never a final 4xx, never "paid")', () => {
	const answer = table(answerOf('event-payout.json'));
	expect(answer({ status: 'SOMETHING_NEW' })).toMatchObject({ httpStatus: 503, retryAfter: 60 });
	// The body carries what the sender needs, and nothing empty.
	expect(
		answer({ status: 'ERROR', message: 'Beneficiary does not exist', hint: '', eventId: 'evt_1' })
			.body,
	).toEqual({
		eventId: 'evt_1',
		status: 'ERROR',
		message: 'Beneficiary does not exist',
		senderShould: expect.stringMatching(/^Nothing was paid/),
	});
});

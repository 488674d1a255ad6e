/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- test code runs in Node under jest, never inside n8n (it reads files and evaluates a template's expressions with Node's own means); these rules guard the code n8n loads (nodes/, credentials/) */
/**
 * One table of answers to senders, in docs/examples.md ("What the sender hears"), used by both
 * event templates. Every row is run through the templates' own expressions (their Set nodes and
 * the answer table, evaluated here as n8n evaluates them), fed with:
 * - the payouts node's real words: each row of its error table (the service's answer read, judged
 *   and said by the node's own code, then made the item Continue On Fail gives), each of its own
 *   verdicts, its paid answers and its refusals before sending;
 * - the templates' own outcomes: a token for another webhook, an invalid event, the daily cap, the
 *   record of events or the claim answering a redelivery, a payouts step that did not run.
 * Each gives its row's HTTP status and Retry-After. And every `NNN` `STATUS` pair that a sticky
 * note or a page writes must be what the table answers for that status. The end-to-end suites meet
 * the rows in real n8n (examplesPublished, templates, queueClaims).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { DateTime } from 'luxon';
import type { INode } from 'n8n-workflow';

import { DASHBOARD_WORDS } from '../../nodes/shared/input/dashboardStatus';
import { invalid } from '../../nodes/shared/input/items';
import { errorRows } from '../../nodes/shared/outcomes/errors';
import type { ErrorRow } from '../../nodes/shared/outcomes/errors';
import { interpret } from '../../nodes/shared/outcomes/interpret';
import { rowOutcome } from '../../nodes/shared/outcomes/messages';
import type { RunResult, MessageContext } from '../../nodes/shared/outcomes/messages';
import { outputItems } from '../../nodes/shared/output/output';
import { readAnswer } from '../../nodes/shared/transport/answer';
import type { Failure, OperationName, Outcome, Planned } from '../../nodes/shared/types';
import { OPERATIONS, plan } from '../unit/rows';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { messages: SERVICE_MESSAGES } = require('../../sandbox/service.js') as {
	messages: Record<string, string>;
};

const root = path.join(__dirname, '..', '..');
type Json = Record<string, unknown>;
type Node = { name: string; type: string; parameters: Json };
type Workflow = { nodes: Node[] };
const workflowOf = (file: string) =>
	JSON.parse(readFileSync(path.join(root, 'examples', file), 'utf8')) as Workflow;
const EVENT = 'event-payout.json';
const CLAIM = 'queue-claim-payout.json';
const TEMPLATES = [EVENT, CLAIM];
const workflows = Object.fromEntries(TEMPLATES.map((file) => [file, workflowOf(file)]));
const nodeOf = (file: string, name: string) => {
	const found = workflows[file].nodes.find((node) => node.name === name);
	if (!found) throw new Error(`${file} has no node '${name}'`);
	return found;
};

// ---- n8n's expressions, evaluated as n8n does for these nodes -------------------------------------

/** What `$('Node')` gives an expression: the node's first item, all its items, whether it ran. */
type Ran = Record<string, Json[]>;
/** The expression inside `={{ … }}` as a function of what n8n gives it; a plain value as it is. */
function evaluate(value: unknown, $json: Json, ran: Ran, now: DateTime): unknown {
	if (typeof value !== 'string' || !value.startsWith('=')) return value;
	const inner = /^=\{\{([\s\S]*)\}\}$/.exec(value)?.[1];
	if (inner === undefined) throw new Error(`not a whole expression: ${value.slice(0, 60)}`);
	const $ = (name: string) => ({
		first: () => ({ json: ran[name]?.[0] ?? {} }),
		all: () => (ran[name] ?? []).map((json) => ({ json })),
		isExecuted: name in ran,
	});
	const fn = new Function('$json', '$', '$now', '$today', `return (${inner});`) as (
		...args: unknown[]
	) => unknown;
	return fn($json, $, now, now.startOf('day'));
}

/** What a Set node (Edit Fields 3.4) outputs for `$json`: its JSON (raw mode), or its fields, typed, and the input's with "include other fields". */
function runSet(file: string, name: string, $json: Json, ran: Ran = {}, now = NOW): Json {
	const parameters = nodeOf(file, name).parameters as {
		mode?: string;
		jsonOutput?: string;
		includeOtherFields?: boolean;
		assignments: { assignments: Array<{ name: string; value: unknown; type: string }> };
	};
	if (parameters.mode === 'raw')
		return JSON.parse(String(evaluate(parameters.jsonOutput, $json, ran, now))) as Json;
	const output: Json = parameters.includeOtherFields ? { ...$json } : {};
	for (const field of parameters.assignments.assignments) {
		const value = evaluate(field.value, $json, ran, now);
		output[field.name] =
			field.type === 'string'
				? String(value ?? '')
				: field.type === 'number'
					? Number(value)
					: field.type === 'boolean'
						? value === true || value === 'true'
						: value;
	}
	return output;
}

const NOW = DateTime.fromISO('2026-11-28T18:00:00Z', { zone: 'UTC' });
const ANSWER = 'Answer by What the Sender Should Do';
type Reply = {
	httpStatus: number;
	retryAfter: number;
	keeps: boolean;
	body: Json;
};
const answer = (file: string, outcome: Json) => runSet(file, ANSWER, outcome).reply as Reply;

/** The event each template read and checked, as its Check the Event gives it. */
const CHECKED: Record<string, Json> = {
	[EVENT]: {
		eventId: 'evt-1001',
		transferId: 'evt1001',
		beneId: 'BENEVERIFIED1',
		amount: '250.00',
		maxAmount: '1000.00',
		dailyCap: '5000.00',
		allowedBeneIds: '',
		day: '2026-11-28',
		problems: [],
	},
	[CLAIM]: {
		eventId: 'evt-1001',
		transferId: 'evt-1001',
		amount: '250.00',
		maxAmount: '1000.00',
		dailyCap: '5000.00',
		rechargeAccount: 'RECHARGE001',
		dayStart: '2026-11-28T00:00:00.000Z',
		problems: [],
	},
};
const PAY_NODE: Record<string, string> = { [EVENT]: 'Pay Payee', [CLAIM]: 'Top Up' };
const OPERATION: Record<string, OperationName> = {
	[EVENT]: 'standardTransfer',
	[CLAIM]: 'internalTransfer',
};

/** A new event, as the event template's record of events says (no row yet). */
const NEW_EVENT = { record: 'new', row: {}, dashboardStatus: '' };
/** The payouts node's item (or its input passed on when it did not run) made the template's outcome by its node "The Outcome". */
const outcomeAfterPaying = (file: string, item: Json, record: Json = NEW_EVENT) =>
	runSet(
		file,
		'The Outcome',
		{},
		{
			'Check the Event': [CHECKED[file]],
			[PAY_NODE[file]]: [item],
			...(file === EVENT ? { 'What the Record Says': [record] } : {}),
		},
	);

// ---- The payouts node's own outcomes ---------------------------------------------------------

const redact = (text: string) => text;
const speakerOf = (file: string): MessageContext =>
	file === EVENT
		? { operation: OPERATIONS.standardTransfer, guard: 'service' }
		: {
				operation: OPERATIONS.internalTransfer,
				guard: 'node',
				options: { claimHeldEarlier: true },
			};
const entryOf = (file: string): Planned =>
	plan(OPERATIONS[OPERATION[file]], {
		...(file === EVENT
			? { beneId: 'BENEVERIFIED1', transferMode: 'banktransfer' }
			: { rechargeAccount: 'RECHARGE001' }),
		amount: '250.00',
		transferId: CHECKED[file].transferId,
	});
/** The item the template's payouts step gives for an outcome, under its own On Error setting (Continue). */
const itemOf = (file: string, outcome: Outcome, entry: Planned): Json => {
	const node = nodeOf(file, PAY_NODE[file]) as unknown as INode;
	const [[item]] = outputItems(
		node,
		1,
		new Map([[0, outcome]]),
		new Map(),
		new Map([[0, entry.params]]),
	);
	return item.json;
};

/** A service message of each error-table row (the sandbox's, which speaks as the service). */
function sampleOf(row: ErrorRow): string {
	const found = Object.values(SERVICE_MESSAGES).find((text) => row.message.test(text));
	if (!found) throw new Error(`no service message for the row ${String(row.message)}`);
	return found;
}

/**
 * Which row of the docs' table each of the node's outcomes belongs to, as the docs rowOutcome it: by
 * status, by `nextStep`, and the refusals the table names. `file` is the template (only the
 * queue-mode template's recharge account is its own setting).
 */
const ROW = {
	success: /^`SUCCESS`/,
	pending: /^`PENDING`/,
	paidBefore: /^`ALREADY_SUBMITTED`/,
	unknown: /^`UNKNOWN`/,
	held: /^`HELD`/,
	wait: /30 minutes/,
	later: /^`ERROR` that may succeed later/,
	capped: /^`CAPPED`/,
	notSent: /^`NOT_SENT`/,
	forGood: /for good/,
	invalid: /^`INVALID`/,
	unsigned: /^`UNSIGNED`/,
	exists: /^`ALREADY_EXISTS`/,
	conflict: /^`CONFLICT`/,
	usedUp: /can never pay/,
};
type RowName = keyof typeof ROW;

/** What the docs' table says of a refusal of the service's error table. */
function documentedRowOfRefusal(row: ErrorRow): RowName {
	if (/wait 30 minutes/.test(row.message.source)) return 'wait';
	if (/recharge account not found/.test(row.message.source)) return 'later';
	return row.nextStep === 'fixRow' ? 'forGood' : 'later';
}

type Case = { what: string; row: RowName; outcome: Json };

/** Every outcome of the payouts node for the template's operation, each with its documented row. */
function nodeCases(file: string): Case[] {
	const operation = OPERATIONS[OPERATION[file]];
	const speaker = speakerOf(file);
	const entry = entryOf(file);
	const said = (result: Parameters<typeof rowOutcome>[1]) =>
		itemOf(file, rowOutcome(entry, result, speaker), entry);
	const cases: Case[] = [];
	const judged = (httpStatus: number, text: string) =>
		itemOf(
			file,
			rowOutcome(
				entry,
				interpret(operation, readAnswer(httpStatus, text), entry.params, redact),
				speaker,
			),
			entry,
		);
	const envelope = (status: string, subCode: string, message: string, data?: Json) =>
		JSON.stringify({ status, subCode, message, ...(data ? { data } : {}) });
	// Paid, by the service's answer.
	cases.push({
		what: 'SUCCESS',
		row: 'success',
		outcome: judged(
			200,
			envelope('SUCCESS', '200', SERVICE_MESSAGES.completed, {
				referenceId: '500001',
				utr: 'UTR500001',
				acknowledged: 1,
			}),
		),
	});
	if (file === EVENT)
		cases.push({
			what: 'PENDING',
			row: 'pending',
			outcome: judged(
				201,
				envelope('PENDING', '201', SERVICE_MESSAGES.pendingAtBank, {
					referenceId: '500002',
					acknowledged: 0,
				}),
			),
		});
	// Every refusal of the error table this operation can meet, as the service words it.
	for (const row of errorRows.filter(
		(candidate) =>
			candidate.operations === undefined || candidate.operations.includes(operation.api),
	)) {
		const message = sampleOf(row);
		const outcome = judged(Number(row.subCode), envelope('ERROR', row.subCode, message));
		const expected: RowName =
			outcome.status === 'ALREADY_EXISTS'
				? 'exists'
				: outcome.status === 'UNKNOWN'
					? 'unknown'
					: documentedRowOfRefusal(row);
		cases.push({ what: `the service: ${message}`, row: expected, outcome });
	}
	// No clear answer, or none at all.
	cases.push(
		{ what: 'a timeout', row: 'unknown', outcome: judged(504, '<html>Gateway Timeout</html>') },
		{
			what: 'unreachable',
			row: 'later',
			outcome: said({ kind: 'unreachable', reason: 'connect ECONNREFUSED 127.0.0.1:1' }),
		},
		{
			what: 'not the service',
			row: 'later',
			outcome: said({ kind: 'notTheService', httpStatus: 404, said: 'Not Found' }),
		},
	);
	// The node's own words of a row the record or the run decided.
	const own: Array<[RunResult, RowName]> = [
		[{ kind: 'alreadySubmitted', earlier: { first: { status: 'SUCCESS' } } }, 'paidBefore'],
		[{ kind: 'alreadySubmitted', earlier: { byDashboard: 'SUCCESS' } }, 'paidBefore'],
		[
			{ kind: 'alreadyExists', said: { subCode: '400', message: 'Transfer Id already exists' } },
			'exists',
		],
		[
			{ kind: 'heldByService', said: { subCode: '400', message: 'Transfer Id already exists' } },
			'unknown',
		],
		[{ kind: 'cannotPayUnder', word: 'FAILED' }, 'usedUp'],
		[{ kind: 'notPaidByDashboard', word: 'FAILED' }, 'usedUp'],
		[{ kind: 'inDoubt' }, 'unknown'],
		[{ kind: 'otherValues' }, 'usedUp'],
		[{ kind: 'stoppedBeforeSending' }, 'later'],
		[{ kind: 'recordFailed', reason: 'SQLITE_BUSY: database is locked' }, 'later'],
		[{ kind: 'recordFull', size: 50_000 }, 'later'],
		[
			{
				kind: 'earlierNodeInDoubt',
				earlier: { status: 'UNKNOWN', transferId: String(entry.transferId) },
			},
			'unknown',
		],
		[
			{
				kind: 'earlierNodeInDoubt',
				earlier: { status: 'ALREADY_EXISTS', transferId: String(entry.transferId) },
			},
			'exists',
		],
	];
	for (const [verdict, row] of own)
		cases.push({ what: `the node: ${verdict.kind}`, row, outcome: said(verdict) });
	const stopped: Failure = {
		message: 'The service answered 403 "IP not whitelisted" [item 0]',
		hint: 'Add the address.',
		status: 'ERROR',
		nextStep: 'runAgain',
		fromService: true,
		retryable: false,
	};
	cases.push({
		what: 'the node: notSentAfter',
		row: 'later',
		outcome: said({ kind: 'notSentAfter', stopped }),
	});
	// Held by the Incident Guard, where a user adds it (its item, as the guard makes it).
	if (file === EVENT)
		cases.push({
			what: 'the Incident Guard',
			row: 'held',
			outcome: {
				status: 'HELD',
				subCode: null,
				message: 'Not sent: an open incident affects transfer mode imps at bank HDFC',
				hint: 'Nothing was sent and the node did not record this transfer as sent.',
			},
		});
	// Refused before anything was sent: a value of the event's own.
	cases.push({
		what: 'the node: an invalid value',
		row: 'forGood',
		outcome: itemOf(
			file,
			{
				failure: invalid(
					0,
					`'Amount' must have at most 2 decimal places (given: "10.001")`,
					'Give 2.',
				),
			},
			entry,
		),
	});
	return cases.map((entry) => ({ ...entry, outcome: outcomeAfterPaying(file, entry.outcome) }));
}

/** The templates' own outcomes, made by their own nodes, each with its documented row. */
function templateCases(file: string): Case[] {
	const checked = CHECKED[file];
	const cases: Case[] = [];
	// A payouts step that did not run: n8n passes its input on, without a status.
	cases.push({
		what: 'the payouts step did not run',
		row: 'notSent',
		outcome: outcomeAfterPaying(file, { won: true }),
	});
	// The signature: a token made for another webhook, or over another body, or stale.
	const request = {
		webhookUrl: 'https://n8n.example.com/webhook/4c1e2f',
		bodySha256: 'a'.repeat(64),
		body: {},
	};
	for (const [what, token] of [
		[
			'another webhook',
			{ aud: '/webhook/payouts-other', body_sha256: 'a'.repeat(64), iat: NOW.toSeconds() },
		],
		['another body', { aud: '/webhook/4c1e2f', body_sha256: 'b'.repeat(64), iat: NOW.toSeconds() }],
		['stale', { aud: '/webhook/4c1e2f', body_sha256: 'a'.repeat(64), iat: NOW.toSeconds() - 301 }],
	] as const) {
		const $json = { ...request, jwtPayload: token };
		const check = nodeOf(file, 'Signed for This Webhook, Just Now?').parameters as {
			conditions: { conditions: Array<{ leftValue: string }> };
		};
		expect([what, evaluate(check.conditions.conditions[0].leftValue, $json, {}, NOW)]).toEqual([
			what,
			false,
		]);
		cases.push({
			what: `unsigned: ${what}`,
			row: 'unsigned',
			outcome: runSet(file, 'Not Signed for This Webhook', $json),
		});
	}
	cases.push({
		what: 'invalid',
		row: 'invalid',
		outcome: runSet(file, 'Invalid Event', {
			...checked,
			problems: ["'amount' is above this workflow's daily cap of 5000.00"],
		}),
	});
	const ran: Ran = { 'Check the Event': [checked] };
	if (file === EVENT) {
		// The node has no record of this event (its record full, or a new copy of the workflow) and the
		// service holds it: the record of events knows it is this workflow's own request, in doubt.
		const exists = nodeCases(file).find(({ row }) => row === 'exists')?.outcome;
		expect(exists).toBeDefined();
		const nodeItem = { ...exists, status: 'ALREADY_EXISTS', nextStep: 'lookUp' };
		for (const status of ['', 'UNKNOWN'])
			cases.push({
				what: `the node says ALREADY_EXISTS of an event the record holds as ${status || 'being sent'}`,
				row: 'unknown',
				outcome: outcomeAfterPaying(file, nodeItem, {
					record: 'again',
					row: { ...checked, status },
					dashboardStatus: '',
				}),
			});
		cases.push({
			what: 'the node says ALREADY_EXISTS of an event the record holds as ALREADY_EXISTS',
			row: 'exists',
			outcome: outcomeAfterPaying(file, nodeItem, {
				record: 'again',
				row: { ...checked, status: 'ALREADY_EXISTS' },
				dashboardStatus: '',
			}),
		});
		cases.push(
			{
				what: 'the daily cap',
				row: 'capped',
				outcome: runSet(
					file,
					'Over the Daily Cap',
					{ reservedToday: '5250.00', withinCap: false },
					ran,
				),
			},
			{
				what: 'paid before, by the record of events',
				row: 'paidBefore',
				outcome: runSet(
					file,
					'Paid Before',
					{ row: { status: 'SUCCESS', referenceId: '500001', utr: 'UTR500001' } },
					ran,
				),
			},
			...DASHBOARD_WORDS.paid.map((word) => ({
				what: `paid before, by the dashboard's word ${word} in its row`,
				row: 'paidBefore' as RowName,
				outcome: runSet(
					file,
					'Paid Before',
					{ row: { status: 'UNKNOWN', dashboardStatus: word } },
					ran,
				),
			})),
			{
				what: 'another payout under the Transfer ID, by the record of events',
				row: 'conflict',
				outcome: runSet(
					file,
					'Another Payout',
					{ row: { eventId: 'evt1001', beneId: 'BENEVERIFIED1', amount: '250.00' } },
					ran,
				),
			},
		);
	} else {
		cases.push({
			what: 'the daily cap',
			row: 'capped',
			outcome: runSet(
				file,
				'Over the Daily Cap',
				{ won: false, taken: false, claimedToday: '4900.00' },
				ran,
			),
		});
		const claim = (status: string | null, samePayout: boolean | undefined) =>
			runSet(
				file,
				'What the Claim Says',
				samePayout === undefined ? {} : { status, same_payout: samePayout },
				ran,
			);
		cases.push(
			{ what: 'the claim: given back meanwhile', row: 'notSent', outcome: claim(null, undefined) },
			{ what: 'the claim: another payout', row: 'conflict', outcome: claim('SUCCESS', false) },
			{ what: 'the claim: no outcome yet', row: 'unknown', outcome: claim(null, true) },
			{ what: 'the claim: UNKNOWN', row: 'unknown', outcome: claim('UNKNOWN', true) },
			{ what: 'the claim: ALREADY_EXISTS', row: 'exists', outcome: claim('ALREADY_EXISTS', true) },
		);
		// The dashboard's words an operator writes into the claim, as the node reads them.
		for (const word of DASHBOARD_WORDS.paid)
			cases.push({ what: `the claim: ${word}`, row: 'paidBefore', outcome: claim(word, true) });
		cases.push({
			what: 'the claim: ALREADY_SUBMITTED',
			row: 'paidBefore',
			outcome: claim('ALREADY_SUBMITTED', true),
		});
		for (const word of [...DASHBOARD_WORDS.failed, ...DASHBOARD_WORDS.notFound])
			cases.push({ what: `the claim: ${word}`, row: 'usedUp', outcome: claim(word, true) });
	}
	return cases;
}

// ---- The docs' table ------------------------------------------------------------------------

const examplesPage = readFileSync(path.join(root, 'docs', 'examples.md'), 'utf8');
/** The rows of docs/examples.md's table: the first cell, the HTTP status(es), Retry-After. */
function documentedRows(): Array<{ row: string; http: string; retryAfter: string }> {
	const start = examplesPage.indexOf('\n### What the sender hears\n');
	const section = examplesPage.slice(start, examplesPage.indexOf('\n## ', start + 1));
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
/** Rows n8n answers, not the table: nothing of ours to evaluate. */
const N8N_OWN = [/^n8n's own refusal/, /^n8n's 500/];

const cases = Object.fromEntries(
	TEMPLATES.map((file) => [file, [...nodeCases(file), ...templateCases(file)]]),
);

/** A node's parameters without the ids n8n gives its fields and conditions (unique within a workflow only). */
const withoutIds = (value: unknown): unknown =>
	Array.isArray(value)
		? value.map(withoutIds)
		: value && typeof value === 'object'
			? Object.fromEntries(
					Object.entries(value)
						.filter(([key]) => key !== 'id')
						.map(([key, entry]) => [key, withoutIds(entry)]),
				)
			: value;

test('both event templates hold the same table of answers and the same signature check', () => {
	for (const name of [
		ANSWER,
		'Deliver Again Later?',
		'Answer: Deliver Again Later',
		'Answer the Sender',
		'Signed for This Webhook, Just Now?',
		'Not Signed for This Webhook',
		'Body Digest',
	])
		expect([name, withoutIds(nodeOf(CLAIM, name).parameters)]).toEqual([
			name,
			withoutIds(nodeOf(EVENT, name).parameters),
		]);
});

test("every row of the docs' table is a row these checks know, and each is met", () => {
	const rows = documentedRows().filter(({ row }) => !N8N_OWN.some((pattern) => pattern.test(row)));
	expect(rows.length).toBeGreaterThanOrEqual(15);
	const known = Object.values(ROW);
	expect(
		rows.filter(({ row }) => known.filter((pattern) => pattern.test(row)).length !== 1),
	).toEqual([]);
	const met = new Set(
		Object.values(cases).flatMap((list) => list.map(({ row }) => ROW[row].source)),
	);
	expect(
		rows.filter(
			({ row }) => !known.some((pattern) => met.has(pattern.source) && pattern.test(row)),
		),
	).toEqual([]);
});

test.each(TEMPLATES)(
	"%s: every outcome, the node's and the template's own, is answered as its row of the docs' table says",
	(file) => {
		const rows = documentedRows();
		expect(cases[file].length).toBeGreaterThan(30);
		// The same outcome through either template's table: they are one table.
		for (const other of TEMPLATES) {
			for (const { what, row, outcome } of cases[file]) {
				const documented = rows.find(({ row: first }) => ROW[row].test(first));
				const reply = answer(other, outcome);
				const retryAfter =
					documented && /^\d+$/.test(documented.retryAfter)
						? Number(documented.retryAfter)
						: documented?.retryAfter === ''
							? 0
							: 'to the next day';
				const expected = {
					what,
					status: outcome.status || 'NOT_SENT',
					httpStatus: Number(documented?.http),
					retryAfter:
						retryAfter === 'to the next day'
							? Math.ceil(NOW.startOf('day').plus({ days: 1 }).diff(NOW, 'seconds').seconds)
							: reply.httpStatus === 503
								? retryAfter
								: 0,
				};
				expect({
					what,
					status: outcome.status || 'NOT_SENT',
					httpStatus: reply.httpStatus,
					retryAfter: reply.httpStatus === 503 ? reply.retryAfter : 0,
				}).toEqual(expected);
				// What every body holds: the status, words for the sender, and which event (but for an unsigned one).
				expect(typeof reply.body.senderShould).toBe('string');
				expect(typeof reply.body.message).toBe('string');
				if (row !== 'unsigned' && row !== 'invalid')
					expect([what, typeof reply.body.eventId, typeof reply.body.transferId]).toEqual([
						what,
						'string',
						'string',
					]);
				if (row === 'unsigned') expect(reply.body.eventId).toBeUndefined();
			}
		}
	},
);

test('the record keeps a Transfer ID where money may have moved or the Transfer ID is used up, and gives it back where nothing moved', () => {
	for (const file of TEMPLATES)
		for (const { what, row, outcome } of cases[file]) {
			const keeps = [
				'success',
				'pending',
				'paidBefore',
				'unknown',
				'exists',
				'conflict',
				'usedUp',
			].includes(row);
			expect([what, answer(file, outcome).keeps]).toEqual([what, keeps]);
		}
});

test('a status the table does not name is answered 503: it moved no money (never a final 4xx, never "paid")', () => {
	expect(answer(EVENT, { status: 'SOMETHING_NEW' })).toMatchObject({
		httpStatus: 503,
		retryAfter: 60,
	});
	// The body carries what the sender needs, and nothing empty.
	expect(
		answer(EVENT, {
			status: 'ERROR',
			nextStep: 'fixRow',
			message: 'Beneficiary does not exist',
			hint: '',
			eventId: 'evt_1',
		}).body,
	).toEqual({
		eventId: 'evt_1',
		status: 'ERROR',
		message: 'Beneficiary does not exist',
		senderShould: expect.stringMatching(/^Nothing was paid/),
	});
});

test("the words the table reads of the node's hints are the node's own (its error table's, and its own refusals')", () => {
	const table = (
		nodeOf(EVENT, ANSWER).parameters as { assignments: { assignments: Array<{ value: string }> } }
	).assignments.assignments[0].value;
	const byHint = [...table.matchAll(/\['([^']+)', '([A-Z_]+)'\]/g)].map((match) => match[1]);
	expect(byHint.length).toBeGreaterThan(3);
	const hints = [
		...errorRows.map((row) => row.hint),
		...TEMPLATES.flatMap((file) => nodeCases(file).map(({ outcome }) => String(outcome.hint))),
	];
	// Each is the start of a hint the node writes: if the node's words change, this says which entry to follow.
	expect(byHint.filter((words) => !hints.some((hint) => hint.startsWith(words)))).toEqual([]);
});

test("the event template reads the dashboard's words as the node does: the words that rowOutcome paid are the node's own", () => {
	const record = String(
		(
			nodeOf(EVENT, 'What the Record Says').parameters as {
				assignments: { assignments: Array<{ name: string; value: string }> };
			}
		).assignments.assignments.find((field) => field.name === 'record')?.value,
	);
	const paidWords = /\['SUCCESS', 'PENDING'\]\.includes\(String\(row\.dashboardStatus/.exec(record);
	expect(paidWords).not.toBeNull();
	expect([...DASHBOARD_WORDS.paid]).toEqual(['SUCCESS', 'PENDING']);
});

// ---- What the pages and the notes rowOutcome of the answers ---------------------------------------

/** Each `NNN` `STATUS` pair of a text (HTTP status next to a status word). */
function pairsIn(text: string): Array<[number, string]> {
	const pairs: Array<[number, string]> = [];
	for (const match of text.matchAll(/\*{0,2}\b([1-5]\d\d)\b\*{0,2}\s+`([A-Z][A-Z_]{3,})`/g))
		pairs.push([Number(match[1]), match[2]]);
	for (const match of text.matchAll(/`([A-Z][A-Z_]{3,})`\s+\((?:HTTP\s+)?([1-5]\d\d)\)/g))
		pairs.push([Number(match[2]), match[1]]);
	return pairs;
}
/** What the table answers for each status that has one answer (ERROR has several, by nextStep). */
const ONE_ANSWER: Record<string, number> = Object.fromEntries(
	[
		'SUCCESS',
		'PENDING',
		'ALREADY_SUBMITTED',
		'UNKNOWN',
		'HELD',
		'NOT_SENT',
		'CAPPED',
		'INVALID',
		'UNSIGNED',
		'ALREADY_EXISTS',
		'CONFLICT',
	].map((status) => [status, answer(EVENT, { status, eventId: 'e', transferId: 't' }).httpStatus]),
);
const wrongPairs = (where: string, text: string) =>
	pairsIn(text)
		.filter(([code, status]) => status in ONE_ANSWER && ONE_ANSWER[status] !== code)
		.map(
			([code, status]) =>
				`${where}: ${code} \`${status}\` (the table answers ${ONE_ANSWER[status]})`,
		);

test('every HTTP status a sticky note or a page pairs with a status is what the table answers', () => {
	const texts: Array<[string, string]> = [
		...TEMPLATES.flatMap((file) =>
			workflows[file].nodes
				.filter((node) => node.type === 'n8n-nodes-base.stickyNote')
				.map((node): [string, string] => [`${file}/${node.name}`, String(node.parameters.content)]),
		),
		...[
			'docs/examples.md',
			'docs/queue-claims.md',
			'docs/security.md',
			'docs/credentials.md',
			'README.md',
		].map((page): [string, string] => [page, readFileSync(path.join(root, page), 'utf8')]),
	];
	expect(texts.flatMap(([, text]) => pairsIn(text)).length).toBeGreaterThan(10);
	expect(texts.flatMap(([where, text]) => wrongPairs(where, text))).toEqual([]);
});

test('the pairs check finds a page that says otherwise (so its silence means something)', () => {
	expect(
		wrongPairs(
			'x',
			'A later delivery: **200** `ALREADY_SUBMITTED`, else 503 `CONFLICT`; `UNKNOWN` (409).',
		),
	).toEqual([
		'x: 503 `CONFLICT` (the table answers 409)',
		'x: 409 `UNKNOWN` (the table answers 503)',
	]);
});

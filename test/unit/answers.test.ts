/**
 * An answer from the wire to the words on the row, without the wire: the body read
 * (transport/answer.ts `readAnswer`, `noAnswer`, `excerpt`), judged (outcomes/interpret.ts
 * `interpret`, `retryable`) and said (outcomes/messages.ts `rowOutcome`), for every kind of answer the node
 * meets, by who refuses a repeat of the transfer (the service, this node's record, or an earlier
 * step's claim). And the secrets given to the redactor (redact.ts) never show, not even in part.
 */
import { errorRows, findErrorRow } from '../../nodes/shared/outcomes/errors';
import { interpret, retryable } from '../../nodes/shared/outcomes/interpret';
import type { ServiceResult } from '../../nodes/shared/outcomes/interpret';
import { rowOutcome, settleAdvice } from '../../nodes/shared/outcomes/messages';
import type { RunResult } from '../../nodes/shared/outcomes/messages';
import { redactor } from '../../nodes/shared/redact';
import { excerpt, noAnswer, readAnswer } from '../../nodes/shared/transport/answer';
import type { Answer } from '../../nodes/shared/transport/answer';
import type {
	Failure,
	NextStep,
	OperationName,
	Outcome,
	Params,
	Planned,
	RepeatGuard,
} from '../../nodes/shared/types';
import { OPERATIONS, VALID_ROWS, plan } from './rows';

// Made-up secrets of random letters, so that no word of a message can hold a part of one by chance
// (joined from parts, as test/simulator/world.ts does, so that n8n's lint does not take them for real ones).
const madeUp = (...parts: string[]) => parts.join('');
const ACCESS_TOKEN = madeUp('Bq3Vx8Kw2J', 'p4Rm8Tn6Yz');
const CLIENT_SECRET = madeUp('cs_Hq5Wm2', 'Xr9Tk4Lv7P');
const CARD_TOKEN = madeUp('tk9QwX4v', 'Lp2Zr7Ys');
/** Base64-like: its URL-encoded form differs from it. */
const CRYPTOGRAM = 'Cg+/Xy7w==Qp3Lm';
/** Its JSON-escaped form differs from it. */
const QUOTED_SECRET = 'pw"Qx\\Bk9Lz';
const SECRETS = [ACCESS_TOKEN, CLIENT_SECRET, CARD_TOKEN, CRYPTOGRAM, QUOTED_SECRET];
/** As the lanes build it: the credential's secrets and the row's secret fields. */
const redact = redactor(SECRETS);

/** Every part of a secret of the shortest length the redactor looks for (4): none may show. */
const PARTS = SECRETS.flatMap((secret) =>
	Array.from({ length: secret.length - 3 }, (_, at) => secret.slice(at, at + 4)),
);
const partsShown = (value: unknown) => {
	const text = JSON.stringify(value);
	return PARTS.filter(
		(part) => text.includes(part) || text.includes(JSON.stringify(part).slice(1, -1)),
	);
};

const json = (body: unknown) => JSON.stringify(body);
const envelope = (status: string, subCode: string, message: string, data?: unknown) =>
	json({ status, subCode, message, ...(data === undefined ? {} : { data }) });

/** The transfer rows, planned by the operations themselves; the card row carries the secret card token and cryptogram. */
const ROWS: Record<'cardTransfer' | 'standardTransfer' | 'internalTransfer', Planned> = {
	cardTransfer: plan(OPERATIONS.cardTransfer, {
		...VALID_ROWS.cardTransfer,
		token: CARD_TOKEN,
		networkType: 'NETWORK_B',
		cryptogram: CRYPTOGRAM,
	}),
	standardTransfer: plan(OPERATIONS.standardTransfer),
	internalTransfer: plan(OPERATIONS.internalTransfer),
};
type Transfer = keyof typeof ROWS;
const judge = (
	operation: OperationName,
	answer: Answer,
	params: Params = ROWS[operation as Transfer]?.params ?? {},
) => interpret(OPERATIONS[operation], answer, params, redact);

describe('readAnswer: read by the body, never by the declared type', () => {
	test.each<[string, number, string, Answer]>([
		[
			'a SUCCESS envelope (a card 200, declared text/plain)',
			200,
			envelope('SUCCESS', '200', 'Transfer completed successfully', {
				referenceId: 'REF1',
				utr: 'UTR1',
				acknowledged: 1,
			}),
			{
				kind: 'envelope',
				httpStatus: 200,
				envelope: {
					status: 'SUCCESS',
					subCode: '200',
					message: 'Transfer completed successfully',
					data: { referenceId: 'REF1', utr: 'UTR1', acknowledged: 1 },
				},
			},
		],
		[
			'a subCode given as a number',
			201,
			json({ status: 'PENDING', subCode: 201, message: 'pending' }),
			{
				kind: 'envelope',
				httpStatus: 201,
				envelope: { status: 'PENDING', subCode: '201', message: 'pending' },
			},
		],
		[
			'an ERROR envelope without data',
			400,
			envelope('ERROR', '400', 'Transfer Id already exists'),
			{
				kind: 'envelope',
				httpStatus: 400,
				envelope: { status: 'ERROR', subCode: '400', message: 'Transfer Id already exists' },
			},
		],
		[
			'an ERROR envelope with HTTP 200',
			200,
			envelope('ERROR', '422', 'cardType is invalid'),
			{
				kind: 'envelope',
				httpStatus: 200,
				envelope: { status: 'ERROR', subCode: '422', message: 'cardType is invalid' },
			},
		],
		[
			'data that is no object is left out',
			200,
			json({ status: 'SUCCESS', subCode: '200', message: 'ok', data: ['x'] }),
			{
				kind: 'envelope',
				httpStatus: 200,
				envelope: { status: 'SUCCESS', subCode: '200', message: 'ok' },
			},
		],
		[
			'null data is left out',
			200,
			json({ status: 'SUCCESS', subCode: '200', message: 'ok', data: null }),
			{
				kind: 'envelope',
				httpStatus: 200,
				envelope: { status: 'SUCCESS', subCode: '200', message: 'ok' },
			},
		],
		[
			'no message reads as empty',
			400,
			json({ status: 'ERROR', subCode: '400' }),
			{
				kind: 'envelope',
				httpStatus: 400,
				envelope: { status: 'ERROR', subCode: '400', message: '' },
			},
		],
		[
			'a status that is not an outcome: no envelope',
			200,
			json({ status: 'FAILED', subCode: '200' }),
			{ kind: 'object', httpStatus: 200, body: { status: 'FAILED', subCode: '200' } },
		],
		[
			'a status without a subCode: no envelope',
			200,
			json({ status: 'SUCCESS' }),
			{ kind: 'object', httpStatus: 200, body: { status: 'SUCCESS' } },
		],
		[
			'the token endpoint: a plain object',
			200,
			json({ access_token: 'at', expiry: '2026-12-01T00:00:00Z' }),
			{
				kind: 'object',
				httpStatus: 200,
				body: { access_token: 'at', expiry: '2026-12-01T00:00:00Z' },
			},
		],
		[
			'an HTML page',
			502,
			'<html><h1>502 Bad Gateway</h1></html>',
			{ kind: 'unreadable', httpStatus: 502, text: '<html><h1>502 Bad Gateway</h1></html>' },
		],
		['an empty body', 200, '', { kind: 'unreadable', httpStatus: 200, text: '' }],
		['JSON null', 200, 'null', { kind: 'unreadable', httpStatus: 200, text: 'null' }],
		['a JSON array', 200, '[]', { kind: 'unreadable', httpStatus: 200, text: '[]' }],
		['a JSON string', 200, '"ok"', { kind: 'unreadable', httpStatus: 200, text: '"ok"' }],
		[
			'a body cut off',
			200,
			'{"status":"SUCC',
			{ kind: 'unreadable', httpStatus: 200, text: '{"status":"SUCC' },
		],
	])('%s', (_, httpStatus, body, expected) => {
		expect(readAnswer(httpStatus, body)).toStrictEqual(expected);
	});
});

describe('noAnswer: what an HTTP-layer error says, in words of our own', () => {
	test.each<[string, unknown, Answer]>([
		[
			'a refused connection',
			{ code: 'ECONNREFUSED' },
			{ kind: 'noAnswer', reason: 'the service refused the connection', reachedService: false },
		],
		[
			'an unknown host',
			{ code: 'ENOTFOUND' },
			{ kind: 'noAnswer', reason: 'the host name could not be resolved', reachedService: false },
		],
		[
			'a failed DNS look-up',
			{ code: 'EAI_AGAIN' },
			{ kind: 'noAnswer', reason: 'the host name could not be resolved', reachedService: false },
		],
		[
			'an unreachable host',
			{ code: 'EHOSTUNREACH' },
			{ kind: 'noAnswer', reason: 'the host could not be reached', reachedService: false },
		],
		[
			'an unreachable network',
			{ code: 'ENETUNREACH' },
			{ kind: 'noAnswer', reason: 'the network could not be reached', reachedService: false },
		],
		[
			'an invalid URL',
			{ code: 'ERR_INVALID_URL' },
			{ kind: 'noAnswer', reason: 'the address is not a valid URL', reachedService: false },
		],
		[
			"n8n's wrapper: the code as httpCode",
			{ httpCode: 'ECONNREFUSED', message: 'The service refused the connection' },
			{ kind: 'noAnswer', reason: 'the service refused the connection', reachedService: false },
		],
		[
			'a code that proves no connection wins over the words',
			{ code: 'ECONNREFUSED', message: 'timeout' },
			{ kind: 'noAnswer', reason: 'the service refused the connection', reachedService: false },
		],
		[
			'a timeout (axios)',
			{ code: 'ECONNABORTED', message: 'timeout of 30000ms exceeded' },
			{ kind: 'noAnswer', reason: 'the request timed out', reachedService: true },
		],
		[
			'a timeout (socket)',
			{ code: 'ETIMEDOUT' },
			{ kind: 'noAnswer', reason: 'the request timed out', reachedService: true },
		],
		[
			'a timeout while the body arrives',
			{ message: 'The operation was aborted' },
			{ kind: 'noAnswer', reason: 'the request timed out', reachedService: true },
		],
		[
			'a dropped connection',
			{ code: 'ECONNRESET', message: 'socket hang up' },
			{
				kind: 'noAnswer',
				reason: 'the connection was dropped before an answer came',
				reachedService: true,
			},
		],
		[
			'nothing known',
			undefined,
			{
				kind: 'noAnswer',
				reason: 'the connection was dropped before an answer came',
				reachedService: true,
			},
		],
		[
			'an error that carries the request and its headers: none of it is read',
			{
				code: 'ECONNRESET',
				message: `socket hang up at https://api.example/?t=${ACCESS_TOKEN}`,
				config: { headers: { Authorization: `Bearer ${ACCESS_TOKEN}` } },
			},
			{
				kind: 'noAnswer',
				reason: 'the connection was dropped before an answer came',
				reachedService: true,
			},
		],
	])('%s', (_, error, expected) => {
		expect(noAnswer(error)).toStrictEqual(expected);
	});
});

describe('excerpt', () => {
	test.each<[string, string, string]>([
		['empty', '', '(empty body)'],
		['white space only', ' \n\t ', '(empty body)'],
		['white space flattened and trimmed', '  <h1>Bad\n\n  Gateway</h1>\t', '<h1>Bad Gateway</h1>'],
		['exactly 120 characters: whole', 'a'.repeat(120), 'a'.repeat(120)],
		['121 characters: 120 and an ellipsis', 'a'.repeat(121), `${'a'.repeat(120)}…`],
	])('%s', (_, text, expected) => {
		expect(excerpt(text)).toBe(expected);
	});
});

describe('redactor: every form a secret may come back in', () => {
	test.each<[string, unknown[], string, string]>([
		['as given', ['abcd1234'], 'x abcd1234 y', 'x *** y'],
		['every time it occurs', ['abcd1234'], 'abcd1234/abcd1234', '***/***'],
		['trimmed, as the rules send it', [' abcd1234 '], '[abcd1234]', '[***]'],
		['JSON-escaped', ['ab"cd\\ef'], '{"t":"ab\\"cd\\\\ef"}', '{"t":"***"}'],
		['URL-encoded', ['a b/c+d='], '?t=a%20b%2Fc%2Bd%3D', '?t=***'],
		['a secret that holds another: the longer whole', ['abcd', 'abcd1234'], 'abcd1234', '***'],
		['4 characters: the shortest searched for', ['a1b2'], 'xa1b2x', 'x***x'],
		// Shorter values would blot out ordinary words and numbers (docs/security.md).
		['3 characters: not searched for', ['a1b'], 'xa1bx', 'xa1bx'],
		[
			'values that are not text are no secret',
			[undefined, null, 1234, { a: 'abcd1234' }],
			'1234 abcd1234',
			'1234 abcd1234',
		],
		['an empty secret changes nothing', [''], 'text', 'text'],
	])('%s', (_, secrets, text, expected) => {
		expect(redactor(secrets)(text)).toBe(expected);
	});
});

/**
 * Who refuses a repeat, for the operations where it can be so (card and standard: always the
 * service); `claim`: the node, with an earlier step's claim before it (Options > Claim Held by an
 * Earlier Step), which changes the words, not the guard.
 */
type Who = RepeatGuard | 'claim';
const SPEAKERS: Array<[Transfer, Who]> = [
	['cardTransfer', 'service'],
	['standardTransfer', 'service'],
	['internalTransfer', 'node'],
	['internalTransfer', 'claim'],
	['internalTransfer', 'service'],
];
/** The speaker of a transfer's words, for who refuses a repeat. */
const speakerOf = (operation: Transfer, who: Who) => ({
	operation: OPERATIONS[operation],
	guard: who === 'claim' ? ('node' as const) : who,
	options: { claimHeldEarlier: who === 'claim' },
});

/** What the row reads: paid items, or [status, nextStep, retryable, what else the failure says]. */
type Reads = 'paid' | [Failure['status'], NextStep, boolean, Partial<Failure>?];
const same = (reads: Reads): Record<Who, Reads> => ({
	service: reads,
	node: reads,
	claim: reads,
});
/** No clear answer to a transfer: it may have been paid. Sent again only where the service refuses a repeat. */
const unknown = (extra: Partial<Failure> = {}): Record<Who, Reads> => ({
	service: ['UNKNOWN', 'runAgain', true, extra],
	node: ['UNKNOWN', 'settleFromDashboard', false, extra],
	claim: ['UNKNOWN', 'settleClaim', false, extra],
});

/** Each kind of answer a transfer meets: its body (by operation where the service words it so), how it is judged, what the row reads by guard. */
const TRANSFER_ANSWERS: Array<{
	what: string;
	answer: (operation: Transfer) => Answer;
	judged: ServiceResult['kind'];
	reads: Record<Who, Reads>;
}> = [
	{
		what: 'SUCCESS',
		answer: (operation) =>
			readAnswer(
				200,
				envelope(
					'SUCCESS',
					'200',
					'Transfer completed successfully',
					operation === 'internalTransfer'
						? { transferId: 'topup-2026-11-27' }
						: { referenceId: 'R1', utr: 'U1', acknowledged: 1 },
				),
			),
		judged: 'paid',
		reads: same('paid'),
	},
	{
		what: 'PENDING',
		answer: () =>
			readAnswer(
				201,
				envelope('PENDING', '201', 'Transfer request pending at the bank', {
					referenceId: 'R1',
					utr: '',
					acknowledged: 0,
				}),
			),
		judged: 'paid',
		reads: same('paid'),
	},
	{
		what: 'an ERROR of a table row, echoing the access token',
		answer: (operation) =>
			readAnswer(
				operation === 'internalTransfer' ? 404 : 422,
				{
					cardTransfer: envelope(
						'ERROR',
						'422',
						`Please provide valid token details (${CARD_TOKEN})`,
					),
					standardTransfer: envelope('ERROR', '422', `Remarks is invalid for ${ACCESS_TOKEN}`),
					internalTransfer: envelope(
						'ERROR',
						'404',
						`Recharge Account not found for ${ACCESS_TOKEN}`,
					),
				}[operation],
			),
		judged: 'refused',
		reads: same(['ERROR', 'fixRow', false, { fromService: true }]),
	},
	{
		what: 'an ERROR of a row that refuses the account',
		answer: (operation) =>
			readAnswer(
				403,
				{
					cardTransfer: envelope('ERROR', '412', 'Not enough available balance in the account'),
					standardTransfer: envelope('ERROR', '400', 'Not enough available balance in the account'),
					internalTransfer: envelope('ERROR', '403', 'APIs not enabled'),
				}[operation],
			),
		judged: 'refused',
		reads: same(['ERROR', 'runAgain', false, { stopsBatch: true }]),
	},
	{
		what: '"Transfer Id already exists"',
		answer: () => readAnswer(400, envelope('ERROR', '400', 'Transfer Id already exists')),
		judged: 'repeatRefused',
		reads: same([
			'ALREADY_EXISTS',
			'lookUp',
			false,
			{ subCode: '400', serviceMessage: 'Transfer Id already exists' },
		]),
	},
	{
		what: 'a 5xx subCode',
		answer: () => readAnswer(503, envelope('ERROR', '503', `Upstream failure for ${CARD_TOKEN}`)),
		judged: 'unclear',
		reads: unknown({ subCode: '503', noAnswer: true }),
	},
	{
		what: 'the 520 of the table',
		answer: () => readAnswer(200, envelope('ERROR', '520', 'Unknown error occurred')),
		judged: 'unclear',
		reads: unknown({ subCode: '520', noAnswer: true }),
	},
	{
		what: 'an HTML 502 page of a gateway',
		answer: () =>
			readAnswer(
				502,
				`<html><head><title>502 Bad Gateway</title></head><body>${'x'.repeat(60)} ${ACCESS_TOKEN} upstream</body></html>`,
			),
		judged: 'unclear',
		reads: unknown({ subCode: '502', noAnswer: true }),
	},
	{
		what: 'JSON without the envelope',
		answer: () => readAnswer(200, json({ ok: true })),
		judged: 'unclear',
		reads: unknown({ subCode: '200', noAnswer: true }),
	},
	{
		what: 'an empty body',
		answer: () => readAnswer(200, ''),
		judged: 'unclear',
		reads: unknown({ subCode: '200', noAnswer: true }),
	},
	{
		what: 'a timeout',
		answer: () => noAnswer({ code: 'ECONNABORTED', message: 'timeout of 30000ms exceeded' }),
		judged: 'unclear',
		reads: unknown({ subCode: undefined, noAnswer: true }),
	},
	{
		what: 'a dropped connection',
		answer: () => noAnswer({ code: 'ECONNRESET' }),
		judged: 'unclear',
		reads: unknown({ noAnswer: true }),
	},
	{
		what: 'a refused connection',
		answer: () => noAnswer({ code: 'ECONNREFUSED' }),
		judged: 'unreachable',
		reads: same(['ERROR', 'runAgain', true, { noAnswer: true }]),
	},
	{
		what: 'a 404 page from a wrong Base URL',
		answer: (operation) =>
			readAnswer(
				404,
				`<!DOCTYPE html><html><body><pre>Cannot POST ${ROWS[operation].request.path}?c=${encodeURIComponent(CRYPTOGRAM)}</pre></body></html>`,
			),
		judged: 'notTheService',
		reads: same(['ERROR', 'runAgain', false, { stopsBatch: true }]),
	},
	{
		what: 'a 405 JSON from a wrong Base URL, echoing a secret JSON-escaped',
		answer: () => readAnswer(405, json({ error: 'Method Not Allowed', echo: QUOTED_SECRET })),
		judged: 'notTheService',
		reads: same(['ERROR', 'runAgain', false, { stopsBatch: true }]),
	},
];

const TRANSFER_CASES = TRANSFER_ANSWERS.flatMap((answer) =>
	SPEAKERS.map(([operation, guard]): [string, Transfer, Who, (typeof TRANSFER_ANSWERS)[number]] => [
		answer.what,
		operation,
		guard,
		answer,
	]),
);

describe('a transfer: each kind of answer, judged and said, by who guards', () => {
	test.each(TRANSFER_CASES)(
		'%s: %s, guarded by the %s',
		(_, operation, guard, { answer, judged, reads }) => {
			const judgement = judge(operation, answer(operation));
			expect(judgement.kind).toBe(judged);
			const speaker = speakerOf(operation, guard);
			const outcome = rowOutcome(ROWS[operation], judgement, speaker);
			const expected = reads[guard];
			if (expected === 'paid') {
				expect(outcome).toEqual({
					items: (judgement as Extract<ServiceResult, { kind: 'paid' }>).items,
				});
				return;
			}
			const [status, nextStep, canResend, extra = {}] = expected;
			expect('failure' in outcome && outcome.failure).toMatchObject({
				status,
				nextStep,
				retryable: canResend,
				...extra,
			});
			expect(retryable(judgement, OPERATIONS[operation], speaker.guard)).toBe(canResend);
			// What the service said, and what the node says, never holds a secret, not even a part of one.
			expect(partsShown(outcome)).toEqual([]);
			expect(partsShown(judgement)).toEqual([]);
		},
	);
});

describe('a transfer: what it says, word for word', () => {
	const card = ROWS.cardTransfer;
	const speak = (
		operation: Transfer,
		answer: Answer,
		guard: Who,
		entry: Planned = ROWS[operation],
	) => {
		const outcome = rowOutcome(
			entry,
			judge(operation, answer, entry.params),
			speakerOf(operation, guard),
		);
		if (!('failure' in outcome)) throw new Error(`paid: ${JSON.stringify(outcome)}`);
		return outcome.failure;
	};

	test('SUCCESS: the card output item', () => {
		const judgement = judge(
			'cardTransfer',
			readAnswer(
				200,
				envelope('SUCCESS', '200', 'Transfer completed successfully', {
					referenceId: 'R1',
					utr: 'U1',
					acknowledged: 1,
				}),
			),
		);
		expect(judgement).toEqual({
			kind: 'paid',
			items: [
				{
					status: 'SUCCESS',
					subCode: '200',
					message: 'Transfer completed successfully',
					transferId: 'card_payout_0001',
					referenceId: 'R1',
					utr: 'U1',
					acknowledged: 1,
				},
			],
		});
	});

	test('PENDING without references: null, never made up', () => {
		const judgement = judge(
			'standardTransfer',
			readAnswer(202, envelope('PENDING', '202', 'Request received; check status after some time')),
		);
		expect(judgement).toEqual({
			kind: 'paid',
			items: [
				{
					status: 'PENDING',
					subCode: '202',
					message: 'Request received; check status after some time',
					transferId: 'nov_payout_0001',
					referenceId: null,
					utr: null,
					acknowledged: null,
				},
			],
		});
	});

	test('a table row: the service words (redacted), the row, its hint', () => {
		const said = `Please provide valid token details (${CARD_TOKEN})`;
		const judgement = judge('cardTransfer', readAnswer(422, envelope('ERROR', '422', said)));
		expect(judgement).toEqual({
			kind: 'refused',
			said: { subCode: '422', message: 'Please provide valid token details (***)' },
			row: findErrorRow('cardTransfer', '422', said),
			serverSide: false,
		});
		expect(
			speak('cardTransfer', readAnswer(422, envelope('ERROR', '422', said)), 'service'),
		).toEqual({
			message: 'Please provide valid token details (***) [item 0]',
			hint: "Check 'Card Token' and the network fields under Additional Fields ('Network Type', 'Cryptogram', 'Token Expiry').",
			status: 'ERROR',
			nextStep: 'fixRow',
			fromService: true,
			retryable: false,
			subCode: '422',
			serviceMessage: 'Please provide valid token details (***)',
		});
	});

	test('"Transfer Id already exists": not paid by this run, look it up', () => {
		expect(
			speak(
				'cardTransfer',
				readAnswer(400, envelope('ERROR', '400', 'Transfer Id already exists')),
				'service',
			),
		).toEqual({
			message:
				'The service already has a transfer with Transfer ID card_payout_0001, and this node has no record of sending it with these values [item 0]',
			hint: "Not paid by this run. Look Transfer ID card_payout_0001 up in the dashboard (an export taken now): paid there with this row's amount and payee, it is this payout, paid; failed, or another payout's, give this row a Transfer ID of its own; not there yet, look again later.",
			status: 'ALREADY_EXISTS',
			nextStep: 'lookUp',
			fromService: true,
			retryable: false,
			subCode: '400',
			serviceMessage: 'Transfer Id already exists',
		});
	});

	test('a timeout where the service guards: run it again with the same Transfer ID', () => {
		const failure = speak('cardTransfer', noAnswer({ code: 'ETIMEDOUT' }), 'service');
		expect(failure.message).toBe(
			'The outcome of the transfer is unknown: the request timed out [item 0]',
		);
		expect(failure.hint).toBe(
			'The transfer may have been paid. Run the row again with the same Transfer ID (card_payout_0001): the service refuses a second transfer with it, so the row then reads SUCCESS (the first never arrived) or says the service holds it. Never give it a new Transfer ID while its outcome is unknown.',
		);
	});

	test('a timeout where the node guards: settle it from the dashboard, never sent again on a guess', () => {
		const failure = speak('internalTransfer', noAnswer({ code: 'ETIMEDOUT' }), 'node');
		expect(failure.hint).toBe(settleAdvice('topup-2026-11-27'));
		expect(failure.hint).toContain(
			"map its status for Transfer ID topup-2026-11-27 to Options > 'Settle With Dashboard Status' (SUCCESS or PENDING: paid; FAILED, ERROR, REJECTED, NOT_FOUND: not paid",
		);
	});

	test('a timeout where an earlier step holds the claim: keep the claim and write its outcome; not paid, a new Transfer ID', () => {
		const { hint } = speak('internalTransfer', noAnswer({ code: 'ETIMEDOUT' }), 'claim');
		expect(hint).toMatch(
			/^The transfer may have been paid\. Keep its claim in the earlier step's table \(never give it a new Transfer ID before you know\)\./,
		);
		expect(hint).toContain(
			'FAILED, or not there, it did not pay, and this node never sends it again under Transfer ID topup-2026-11-27 (its record holds it in doubt): pay it under a new Transfer ID.',
		);
	});

	/** A top-up under Options > 'Pay Again on Every Run': its Transfer ID is made for this execution. */
	const madeForThisExecution = () =>
		plan(OPERATIONS.internalTransfer, { amount: '500', rechargeAccount: 'RECHARGE001' }, 0, {
			workflowId: 'wf1',
			nodeId: 'n1',
			runId: 'run1',
			runIndex: 0,
			payEveryRun: true,
		});
	/** The service refuses the top-up's account: a row the user must fix. */
	const refused = readAnswer(404, envelope('ERROR', '404', 'Recharge Account not found'));

	test('a timeout of a Transfer ID made for this execution: a new execution is a new transfer, so look it up first', () => {
		const entry = madeForThisExecution();
		expect(entry.madeForRun).toBe(true);
		for (const guard of ['node', 'service', 'claim'] as const) {
			const failure = speak('internalTransfer', noAnswer({ code: 'ETIMEDOUT' }), guard, entry);
			expect([failure.status, failure.nextStep]).toEqual(['UNKNOWN', 'lookUp']);
			expect(failure.hint).toContain(
				`Its Transfer ID ${String(entry.transferId)} was made for this execution (Options > 'Pay Again on Every Run'): n8n's Retry of this execution sends it again under the same Transfer ID`,
			);
		}
	});

	test("a refused row of a Transfer ID made for this execution: run only this row again, or a new execution pays the batch's paid rows again", () => {
		const entry = madeForThisExecution();
		const failure = speak('internalTransfer', refused, 'node', entry);
		expect([failure.status, failure.nextStep]).toEqual(['ERROR', 'fixRow']);
		expect(failure.hint).toMatch(
			/Run only this row again: with Options > 'Pay Again on Every Run' a new execution pays every row it is given again, the ones paid in this execution too\.$/,
		);
		// A row with a key of its own is paid once in any run: no such warning.
		expect(speak('internalTransfer', refused, 'node').hint).not.toContain(
			'Run only this row again',
		);
	});

	test("a refused row of a Transfer ID made for this execution, where the row ends the execution with an error: n8n's Retry of it, one way only", () => {
		const entry = madeForThisExecution();
		const outcome = rowOutcome(entry, judge('internalTransfer', refused, entry.params), {
			...speakerOf('internalTransfer', 'node'),
			failsExecution: true,
		});
		const failure = 'failure' in outcome ? outcome.failure : undefined;
		expect(failure?.nextStep).toBe('fixRow');
		expect(failure?.hint).toMatch(
			/Pay it once, one way: retry this execution \(n8n's Retry, from the Executions list\) once the cause is fixed; .* Do not also run the row in a new execution: .* the row would be paid twice\.$/,
		);
		expect(failure?.hint).not.toContain('Run only this row again');
	});

	test('201 "no response from bank": the row\'s own words first, then what to do', () => {
		const said = 'Transfer request the service, no response from bank';
		const answer = readAnswer(201, envelope('ERROR', '201', said));
		expect(judge('standardTransfer', answer)).toEqual({
			kind: 'unclear',
			what: said,
			subCode: '201',
			said: { subCode: '201', message: said },
			rowHint: 'The service took the transfer but the bank did not answer.',
			noAnswer: false,
		});
		const failure = speak('standardTransfer', answer, 'service');
		expect(failure).toMatchObject({
			status: 'UNKNOWN',
			nextStep: 'runAgain',
			retryable: true,
			subCode: '201',
			serviceMessage: said,
			message: `The outcome of the transfer is unknown: ${said} [item 0]`,
		});
		expect(failure.hint).toMatch(
			/^The service took the transfer but the bank did not answer\. The transfer may have been paid\. Run the row again/,
		);
		// The service answered: this is no silence that counts towards "the service looks down".
		expect(failure.noAnswer).toBeUndefined();
	});

	test('an HTML 502 page: shortened after the secret is taken out (a secret across the cut leaves no part)', () => {
		const page = `<html>\n<body>${'x'.repeat(100)}${ACCESS_TOKEN} and more</body></html>`;
		const judgement = judge('cardTransfer', readAnswer(502, page));
		expect(judgement).toEqual({
			kind: 'unclear',
			what: `the service answered HTTP 502 with a body that is not its JSON: ${excerpt(redact(page))}`,
			subCode: '502',
			noAnswer: true,
		});
		expect(excerpt(redact(page))).toBe(`<html> <body>${'x'.repeat(100)}*** and…`);
		expect(partsShown(judgement)).toEqual([]);
	});

	test('a wrong Base URL: nothing reached the service, the run sends nothing more', () => {
		expect(
			speak('cardTransfer', readAnswer(404, 'Cannot POST /payout/v1/cardpay'), 'service'),
		).toEqual({
			message:
				'The Base URL does not answer as the payouts service: HTTP 404, Cannot POST /payout/v1/cardpay [item 0]',
			hint: "Nothing was sent to the payouts service: the address has no such API. Check 'Base URL' in the Payouts API credential: take it from your payouts dashboard (production and test hosts differ), without the /payout/... path.",
			nextStep: 'runAgain',
			status: 'ERROR',
			stopsBatch: true,
			fromService: false,
			retryable: false,
		});
	});

	test('a refused connection: nothing was sent', () => {
		expect(speak('internalTransfer', noAnswer({ code: 'ECONNREFUSED' }), 'node')).toEqual({
			message: 'The service could not be reached: the service refused the connection [item 0]',
			hint: "Nothing was sent. Check 'Base URL' in the Payouts API credential and the network, then run again.",
			nextStep: 'runAgain',
			status: 'ERROR',
			fromService: true,
			noAnswer: true,
			retryable: true,
		});
	});

	test("the service's own 404 is the service's, not a wrong Base URL", () => {
		expect(
			judge(
				'standardTransfer',
				readAnswer(404, envelope('ERROR', '404', 'Beneficiary does not exist')),
			),
		).toMatchObject({ kind: 'refused', row: { nextStep: 'fixRow' } });
	});

	test('the card row is planned as the node plans it', () => {
		expect(card.request).toEqual({ method: 'POST', path: '/payout/v1/cardpay', body: card.params });
		expect(card.transferId).toBe('card_payout_0001');
	});
});

describe('reads and the token: not money, so a server fault may be asked again', () => {
	const speak = (operation: OperationName, answer: Answer) =>
		rowOutcome(
			plan(OPERATIONS[operation]),
			judge(operation, answer, plan(OPERATIONS[operation]).params),
			{
				operation: OPERATIONS[operation],
			},
		);
	test.each<[string, OperationName, Answer, ServiceResult['kind'], Reads]>([
		[
			'incidents listed',
			'getIncidents',
			readAnswer(
				200,
				envelope('SUCCESS', '200', 'List of incidents retrieved', { incidents: [{ id: 1 }] }),
			),
			'paid',
			'paid',
		],
		[
			'a table row',
			'getBeneficiary',
			readAnswer(404, envelope('ERROR', '404', 'Beneficiary does not exist')),
			'refused',
			['ERROR', 'fixRow', false],
		],
		[
			'the 520 of the table',
			'getIncidents',
			readAnswer(200, envelope('ERROR', '520', 'Unknown error occurred')),
			'refused',
			['ERROR', 'runAgain', true, { subCode: '520' }],
		],
		[
			'a 5xx subCode',
			'getPaylinkStatus',
			readAnswer(503, envelope('ERROR', '503', 'Service unavailable')),
			'refused',
			['ERROR', 'runAgain', true, { subCode: '503' }],
		],
		[
			'an HTML 502 page',
			'getBeneficiary',
			readAnswer(502, '<html>502</html>'),
			'unclear',
			[
				'ERROR',
				'runAgain',
				true,
				{
					message:
						'The service did not answer clearly: the service answered HTTP 502 with a body that is not its JSON: <html>502</html> [item 0]',
					noAnswer: true,
				},
			],
		],
		[
			'a timeout',
			'getIncidents',
			noAnswer({ code: 'ETIMEDOUT' }),
			'unclear',
			[
				'ERROR',
				'runAgain',
				true,
				{ message: 'The service did not answer clearly: the request timed out [item 0]' },
			],
		],
		[
			'a 404 from a wrong Base URL',
			'getPaylinkStatus',
			readAnswer(404, 'Not Found'),
			'notTheService',
			['ERROR', 'runAgain', false, { stopsBatch: true }],
		],
		[
			'the token',
			'generateToken',
			readAnswer(
				200,
				json({
					reference_id: 1,
					verification_id: 'v1',
					expiry: '2026-12-01T00:00:00Z',
					access_token: 'at',
				}),
			),
			'paid',
			'paid',
		],
		[
			'the token endpoint refuses (OAuth words)',
			'generateToken',
			readAnswer(400, json({ error: 'invalid_grant', error_description: 'code used' })),
			'tokenRefused',
			[
				'ERROR',
				'fixRow',
				false,
				{
					message: 'The token request was refused: invalid_grant [item 0]',
					subCode: '400',
					serviceMessage: 'invalid_grant',
				},
			],
		],
		[
			'the token endpoint refuses (an envelope echoing the client secret)',
			'generateToken',
			readAnswer(401, envelope('ERROR', '401', `client secret ${CLIENT_SECRET} is wrong`)),
			'tokenRefused',
			[
				'ERROR',
				'fixRow',
				false,
				{
					message: 'The token request was refused: client secret *** is wrong [item 0]',
					subCode: '401',
				},
			],
		],
		// The verification host is another server: its 404 says nothing of the payout API's Base URL.
		[
			'a 404 page from the verification host',
			'generateToken',
			readAnswer(404, 'Not Found'),
			'unclear',
			['ERROR', 'runAgain', true],
		],
	])('%s (%s)', (_, operation, answer, judged, reads) => {
		const judgement = judge(operation, answer, plan(OPERATIONS[operation]).params);
		expect(judgement.kind).toBe(judged);
		const outcome = speak(operation, answer);
		if (reads === 'paid')
			expect(outcome).toEqual({
				items: (judgement as Extract<ServiceResult, { kind: 'paid' }>).items,
			});
		else
			expect(outcome).toMatchObject({
				failure: { status: reads[0], nextStep: reads[1], retryable: reads[2], ...reads[3] },
			});
		expect(partsShown(outcome)).toEqual([]);
	});

	test('the token is the output item, as the endpoint gave it', () => {
		const body = {
			reference_id: 1,
			verification_id: 'v1',
			expiry: '2026-12-01T00:00:00Z',
			access_token: 'at',
		};
		expect(judge('generateToken', readAnswer(200, json(body)), { authCode: 'c' })).toEqual({
			kind: 'paid',
			items: [body],
		});
	});
});

describe('what the node says of a row the record or the run kept from being sent', () => {
	const entry = ROWS.internalTransfer;
	const stopped: Failure = {
		message: 'APIs not enabled [item 3]',
		hint: 'Ask the service.',
		status: 'ERROR',
		nextStep: 'runAgain',
		fromService: true,
		retryable: false,
		stopsBatch: true,
	};
	const refusal = judge(
		'internalTransfer',
		readAnswer(404, envelope('ERROR', '404', 'Recharge Account not found')),
	);
	test.each<[RunResult, Failure['status'] | 'ALREADY_SUBMITTED', NextStep | undefined, RegExp]>([
		[
			{
				kind: 'alreadySubmitted',
				earlier: { first: { status: 'SUCCESS', referenceId: 'R1', utr: 'U1' } },
			},
			'ALREADY_SUBMITTED',
			undefined,
			/answered SUCCESS: not sent again$/,
		],
		[
			{ kind: 'alreadySubmitted', earlier: { byDashboard: 'SUCCESS' } },
			'ALREADY_SUBMITTED',
			undefined,
			/^The payouts dashboard says SUCCESS for this transfer/,
		],
		[
			{ kind: 'alreadyExists', said: { subCode: '400', message: 'Transfer Id already exists' } },
			'ALREADY_EXISTS',
			'lookUp',
			/already has a transfer with Transfer ID topup-2026-11-27/,
		],
		[
			{ kind: 'heldByService', said: { subCode: '400', message: 'Transfer Id already exists' } },
			'UNKNOWN',
			'settleFromDashboard',
			/holds Transfer ID topup-2026-11-27/,
		],
		[
			{
				kind: 'heldByService',
				said: { subCode: '400', message: 'Transfer Id already exists' },
				predates: 'NOT_FOUND',
			},
			'UNKNOWN',
			'newExport',
			/holds Transfer ID/,
		],
		[
			{ kind: 'cannotPayUnder', word: 'FAILED' },
			'ERROR',
			'newTransferId',
			/can never be paid under this Transfer ID/,
		],
		[{ kind: 'notPaidByDashboard', word: 'FAILED' }, 'ERROR', 'newTransferId', /it did not pay/],
		[
			{ kind: 'inDoubt' },
			'UNKNOWN',
			'settleFromDashboard',
			/this node sent it before and no clear answer came/,
		],
		[
			{ kind: 'otherValues' },
			'ERROR',
			'fixRow',
			/another transfer with Transfer ID topup-2026-11-27/,
		],
		[
			{ kind: 'refusedResend', refusal },
			'UNKNOWN',
			'runAgain',
			/sending it again was refused: Recharge Account not found \[item 0\]$/,
		],
		[
			{ kind: 'stoppedBeforeSending' },
			'ERROR',
			'runAgain',
			/stopped before this transfer went out/,
		],
		[
			{ kind: 'notSentAfter', stopped },
			'ERROR',
			'runAgain',
			/^Not sent: the run stopped sending after "APIs not enabled" \[item 0\]$/,
		],
		[
			{ kind: 'recordFailed', reason: 'SQLITE_BUSY' },
			'ERROR',
			'runAgain',
			/could not record the transfer/,
		],
		[{ kind: 'recordFull', size: 50000 }, 'ERROR', 'fixRow', /is full \(50,000 entries\)/],
		[
			{ kind: 'earlierNodeInDoubt', earlier: { status: 'UNKNOWN', transferId: 'other-1' } },
			'UNKNOWN',
			'settleFromDashboard',
			/reported this row UNKNOWN under Transfer ID other-1/,
		],
		[
			{ kind: 'earlierNodeInDoubt', earlier: { status: 'ALREADY_EXISTS', transferId: 'other-1' } },
			'ALREADY_EXISTS',
			'lookUp',
			/reported this row ALREADY_EXISTS/,
		],
	])('%j', (verdict, status, nextStep, words) => {
		const outcome: Outcome = rowOutcome(entry, verdict, {
			operation: OPERATIONS.internalTransfer,
			guard: 'node',
		});
		if (status === 'ALREADY_SUBMITTED') {
			expect('items' in outcome && outcome.items[0]).toMatchObject({
				status,
				transferId: 'topup-2026-11-27',
				message: expect.stringMatching(words),
			});
			return;
		}
		// None of these is sent again under the row's Transfer ID by the node on its own.
		expect('failure' in outcome && outcome.failure).toMatchObject({
			status,
			nextStep,
			retryable: false,
			message: expect.stringMatching(words),
		});
	});

	test('a record that cannot be written or is full stops the batch; a row in doubt does not', () => {
		const stops = (verdict: RunResult) => {
			const outcome = rowOutcome(entry, verdict, {
				operation: OPERATIONS.internalTransfer,
				guard: 'node',
			});
			return 'failure' in outcome && outcome.failure.stopsBatch === true;
		};
		expect([
			stops({ kind: 'recordFailed', reason: 'x' }),
			stops({ kind: 'recordFull', size: 1 }),
			stops({ kind: 'inDoubt' }),
		]).toEqual([true, true, false]);
	});
});

describe('secrets in paid answers', () => {
	// docs/security.md: the card token "never appear[s] in what the node makes: errors, output items, ..."; interpret.ts: "Every text taken from the service is redacted here".
	test('a SUCCESS message that echoes the card token is redacted in the output item', () => {
		const judgement = judge(
			'cardTransfer',
			readAnswer(
				200,
				envelope('SUCCESS', '200', `Transfer to card ${CARD_TOKEN} completed successfully`, {
					referenceId: 'R1',
					utr: 'U1',
					acknowledged: 1,
				}),
			),
		);
		expect(partsShown(judgement)).toEqual([]);
	});
});

test('the error table is the one the words use', () => {
	// A refused row's hint is its table row's, word for word, for every row of the table.
	for (const row of errorRows) {
		const operation = row.operations?.[0] ?? 'getIncidents';
		const judgement: ServiceResult = {
			kind: 'refused',
			said: { subCode: row.subCode, message: 'said' },
			row,
			serverSide: false,
		};
		const outcome = rowOutcome(plan(OPERATIONS[operation]), judgement, {
			operation: OPERATIONS[operation],
			guard: 'service',
		});
		expect('failure' in outcome && outcome.failure.hint).toBe(row.hint);
	}
});

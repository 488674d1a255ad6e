/**
 * The Options collection (nodes/shared/input/options.ts, and the Incident Guard's settings in
 * input/incidentGuardOption.ts): the defaults of each kind of operation, each option held to its
 * bounds, the options the editor shows agreeing with what the run reads, and what wins when two
 * options say different things (no error: the safer reading, and the editor hides the other).
 */
import type { INodeProperties } from 'n8n-workflow';

import {
	MAX_LOOK_BACK_DAYS,
	readGuardSettings,
} from '../../nodes/shared/input/incidentGuardOption';
import type { GuardSettings } from '../../nodes/shared/input/incidentGuardOption';
import { DEFAULTS, kindOf, optionsFor, readOptions } from '../../nodes/shared/input/options';
import type { RunOptions } from '../../nodes/shared/input/options';
import type { OperationName } from '../../nodes/shared/types';
import { OPERATIONS } from './rows';

type Given = Parameters<typeof readOptions>[1];
const NAMES = Object.keys(OPERATIONS) as OperationName[];
const read = (operation: OperationName, given: Given = {}) =>
	readOptions(OPERATIONS[operation], given);
const shownOptions = (operation: OperationName) =>
	(optionsFor(OPERATIONS[operation]).options ?? []) as INodeProperties[];

const GUARD_DEFAULTS: GuardSettings = {
	action: 'hold',
	matchBank: true,
	impacts: [],
	countScheduled: true,
	onCheckFailure: 'stop',
	lookBackDays: 90,
};

describe('defaults: transfers one at a time and never sent again unless the service refuses a repeat; reads several at a time, retried', () => {
	const transfer = {
		allowAgentUse: false,
		concurrency: 1,
		dryRun: false,
		requestsPerSecond: 0,
		retries: 0,
		timeout: 30000,
		payEveryRun: false,
		claimHeldEarlier: false,
		incidentGuard: undefined,
	};
	const readOnly = {
		allowAgentUse: true,
		concurrency: 4,
		dryRun: false,
		requestsPerSecond: 0,
		retries: 2,
		timeout: 30000,
		payEveryRun: false,
		serviceRefusesRepeats: false,
		claimHeldEarlier: false,
		incidentGuard: undefined,
	};
	test.each<[OperationName, 'transfer' | 'read' | 'token', RunOptions]>([
		['cardTransfer', 'transfer', { ...transfer, serviceRefusesRepeats: true }],
		['standardTransfer', 'transfer', { ...transfer, serviceRefusesRepeats: true }],
		// The document does not say the service refuses a repeated internal Transfer ID: the node guards.
		['internalTransfer', 'transfer', { ...transfer, serviceRefusesRepeats: false }],
		['getBeneficiary', 'read', readOnly],
		['getIncidents', 'read', readOnly],
		['getPaylinkStatus', 'read', readOnly],
		// An authorisation code works once: never sent twice, never by an agent unless allowed.
		['generateToken', 'token', { ...readOnly, allowAgentUse: false, concurrency: 1, retries: 0 }],
	])('%s (%s)', (operation, kind, expected) => {
		expect(kindOf(OPERATIONS[operation])).toBe(kind);
		expect(read(operation)).toStrictEqual(expected);
	});
});

describe('the editor and the run agree', () => {
	/** Options the run reads from the collection; the rest are read per item (dashboardStatus) or turn something on when added (incidentGuard). */
	const RUN_OPTIONS = [
		'allowAgentUse',
		'claimHeldEarlier',
		'concurrency',
		'dryRun',
		'payEveryRun',
		'requestsPerSecond',
		'retries',
		'serviceRefusesRepeats',
		'timeout',
	];
	const cases = NAMES.flatMap((operation) =>
		shownOptions(operation)
			.filter((option) => RUN_OPTIONS.includes(option.name))
			.map((option): [OperationName, string, INodeProperties] => [operation, option.name, option]),
	);

	test.each(cases)(
		'%s: %s added at the default the editor shows changes nothing',
		(operation, name, option) => {
			expect(read(operation, { [name]: option.default } as Given)).toStrictEqual(read(operation));
		},
	);

	test.each(cases.filter(([, , option]) => option.type === 'number'))(
		'%s: %s is held to the bounds the editor shows',
		(operation, name, option) => {
			const { minValue, maxValue } = option.typeOptions ?? {};
			const value = (given: number) =>
				read(operation, { [name]: given } as Given)[name as keyof RunOptions];
			// Where the run never resends (internal transfers the node guards, tokens), retries stay 0.
			const resends = !(name === 'retries' && read(operation, { retries: 1 }).retries === 0);
			if (typeof minValue === 'number') {
				expect(value(minValue)).toBe(minValue);
				expect(value(minValue - 1)).toBe(minValue);
			}
			if (typeof maxValue === 'number' && resends) {
				expect(value(maxValue)).toBe(maxValue);
				expect(value(maxValue + 1)).toBe(maxValue);
			}
		},
	);

	test('every option is shown in alphabetical order, as n8n asks', () => {
		for (const operation of NAMES) {
			const names = shownOptions(operation).map((option) => option.displayName);
			expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b)));
		}
	});

	test('which options each operation shows', () => {
		expect(
			Object.fromEntries(
				NAMES.map((operation) => [operation, shownOptions(operation).map((option) => option.name)]),
			),
		).toEqual({
			cardTransfer: [
				'allowAgentUse',
				'concurrency',
				'dryRun',
				'requestsPerSecond',
				'retries',
				'dashboardStatus',
				'timeout',
			],
			standardTransfer: [
				'allowAgentUse',
				'concurrency',
				'dryRun',
				'incidentGuard',
				'requestsPerSecond',
				'retries',
				'dashboardStatus',
				'timeout',
			],
			internalTransfer: [
				'allowAgentUse',
				'claimHeldEarlier',
				'concurrency',
				'dryRun',
				'payEveryRun',
				'requestsPerSecond',
				'retries',
				'serviceRefusesRepeats',
				'dashboardStatus',
				'timeout',
			],
			getBeneficiary: ['concurrency', 'requestsPerSecond', 'retries', 'timeout'],
			getIncidents: ['concurrency', 'requestsPerSecond', 'retries', 'timeout'],
			getPaylinkStatus: ['concurrency', 'requestsPerSecond', 'retries', 'timeout'],
			generateToken: ['allowAgentUse', 'timeout'],
		});
	});

	test("internal transfers: resending is shown only where the service guards, the earlier step's claim only where it does not", () => {
		const byName = new Map(shownOptions('internalTransfer').map((option) => [option.name, option]));
		expect(byName.get('retries')?.displayOptions).toEqual({
			show: { serviceRefusesRepeats: [true] },
		});
		expect(byName.get('claimHeldEarlier')?.displayOptions).toEqual({
			hide: { serviceRefusesRepeats: [true] },
		});
		expect(
			shownOptions('cardTransfer').find((option) => option.name === 'retries')?.displayOptions,
		).toBeUndefined();
	});

	test('the defaults the editor shows are the defaults of the kind', () => {
		const concurrency = (operation: OperationName) =>
			shownOptions(operation).find((option) => option.name === 'concurrency')?.default;
		expect([concurrency('cardTransfer'), concurrency('getIncidents')]).toEqual([
			DEFAULTS.transfer.concurrency,
			DEFAULTS.read.concurrency,
		]);
	});
});

describe('each option held to its bounds', () => {
	test.each<[string, OperationName, Given, Partial<RunOptions>]>([
		['concurrency 0', 'cardTransfer', { concurrency: 0 }, { concurrency: 1 }],
		['concurrency 1', 'cardTransfer', { concurrency: 1 }, { concurrency: 1 }],
		['concurrency 20', 'standardTransfer', { concurrency: 20 }, { concurrency: 20 }],
		['concurrency 21', 'standardTransfer', { concurrency: 21 }, { concurrency: 20 }],
		['concurrency 2.7: whole', 'getIncidents', { concurrency: 2.7 }, { concurrency: 2 }],
		[
			'concurrency not a number: the default',
			'getIncidents',
			{ concurrency: Number.NaN },
			{ concurrency: 4 },
		],
		[
			'concurrency infinite: the default',
			'cardTransfer',
			{ concurrency: Number.POSITIVE_INFINITY },
			{ concurrency: 1 },
		],
		['retries -1 (a read)', 'getBeneficiary', { retries: -1 }, { retries: 0 }],
		['retries 5 (a read)', 'getBeneficiary', { retries: 5 }, { retries: 5 }],
		['retries 6 (a read)', 'getBeneficiary', { retries: 6 }, { retries: 5 }],
		['retries 1.9: whole', 'getPaylinkStatus', { retries: 1.9 }, { retries: 1 }],
		[
			'retries 5 (a card transfer: the service refuses a repeat)',
			'cardTransfer',
			{ retries: 5 },
			{ retries: 5 },
		],
		['retries 6 (a standard transfer)', 'standardTransfer', { retries: 6 }, { retries: 5 }],
		['timeout 999 ms', 'cardTransfer', { timeout: 999 }, { timeout: 1000 }],
		['timeout 1000 ms', 'cardTransfer', { timeout: 1000 }, { timeout: 1000 }],
		['timeout 10 minutes', 'getIncidents', { timeout: 600000 }, { timeout: 600000 }],
		[
			'timeout 10 minutes and a millisecond',
			'getIncidents',
			{ timeout: 600001 },
			{ timeout: 600000 },
		],
		[
			'requests per second 0.5',
			'cardTransfer',
			{ requestsPerSecond: 0.5 },
			{ requestsPerSecond: 0.5 },
		],
		[
			'requests per second 0: no bound',
			'cardTransfer',
			{ requestsPerSecond: 0 },
			{ requestsPerSecond: 0 },
		],
		[
			'requests per second negative: no bound',
			'cardTransfer',
			{ requestsPerSecond: -1 },
			{ requestsPerSecond: 0 },
		],
		['dry run', 'internalTransfer', { dryRun: true }, { dryRun: true }],
		[
			'allowed for agents (a transfer)',
			'cardTransfer',
			{ allowAgentUse: true },
			{ allowAgentUse: true },
		],
		[
			'allowed for agents (the token)',
			'generateToken',
			{ allowAgentUse: true },
			{ allowAgentUse: true },
		],
		['pay again on every run', 'internalTransfer', { payEveryRun: true }, { payEveryRun: true }],
	])('%s', (_, operation, given, expected) => {
		expect(read(operation, given)).toMatchObject(expected);
	});
});

describe('options that say different things: the safer reading wins, no error', () => {
	test.each<[string, OperationName, Given, Partial<RunOptions>]>([
		// A repeat of a card or standard transfer is refused by the service, whatever the option says.
		[
			'card: the service guards, even when told it does not',
			'cardTransfer',
			{ serviceRefusesRepeats: false },
			{ serviceRefusesRepeats: true },
		],
		[
			'card: no earlier-step claim (the service guards)',
			'cardTransfer',
			{ claimHeldEarlier: true },
			{ claimHeldEarlier: false },
		],
		[
			'internal: the service guards and an earlier step claims: the service wins',
			'internalTransfer',
			{ serviceRefusesRepeats: true, claimHeldEarlier: true },
			{ serviceRefusesRepeats: true, claimHeldEarlier: false },
		],
		[
			'internal: an earlier step claims',
			'internalTransfer',
			{ claimHeldEarlier: true },
			{ serviceRefusesRepeats: false, claimHeldEarlier: true },
		],
		// Where the node guards, a resend could pay twice: the service is not known to refuse it.
		[
			'internal: retries where the node guards: none',
			'internalTransfer',
			{ retries: 3 },
			{ retries: 0 },
		],
		[
			"internal: retries under an earlier step's claim: none",
			'internalTransfer',
			{ retries: 3, claimHeldEarlier: true },
			{ retries: 0 },
		],
		[
			'internal: retries where the service guards',
			'internalTransfer',
			{ retries: 3, serviceRefusesRepeats: true },
			{ retries: 3 },
		],
		['the token: never sent twice', 'generateToken', { retries: 3 }, { retries: 0 }],
		// Reads move no money and hand out no secret: allowed for agents, and the option is not shown.
		[
			'a read: allowed for agents, whatever is given',
			'getIncidents',
			{ allowAgentUse: false },
			{ allowAgentUse: true },
		],
		[
			'an Incident Guard on an operation without one: off',
			'cardTransfer',
			{ incidentGuard: {} },
			{ incidentGuard: undefined },
		],
		[
			'an Incident Guard on an internal transfer: off',
			'internalTransfer',
			{ incidentGuard: { settings: { affectedItems: 'fail' } } },
			{ incidentGuard: undefined },
		],
	])('%s', (_, operation, given, expected) => {
		expect(read(operation, given)).toMatchObject(expected);
	});
});

describe('the Incident Guard (standard transfers): off until added; added, it guards', () => {
	test.each<[string, unknown, GuardSettings | undefined]>([
		['not added', undefined, undefined],
		['null', null, undefined],
		// What n8n saves for the option added with its settings left empty.
		['added, left empty', {}, GUARD_DEFAULTS],
		['an empty settings group', { settings: {} }, GUARD_DEFAULTS],
		['settings that are no object', { settings: 'x' }, GUARD_DEFAULTS],
		['fail', { settings: { affectedItems: 'fail' } }, { ...GUARD_DEFAULTS, action: 'fail' }],
		[
			'send anyway',
			{ settings: { affectedItems: 'sendAnyway' } },
			{ ...GUARD_DEFAULTS, action: 'sendAnyway' },
		],
		['an unknown action: hold', { settings: { affectedItems: 'ignore' } }, GUARD_DEFAULTS],
		[
			'impacts, trimmed and in capitals',
			{ settings: { impacts: ' high, Medium ,,low ' } },
			{ ...GUARD_DEFAULTS, impacts: ['HIGH', 'MEDIUM', 'LOW'] },
		],
		['match any bank', { settings: { matchBank: false } }, { ...GUARD_DEFAULTS, matchBank: false }],
		[
			'scheduled incidents do not count',
			{ settings: { countScheduled: false } },
			{ ...GUARD_DEFAULTS, countScheduled: false },
		],
		[
			'send without the guard when it cannot check',
			{ settings: { onCheckFailure: 'sendWithoutGuard' } },
			{ ...GUARD_DEFAULTS, onCheckFailure: 'sendWithoutGuard' },
		],
		['an unknown failure choice: stop', { settings: { onCheckFailure: 'shrug' } }, GUARD_DEFAULTS],
		['look back 1 day', { settings: { lookBackDays: 1 } }, { ...GUARD_DEFAULTS, lookBackDays: 1 }],
		['look back 0 days', { settings: { lookBackDays: 0 } }, { ...GUARD_DEFAULTS, lookBackDays: 1 }],
		[
			'look back 90 days',
			{ settings: { lookBackDays: 90 } },
			{ ...GUARD_DEFAULTS, lookBackDays: 90 },
		],
		// The service lists incidents of the last 90 days only (interface document, section 8).
		[
			'look back 91 days',
			{ settings: { lookBackDays: 91 } },
			{ ...GUARD_DEFAULTS, lookBackDays: 90 },
		],
		[
			'look back 4.9 days: whole',
			{ settings: { lookBackDays: 4.9 } },
			{ ...GUARD_DEFAULTS, lookBackDays: 4 },
		],
		['look back not a number: 90', { settings: { lookBackDays: 'abc' } }, GUARD_DEFAULTS],
		// A cleared number field: the default, not 0 days read as 1.
		['look back cleared (null): 90', { settings: { lookBackDays: null } }, GUARD_DEFAULTS],
		['look back cleared (empty): 90', { settings: { lookBackDays: '' } }, GUARD_DEFAULTS],
	])('%s', (_, given, expected) => {
		expect(readGuardSettings(given)).toStrictEqual(expected);
		expect(read('standardTransfer', { incidentGuard: given }).incidentGuard).toStrictEqual(
			expected,
		);
	});

	test('the editor shows the same bounds and defaults', () => {
		const option = shownOptions('standardTransfer').find(
			(candidate) => candidate.name === 'incidentGuard',
		);
		const values = (option?.options?.[0] as { values: INodeProperties[] }).values;
		const byName = Object.fromEntries(values.map((value) => [value.name, value]));
		expect(byName.lookBackDays.typeOptions).toMatchObject({
			minValue: 1,
			maxValue: MAX_LOOK_BACK_DAYS,
		});
		expect({
			action: byName.affectedItems.default,
			matchBank: byName.matchBank.default,
			impacts: byName.impacts.default,
			countScheduled: byName.countScheduled.default,
			onCheckFailure: byName.onCheckFailure.default,
			lookBackDays: byName.lookBackDays.default,
		}).toEqual({ ...GUARD_DEFAULTS, impacts: '' });
	});
});

import { DateTime } from 'luxon';
import { z } from 'zod';

import type { Clock } from '../types';

/**
 * Field rules of the interface document (sections 4 and 8), each written once and named after
 * what it checks. A rule's message completes the sentence "'<Parameter>' ..." so an error names
 * the item, the parameter and the rule. Rules never echo values (some fields are secrets): the
 * routine adds the given value to the message for fields that are not secret.
 *
 * A rule is a plain function; `itemSchema` puts an operation's rules into one zod schema. (One
 * zod transform per item, not one per field: a zod effect costs microseconds each, and the
 * table is the same either way.)
 */

/** What a rule makes of a value: the value to send (undefined: not sent), or what is wrong. */
type Checked<T> = { value: T } | { issue: string };
export type FieldRule<T> = (value: unknown) => Checked<T>;

const ok = <T>(value: T): Checked<T> => ({ value });
const issue = (message: string): { issue: string } => ({ issue: message });

const LETTERS_DIGITS = /^[A-Za-z0-9]*$/;

/** n8n hands us strings, numbers (from a spreadsheet) or nothing (an added but empty field). */
function asText(value: unknown): string | undefined {
	if (typeof value === 'string') {
		const trimmed = value.trim();
		return trimmed === '' ? undefined : trimmed;
	}
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	return undefined;
}

interface TextRule {
	required?: boolean;
	max?: number;
	pattern?: RegExp;
	/** The pattern's rule, completing "'<Parameter>' ...", e.g. "may contain only letters and digits". */
	rule?: string;
}

/** A text field: required or optional (empty means not sent), a length limit, a character set. */
export function text(rule: TextRule & { required: true }): FieldRule<string>;
export function text(rule: TextRule): FieldRule<string | undefined>;
export function text({
	required = false,
	max,
	pattern,
	rule,
}: TextRule): FieldRule<string | undefined> {
	return (value) => {
		if (
			value !== undefined &&
			value !== null &&
			typeof value !== 'string' &&
			typeof value !== 'number'
		)
			return issue('must be text');
		const result = asText(value);
		if (result === undefined) return required ? issue('is required') : ok(undefined);
		if (max !== undefined && result.length > max)
			return issue(`must be at most ${max} characters long`);
		if (pattern && !pattern.test(result))
			return issue(rule ?? 'has a character that is not allowed');
		return ok(result);
	};
}

/** One of a fixed list of values; an empty value takes the default the service would use. */
export function oneOf<T extends string>(
	values: readonly T[],
	fallback?: T,
): FieldRule<T | undefined> {
	return (value) => {
		const result = asText(value) ?? fallback;
		if (result === undefined || (values as readonly string[]).includes(result))
			return ok(result as T | undefined);
		return issue(`must be one of ${values.join(', ')}`);
	};
}

/**
 * One of a picker's values, also as its name and in any case: what a spreadsheet column or an
 * expression gives (`IMPS`, `Wallet A`) is the value the picker shows, and is sent as the API's
 * own value (`imps`, `walletA`).
 */
export function oneOfIgnoringCase<T extends string>(
	choices: ReadonlyArray<{ name: string; value: T }>,
	fallback?: T,
): FieldRule<T | undefined> {
	const byWord = new Map<string, T>();
	for (const { name, value } of choices) {
		byWord.set(value.toLowerCase(), value);
		byWord.set(name.toLowerCase(), value);
	}
	return (value) => {
		const given = asText(value);
		if (given === undefined) return ok(fallback);
		const found = byWord.get(given.toLowerCase());
		if (found !== undefined) return ok(found);
		return issue(
			`must be one of ${choices.map((choice) => choice.value).join(', ')} (in any case)`,
		);
	};
}

interface AmountRule {
	min: number;
	max?: number;
	maxDecimals?: number;
	/** How the API takes it: card amounts are strings, the others JSON numbers. */
	sendAs: 'string' | 'number';
}

const PLAIN_DECIMAL = /^\d+(\.\d+)?$/;

/** Any decimal of at most 15 significant digits survives a JSON number unchanged. */
const EXACT_DIGITS = 15;

/**
 * An amount that is never rounded: a value that a JSON number cannot carry exactly is refused,
 * not sent as something close to it.
 */
export function amount({ min, max, maxDecimals, sendAs }: AmountRule): FieldRule<string | number> {
	return (value) => {
		const decimal =
			typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : asText(value);
		if (decimal === undefined) return issue('is required');
		if (!PLAIN_DECIMAL.test(decimal)) return issue('must be a plain decimal number such as 100.50');
		const point = decimal.indexOf('.');
		const decimals = point < 0 ? 0 : decimal.length - point - 1;
		if (maxDecimals !== undefined && decimals > maxDecimals)
			return issue(`must have at most ${maxDecimals} decimal places`);
		const number = Number(decimal);
		if (number < min) return issue(`must be at least ${min.toFixed(2)}`);
		if (max !== undefined && number > max) return issue(`must be at most ${max.toFixed(2)}`);
		if (sendAs === 'string') return ok(decimal);
		const significant = decimal.replace('.', '').replace(/^0+/, '').replace(/0+$/, '').length;
		if (significant > EXACT_DIGITS) return issue('has more digits than can be sent exactly');
		return ok(number);
	};
}

/** Rules shared by several fields or operations. */
export const fields = {
	/** Card and standard transfers: letters, digits and underscore (the card's error message also
	 * names hyphen; we keep to the field rule, so nothing we send can be refused for it). */
	transferId: {
		max: 40,
		pattern: /^[A-Za-z0-9_]*$/,
		rule: 'may contain only letters, digits and underscore',
	},
	/** Internal transfers: the field rule names hyphen too. */
	internalTransferId: {
		max: 40,
		pattern: /^[A-Za-z0-9_-]*$/,
		rule: 'may contain only letters, digits, hyphen and underscore',
	},
	alphanumeric: { pattern: LETTERS_DIGITS, rule: 'may contain only letters and digits' },
	/** A value sent as a segment of the path: "." or ".." would name another address of the service. */
	pathSegment: { pattern: /^(?!\.{1,2}$)/s, rule: "may not be '.' or '..'" },
	remarks: {
		max: 70,
		pattern: /^[A-Za-z0-9 \t]*$/,
		rule: 'may contain only letters, digits and spaces',
	},
} as const;

export const SERVICE_TIME_FORMAT = 'yyyy-MM-dd HH:mm:ss';

/**
 * A point in time from an n8n date-time picker, an ISO string, "yyyy-mm-dd hh:mm:ss", a JS Date or
 * a Luxon DateTime (from expressions such as {{ $now.minus({ days: 1 }) }}), read in the workflow's
 * timezone because the service names none.
 */
export function dateTime({ timezone }: Clock): FieldRule<DateTime | undefined> {
	return (value) => {
		if (value === undefined || value === null || value === '') return ok(undefined);
		let parsed: DateTime | undefined;
		if (value instanceof Date) parsed = DateTime.fromJSDate(value).setZone(timezone);
		else if (
			typeof value === 'object' &&
			typeof (value as { toISO?: unknown }).toISO === 'function'
		) {
			parsed = DateTime.fromISO(String((value as { toISO: () => string }).toISO())).setZone(
				timezone,
			);
		} else if (typeof value === 'string') {
			const trimmed = value.trim();
			parsed = DateTime.fromISO(trimmed, { zone: timezone });
			if (!parsed.isValid) parsed = DateTime.fromSQL(trimmed, { zone: timezone });
			if (parsed.isValid) parsed = parsed.setZone(timezone);
		}
		return parsed?.isValid
			? ok(parsed)
			: issue('must be a date and time, e.g. 2026-01-31 09:30:00');
	};
}

type Rules = Record<string, FieldRule<unknown>>;
type Values<R extends Rules> = { [K in keyof R]: R[K] extends FieldRule<infer T> ? T : never };

/** Rules across fields, run once every field passed its own: report with `fail(field, rule)`. */
type CrossCheck<R extends Rules> = (
	values: Values<R>,
	fail: (field: keyof R & string, rule: string) => void,
) => void;

/**
 * One zod schema for an operation's item: every field's rule in table order (each broken rule is
 * reported, with its field as the path, so the user sees all of them at once), then the
 * cross-field checks once every field passed its own. Fields the user left empty are left out of
 * the result, so they are not sent.
 */
export function itemSchema<R extends Rules>(rules: R, crossCheck?: CrossCheck<R>) {
	const entries = Object.entries(rules);
	return z.any().transform((raw: Record<string, unknown>, ctx): Values<R> => {
		const values: Record<string, unknown> = {};
		let broken = false;
		const fail = (field: string, rule: string) => {
			broken = true;
			ctx.addIssue({ code: z.ZodIssueCode.custom, path: [field], message: rule });
		};
		for (const [field, rule] of entries) {
			const checked = rule(raw?.[field]);
			if ('issue' in checked) fail(field, checked.issue);
			else if (checked.value !== undefined) values[field] = checked.value;
		}
		if (!broken) crossCheck?.(values as Values<R>, fail);
		return broken ? z.NEVER : (values as Values<R>);
	});
}

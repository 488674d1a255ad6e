import { DateTime } from 'luxon';
import { z } from 'zod';

/**
 * Field rules of the interface document (sections 4 and 8), each written once and named after
 * what it checks. A rule's message completes the sentence "'<Parameter>' ..." so an error names
 * the item, the parameter and the rule. Values are never echoed: some fields are secrets.
 */

const LETTERS_DIGITS = /^[A-Za-z0-9]*$/;

/** n8n hands us strings, numbers (from a spreadsheet) or nothing (an added but empty field). */
function asText(value: unknown): string | undefined {
	if (value === undefined || value === null) return undefined;
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	if (typeof value === 'string') return value.trim() === '' ? undefined : value.trim();
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
export function text({ required = false, max, pattern, rule }: TextRule) {
	return z.unknown().transform((value, ctx): string | undefined => {
		const isText = value === undefined || value === null || typeof value === 'string' || typeof value === 'number';
		const result = asText(value);
		const fail = (message: string) => {
			ctx.addIssue({ code: z.ZodIssueCode.custom, message });
			return z.NEVER;
		};
		if (!isText) return fail('must be text');
		if (result === undefined) return required ? fail('is required') : undefined;
		if (max !== undefined && result.length > max) return fail(`must be at most ${max} characters long`);
		if (pattern && !pattern.test(result)) return fail(rule ?? 'has a character that is not allowed');
		return result;
	});
}

/** One of a fixed list of values; an empty value takes the default the service would use. */
export function oneOf<T extends string>(values: readonly T[], fallback?: T) {
	return z.unknown().transform((value, ctx): T | undefined => {
		const result = asText(value) ?? fallback;
		if (result === undefined || (values as readonly string[]).includes(result)) return result as T | undefined;
		ctx.addIssue({ code: z.ZodIssueCode.custom, message: `must be one of ${values.join(', ')}` });
		return z.NEVER;
	});
}

interface AmountRule {
	min: number;
	max?: number;
	maxDecimals?: number;
	/** How the API takes it: card amounts are strings, the others JSON numbers. */
	sendAs: 'string' | 'number';
}

const PLAIN_DECIMAL = /^\d+(\.\d+)?$/;

/** Canonical text of a decimal, so "100.50" and 100.5 compare equal. */
function canonical(decimal: string): string {
	const [whole, fraction = ''] = decimal.split('.');
	const digits = whole.replace(/^0+(?=\d)/, '');
	const decimals = fraction.replace(/0+$/, '');
	return decimals ? `${digits}.${decimals}` : digits;
}

/**
 * An amount that is never rounded: a value that a JSON number cannot carry exactly is refused,
 * not sent as something close to it.
 */
export function amount({ min, max, maxDecimals, sendAs }: AmountRule) {
	return z.unknown().transform((value, ctx): string | number => {
		const fail = (message: string) => {
			ctx.addIssue({ code: z.ZodIssueCode.custom, message });
			return z.NEVER;
		};
		const decimal = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : asText(value);
		if (decimal === undefined) return fail('is required');
		if (!PLAIN_DECIMAL.test(decimal)) return fail('must be a plain decimal number such as 100.50');
		const decimals = decimal.split('.')[1]?.length ?? 0;
		if (maxDecimals !== undefined && decimals > maxDecimals) return fail(`must have at most ${maxDecimals} decimal places`);
		const number = Number(decimal);
		if (number < min) return fail(`must be at least ${min.toFixed(2)}`);
		if (max !== undefined && number > max) return fail(`must be at most ${max.toFixed(2)}`);
		if (sendAs === 'string') return decimal;
		if (canonical(String(number)) !== canonical(decimal)) return fail('has more digits than can be sent exactly');
		return number;
	});
}

/** Rules shared by several fields or operations. */
export const fields = {
	/** Card and standard transfers: letters, digits and underscore (the card's error message also
	 * names hyphen; we keep to the field rule, so nothing we send can be refused for it). */
	transferId: { max: 40, pattern: /^[A-Za-z0-9_]*$/, rule: 'may contain only letters, digits and underscore' },
	/** Internal transfers: the field rule names hyphen too. */
	internalTransferId: { max: 40, pattern: /^[A-Za-z0-9_-]*$/, rule: 'may contain only letters, digits, hyphen and underscore' },
	alphanumeric: { pattern: LETTERS_DIGITS, rule: 'may contain only letters and digits' },
	remarks: { max: 70, pattern: /^[A-Za-z0-9 \t]*$/, rule: 'may contain only letters, digits and spaces' },
} as const;

/** What a date-time rule needs to know: the workflow's timezone and the time of the run. */
export interface Clock {
	timezone: string;
	now: DateTime;
}

export const SERVICE_TIME_FORMAT = 'yyyy-MM-dd HH:mm:ss';

/**
 * A point in time from an n8n date-time picker, an ISO string, "yyyy-mm-dd hh:mm:ss", a JS Date or
 * a Luxon DateTime (from expressions such as {{ $now.minus({ days: 1 }) }}), read in the workflow's
 * timezone because the service names none.
 */
export function dateTime({ timezone }: Clock) {
	return z.unknown().transform((value, ctx): DateTime | undefined => {
		if (value === undefined || value === null || value === '') return undefined;
		let parsed: DateTime | undefined;
		if (value instanceof Date) parsed = DateTime.fromJSDate(value).setZone(timezone);
		else if (typeof value === 'object' && typeof (value as { toISO?: unknown }).toISO === 'function') {
			parsed = DateTime.fromISO(String((value as { toISO: () => string }).toISO())).setZone(timezone);
		} else if (typeof value === 'string') {
			const trimmed = value.trim();
			parsed = DateTime.fromISO(trimmed, { zone: timezone, setZone: false });
			if (!parsed.isValid) parsed = DateTime.fromSQL(trimmed, { zone: timezone });
			if (parsed.isValid) parsed = parsed.setZone(timezone);
		}
		if (parsed?.isValid) return parsed;
		ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'must be a date and time, e.g. 2026-01-31 09:30:00' });
		return z.NEVER;
	});
}

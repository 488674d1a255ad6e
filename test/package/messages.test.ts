/* eslint-disable @n8n/community-nodes/no-restricted-imports -- test code runs in Node under jest, never inside n8n (it reads files with Node's own modules); these rules guard the code n8n loads (nodes/, credentials/) */
/**
 * Every message a user can meet has its row in docs/errors.md: the texts of the nodes and
 * the credential, found in their sources by test/package/messages.ts, each read by a documented
 * message of the page's "Every message, and what to do" section, and every documented message read
 * as a text of the code (a row for a message the code no longer writes is a stale row).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { documents, messagesIn, piecesOf, ROOT } from './messages';
import type { Found } from './messages';

const page = readFileSync(path.join(ROOT, 'docs', 'errors.md'), 'utf8');

/** The messages a page's section documents: the code span that opens each table row. */
function documentedIn(text: string): string[] {
	const start = text.indexOf('\n## Every message, and what to do\n');
	const end = text.indexOf('\n## ', start + 1);
	const section = start < 0 ? '' : text.slice(start, end < 0 ? undefined : end);
	return [...section.matchAll(/^\| `([^`]+)` \|/gm)].map((match) => match[1]);
}

/** The code's texts that no documented message reads, as "file:line: text". */
function undocumented(found: Found[], documented: string[]): string[] {
	return found
		.filter(({ text }) => !documented.some((entry) => documents(entry, text)))
		.map(({ file, line, text }) => `${file}:${line}: ${text}`);
}

/** The documented messages that read no text of the code. */
function stale(found: Found[], documented: string[]): string[] {
	return documented.filter(
		(entry) =>
			!found.some(({ text }) => documents(entry, text) && piecesOf(text).join('').length >= 8),
	);
}

const found = messagesIn();
const documented = documentedIn(page);

test('the scanner finds the messages of every kind of place (so its silence means something)', () => {
	const texts = found.map(({ text }) => text);
	expect(found.length).toBeGreaterThan(60);
	// A thrown NodeOperationError, a failure's message, a field rule, a cross-field rule, a constant passed by name.
	expect(texts).toEqual(
		expect.arrayContaining([
			'Save the workflow before it sends transfers',
			'The node could not record the transfer before sending it …',
			'must have at most … decimal places',
			"must not be after 'End Time'…",
			'The next poll tries again; nothing was marked as seen.',
		]),
	);
});

test('every message of the nodes and the credential has its row in docs/errors.md', () => {
	expect(documented.length).toBeGreaterThan(50);
	expect(undocumented(found, documented)).toEqual([]);
});

test('every message docs/errors.md documents is one the code writes (no stale rows)', () => {
	expect(stale(found, documented)).toEqual([]);
});

test('the check fails for a new message without its row, and for a row of a message that is gone', () => {
	const source = [
		"const HINT = 'unused';",
		'throw new NodeOperationError(node, `The payout window for ${name} is closed`, { description: HINT });',
		"const failure = { message: cond ? 'Refused by the bank holiday rule' : `Kept for ${days} days`, hint: HINT };",
		"const checked = issue('must be a weekday');",
		'throw new Error(`the store refused ${count} writes`);',
	].join('\n');
	const fake = messagesIn(['nodes/x.ts'], () => source);
	expect(fake.map(({ text }) => text)).toEqual([
		'The payout window for … is closed',
		'Refused by the bank holiday rule',
		'Kept for … days',
		'must be a weekday',
		'the store refused … writes',
	]);
	expect(
		undocumented(fake, [
			'The payout window for … is closed',
			"'…' must be a weekday (given: …) [item …]",
			'the store refused … writes',
		]),
	).toEqual(['nodes/x.ts:3: Refused by the bank holiday rule', 'nodes/x.ts:3: Kept for … days']);
	expect(stale(fake, ['The payout window for … is closed', 'A message nobody writes'])).toEqual([
		'A message nobody writes',
	]);
	// A page without the section documents nothing.
	expect(documentedIn('# Errors\n\n| `The payout window for … is closed` | x |\n')).toEqual([]);
});

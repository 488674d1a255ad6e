/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code runs in Node under jest, never inside n8n (it reads files with Node's own modules); these rules guard the code n8n loads (nodes/, credentials/) */
/**
 * No two pages give different advice for one status. What each status means and what to
 * do is one table (docs/nodes/payouts-transfer.md, "What each status means"); every other place a
 * user reads advice (the README, the user pages under docs/, and every text of the examples: their
 * sticky notes and the words their nodes write) may say it shorter, never otherwise. Each rule below
 * is one thing the status table says, with the words that would contradict it; every clause (a
 * sentence, or a part of one between semicolons) is held to every rule.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.join(__dirname, '..', '..');
const relative = (file: string) => path.relative(root, file).split(path.sep).join('/');

interface Rule {
	/** What the status table says. */
	says: string;
	/** A clause this rule is about. */
	when: RegExp;
	/** Words that say otherwise... */
	contradicts: RegExp;
	/** ...unless the clause also says this (a negation, another case). */
	unless?: RegExp;
}

const RULES: Rule[] = [
	{
		says: 'UNKNOWN may have been paid: never a new Transfer ID while it may have been',
		when: /\bUNKNOWN\b|may have been paid/,
		contradicts: /\b(give|gives|given|use|uses)\b[^.;]*\bnew Transfer ID\b/i,
		unless: /\bnever\b|\bnot\b|\bFAILED\b|can never be paid|only if/i,
	},
	{
		says: 'ERROR and HELD moved no money',
		when: /`(ERROR|HELD)`/,
		contradicts: /may have (been )?(paid|moved)|maybe paid/i,
		unless: /\bUNKNOWN\b/,
	},
	{
		says: 'a card or standard transfer the dashboard shows not paid (FAILED) can never be paid under its Transfer ID: pay it under a new one',
		when: /(\bFAILED\b|not paid)[^]*\b(card|standard)\b|\b(card|standard)\b[^]*(\bFAILED\b|not paid)/i,
		contradicts:
			/\b(run|send|pay)\b[^.;]*\bagain\b[^.;]*\b(same Transfer ID|unchanged)\b|\b(same Transfer ID|unchanged)\b[^.;]*\b(run|send|pay)\b[^.;]*\bagain\b/i,
		unless: /NOT_FOUND|not found|internal/i,
	},
	{
		says: 'SUCCESS, PENDING and ALREADY_SUBMITTED are paid',
		when: /`(SUCCESS|PENDING|ALREADY_SUBMITTED)`/,
		contradicts: /\b(moved nothing|nothing (was )?(moved|paid)|no money moved)\b/i,
		unless:
			/dashboard|`(ERROR|HELD|UNKNOWN|ALREADY_EXISTS|INVALID|UNSIGNED|NOT_SENT|CONFLICT)`|\b(again|twice|now|more)\b/i,
	},
	{
		says: 'ALREADY_EXISTS: a person looks the Transfer ID up; a Transfer ID of its own only if it is another payout',
		when: /\bALREADY_EXISTS\b/,
		contradicts: /\bnew Transfer ID\b|\bTransfer ID of its own\b/i,
		unless: /only if|another payout|\bnever\b|\bnot\b/i,
	},
	{
		says: "options are named as the editor names them: 'Settle With Dashboard Status'",
		when: /Dashboard Status/,
		contradicts: /Options\s*(→|>|&gt;)\s*'?Dashboard Status\b/,
	},
];

/** The clauses of a text: its sentences, and their parts between semicolons. */
const clausesOf = (text: string) =>
	text
		.split(/\n{2,}|(?<=[.;!?])\s+|\n(?=\s*[-*|>])/)
		.map((clause) => clause.replace(/\s+/g, ' ').trim())
		.filter(Boolean);

/** Where a text goes against the status table: one line per clause and rule. */
function contradictions(where: string, text: string): string[] {
	const found: string[] = [];
	for (const clause of clausesOf(text)) {
		for (const rule of RULES) {
			if (
				rule.when.test(clause) &&
				rule.contradicts.test(clause) &&
				!(rule.unless?.test(clause) ?? false)
			)
				found.push(`${where}: "${clause.slice(0, 160)}" goes against: ${rule.says}`);
		}
	}
	return found;
}

function markdownUnder(folder: string): string[] {
	return readdirSync(folder).flatMap((name) => {
		const file = path.join(folder, name);
		if (statSync(file).isDirectory()) return markdownUnder(file);
		return name.endsWith('.md') ? [file] : [];
	});
}
/** The pages for contributors: the mechanism and the project's history, not advice. */
const CONTRIBUTOR_PAGES = ['docs/internals.md', 'docs/testing.md', 'docs/test-log.md'];
const userPages = [path.join(root, 'README.md'), ...markdownUnder(path.join(root, 'docs'))].filter(
	(file) => !CONTRIBUTOR_PAGES.includes(relative(file)),
);

/** Every string of an example workflow: its sticky notes and every parameter a user reads or a node writes. */
function stringsOf(value: unknown): string[] {
	if (typeof value === 'string') return [value];
	if (Array.isArray(value)) return value.flatMap(stringsOf);
	if (value && typeof value === 'object') return Object.values(value).flatMap(stringsOf);
	return [];
}
const examples = readdirSync(path.join(root, 'examples')).filter((file) => file.endsWith('.json'));

test('the places checked: the status table itself, the user pages and every example', () => {
	expect(userPages.map(relative)).toEqual(
		expect.arrayContaining([
			'README.md',
			'docs/nodes/payouts-transfer.md',
			'docs/examples.md',
			'docs/queue-claims.md',
			'docs/safety.md',
		]),
	);
	expect(examples.length).toBeGreaterThanOrEqual(9);
});

test('no user page gives advice for a status that the status table contradicts', () => {
	expect(
		userPages.flatMap((file) => contradictions(relative(file), readFileSync(file, 'utf8'))),
	).toEqual([]);
});

test('no example says otherwise either, in its sticky notes or in what its nodes write', () => {
	expect(
		examples.flatMap((file) =>
			stringsOf(JSON.parse(readFileSync(path.join(root, 'examples', file), 'utf8'))).flatMap(
				(text) => contradictions(`examples/${file}`, text),
			),
		),
	).toEqual([]);
});

test("the check finds what it is for (so its silence means something): the reconciliation's advice as it once was, among others", () => {
	const before = [
		// examples/reconcile-dashboard.json as it once was: a card or standard row not paid on the dashboard sent again under its Transfer ID, an option named otherwise than the editor does.
		"'Not paid on the dashboard (' + $json.dashboardStatus + '): run the row again with the same Transfer ID (card, standard); internal transfer: map this status to Options \u2192 Dashboard Status. Never give it a new Transfer ID.'",
		'`ERROR`: the service refused it, but it may have been paid.',
		'`UNKNOWN`: give the row a new Transfer ID and run it again.',
		'`ALREADY_SUBMITTED`: nothing was paid; fix the row.',
		'`ALREADY_EXISTS`: give the row a new Transfer ID.',
	].join('\n\n');
	expect(contradictions('x', before).map((line) => line.replace(/^.*goes against: /, ''))).toEqual([
		RULES[2].says,
		RULES[5].says,
		RULES[1].says,
		RULES[0].says,
		RULES[3].says,
		RULES[4].says,
	]);
	// The same words said right are not flagged.
	const right = [
		"'Not paid on the dashboard (FAILED). Card or standard: it can never be paid under this Transfer ID: pay it under a new one.'",
		'`UNKNOWN` may have been paid: never give it a new Transfer ID.',
		'`ALREADY_EXISTS`: only if it is another payout, give the row a Transfer ID of its own.',
		"Map it to Options > 'Settle With Dashboard Status'.",
	].join('\n\n');
	expect(contradictions('x', right)).toEqual([]);
});

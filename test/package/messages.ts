/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code runs in Node under jest, never inside n8n (it reads the sources with Node's own modules); these rules guard the code n8n loads (nodes/, credentials/) */
/**
 * The texts the nodes and the credential can show a user, found in their sources mechanically with
 * TypeScript's own parser (test/package/messages.test.ts holds docs/errors.md to them):
 * - the message of every `new NodeOperationError(node, message)`, `new NodeApiError(node, response,
 *   { message })` and `new Error(message)` (a reason that ends up in another message);
 * - every value of a property that is a message of an error, a failure, a refusal or a warning
 *   (`message`, `problem`, `rule`, `issue`, `warning`, `unchecked`, `failed`, `whenUnclear`);
 * - the rule of every `issue(rule)` and `fail(field, rule)` (field rules, read "'<Parameter>' <rule>")
 *   and of every `invalid(index, rule, hint)` (a row refused before anything is sent).
 * A text is its skeleton: the literal words, with `…` for each `${...}` of a template; a text made
 * of several branches (`a ? 'x' : 'y'`, `a ?? 'x'`, `'x' + y`) gives each. Values that are only
 * passed on (`failure.message`) and regular expressions (the service's messages, matched by
 * nodes/shared/outcomes/errors.ts) are not texts of their own.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

import ts from 'typescript';

export const ROOT = path.join(__dirname, '..', '..');

/** Properties whose value is a text the user reads as a message. */
export const MESSAGE_PROPERTIES = [
	'message',
	'problem',
	'rule',
	'issue',
	'warning',
	'unchecked',
	'failed',
	'whenUnclear',
];
/** Calls whose argument at this position is a message (or a field rule). */
export const MESSAGE_CALLS: Record<string, number> = { issue: 0, fail: 1, invalid: 1 };
/** Error classes whose argument at this position is the message. */
export const ERROR_CLASSES: Record<string, number> = { NodeOperationError: 1, Error: 0 };

export interface Found {
	file: string;
	line: number;
	/** The literal words, `…` where a value goes in. */
	text: string;
}

/** Every .ts file under a folder. */
function sources(folder: string): string[] {
	return readdirSync(folder).flatMap((name) => {
		const file = path.join(folder, name);
		if (statSync(file).isDirectory()) return sources(file);
		return name.endsWith('.ts') ? [file] : [];
	});
}

const HOLE = '…';

/** The skeletons an expression can make: one per branch; a value passed on is a hole (a constant of the same file is its text). */
function skeletons(
	node: ts.Expression,
	constants: Map<string, ts.Expression> = new Map(),
): string[] {
	const skeletons_ = (inner: ts.Expression) => skeletons(inner, constants);
	if (ts.isIdentifier(node) && constants.has(node.text))
		return skeletons_(constants.get(node.text) as ts.Expression);
	if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [node.text];
	// Whatever goes into `${...}` changes: a hole.
	if (ts.isTemplateExpression(node))
		return [
			node.head.text + node.templateSpans.map((span) => `${HOLE}${span.literal.text}`).join(''),
		];
	if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node))
		return skeletons_(node.expression);
	if (ts.isConditionalExpression(node))
		return [...skeletons_(node.whenTrue), ...skeletons_(node.whenFalse)];
	if (ts.isBinaryExpression(node)) {
		const operator = node.operatorToken.kind;
		if (operator === ts.SyntaxKind.QuestionQuestionToken || operator === ts.SyntaxKind.BarBarToken)
			return [...skeletons_(node.left), ...skeletons_(node.right)];
		if (operator === ts.SyntaxKind.PlusToken)
			return skeletons_(node.left).flatMap((left) =>
				skeletons_(node.right).map((right) => `${left}${right}`),
			);
	}
	// redact(text) and the like: the text is the argument's.
	if (
		ts.isCallExpression(node) &&
		ts.isIdentifier(node.expression) &&
		/^redact/.test(node.expression.text) &&
		node.arguments[0]
	)
		return skeletons_(node.arguments[0]);
	return [HOLE];
}

/** A skeleton worth a row: it has words of its own. */
const hasWords = (text: string) => /[A-Za-z]{2}/.test(text.split(HOLE).join(''));

/** Every message text of the given files (default: nodes/ and credentials/). */
export function messagesIn(
	files = [...sources(path.join(ROOT, 'nodes')), ...sources(path.join(ROOT, 'credentials'))],
	read = (file: string) => readFileSync(file, 'utf8'),
): Found[] {
	const found: Found[] = [];
	for (const file of files) {
		const source = ts.createSourceFile(file, read(file), ts.ScriptTarget.Latest, true);
		// The file's constants of text (`const UNCLEAR = '...'`): a message passed by name is its text.
		const constants = new Map<string, ts.Expression>();
		const collect = (node: ts.Node) => {
			if (
				ts.isVariableDeclaration(node) &&
				ts.isIdentifier(node.name) &&
				node.initializer &&
				(ts.isStringLiteral(node.initializer) ||
					ts.isNoSubstitutionTemplateLiteral(node.initializer) ||
					ts.isTemplateExpression(node.initializer))
			) {
				constants.set(node.name.text, node.initializer);
			}
			ts.forEachChild(node, collect);
		};
		collect(source);
		const add = (expression: ts.Expression | undefined) => {
			if (!expression || ts.isRegularExpressionLiteral(expression)) return;
			const line = source.getLineAndCharacterOfPosition(expression.getStart()).line + 1;
			for (const text of skeletons(expression, constants))
				if (hasWords(text))
					found.push({
						file: path.relative(ROOT, file).split(path.sep).join('/'),
						line,
						text: text.replace(/\s+/g, ' ').trim(),
					});
		};
		const visit = (node: ts.Node) => {
			if (
				ts.isNewExpression(node) &&
				ts.isIdentifier(node.expression) &&
				node.expression.text in ERROR_CLASSES
			)
				add(node.arguments?.[ERROR_CLASSES[node.expression.text]]);
			if (
				ts.isPropertyAssignment(node) &&
				(ts.isIdentifier(node.name) || ts.isStringLiteral(node.name)) &&
				MESSAGE_PROPERTIES.includes(node.name.text)
			)
				add(node.initializer);
			if (
				ts.isCallExpression(node) &&
				ts.isIdentifier(node.expression) &&
				node.expression.text in MESSAGE_CALLS
			)
				add(node.arguments[MESSAGE_CALLS[node.expression.text]]);
			ts.forEachChild(node, visit);
		};
		visit(source);
	}
	return found;
}

/** The literal pieces of a skeleton that carry words, in order. */
export const piecesOf = (text: string) =>
	text
		.split(HOLE)
		.map((piece) => piece.trim())
		.filter((piece) => /[A-Za-z]/.test(piece));

/** Whether a documented message (its own `…` where values go) reads as the code's skeleton: the code's pieces appear in it, in order. */
export function documents(documented: string, text: string): boolean {
	let from = 0;
	for (const piece of piecesOf(text)) {
		const at = documented.indexOf(piece, from);
		if (at < 0) return false;
		from = at + piece.length;
	}
	return true;
}

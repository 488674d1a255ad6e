#!/usr/bin/env node
'use strict';
// Prints the "Tested n8n versions" table of docs/testing.md from the last matrix run
// (harness/n8n-runtime/tested-versions.json, written by `npm run test:matrix`), so the docs say what
// was measured, not what someone typed. `--write` puts it into docs/testing.md between its markers.
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const RESULTS_FILE = path.join(ROOT, 'harness', 'n8n-runtime', 'tested-versions.json');
const PAGE = path.join(ROOT, 'docs', 'testing.md');
const START = '<!-- tested-versions:start -->\n';
const END = '\n<!-- tested-versions:end -->';

const duration = (seconds) =>
	seconds >= 60
		? `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`
		: `${seconds} s`;

function table() {
	const { default: defaultVersion } = JSON.parse(
		fs.readFileSync(path.join(ROOT, 'harness', 'n8n-runtime', 'versions.json'), 'utf8'),
	);
	const { suite, runs } = JSON.parse(fs.readFileSync(RESULTS_FILE, 'utf8'));
	const lines = [
		`| n8n | Node.js | Why this version | End-to-end suite (\`${suite}\`) | Duration | Date |`,
		'|---|---|---|---|---|---|',
	];
	for (const run of runs) {
		const total = run.passed + run.failed;
		const result = run.installFailed
			? '**did not install**'
			: run.failed
				? `**failed**: ${run.failed} of ${total} tests`
				: `passed: ${run.passed} of ${total} tests`;
		lines.push(
			`| ${run.n8n === defaultVersion ? `**${run.n8n}** (default)` : run.n8n} | ${run.node} | ${run.role} | ${result} | ${duration(run.seconds)} | ${run.date} |`,
		);
	}
	return lines.join('\n');
}

function pageTable(text = fs.readFileSync(PAGE, 'utf8')) {
	return text.split(START)[1]?.split(END)[0];
}

function writePage() {
	const text = fs.readFileSync(PAGE, 'utf8');
	if (pageTable(text) === undefined)
		throw new Error(`docs/testing.md lacks the markers ${START.trim()} … ${END.trim()}`);
	const [before, rest] = text.split(START);
	fs.writeFileSync(PAGE, `${before}${START}${table()}${END}${rest.split(END).slice(1).join(END)}`);
}

if (require.main === module) {
	if (process.argv.includes('--write')) writePage();
	else console.log(table());
}
module.exports = { PAGE, RESULTS_FILE, table, pageTable, writePage };

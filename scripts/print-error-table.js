#!/usr/bin/env node
'use strict';
// Prints the error table of docs/errors.md from the one place the hints live (nodes/shared/outcomes/errors.ts,
// as built into dist/), so the docs cannot drift from what the nodes say. `npm run build` first.
const path = require('node:path');

const SUBJECTS = {
	cardTransfer: 'Card Transfer',
	standardTransfer: 'Standard Transfer',
	internalTransfer: 'Internal Transfer',
	getBeneficiary: 'Get Beneficiary',
	getIncidents: 'Get Many Incidents',
	getPaylinkStatus: 'Get Paylink Status',
};

/** A matching pattern as words: "minimum amount of rs\\.? ?100\\b" reads "minimum amount of rs. 100". */
function readable(source) {
	return source
		.replace(/\\b/g, '')
		.replace(/\\\.\?/g, '.')
		.replace(/ \?/g, ' ')
		.replace(/\\/g, '')
		.replace(/\|/g, '\\|');
}

function table() {
	const { errorRows } = require(
		path.join(__dirname, '..', 'dist', 'nodes', 'shared', 'outcomes', 'errors.js'),
	);
	const lines = [
		"| Operations | subCode | Service message (matched) | Hint (the error's description) |",
		'|---|---|---|---|',
	];
	for (const row of errorRows) {
		const operations = row.operations
			? row.operations.map((operation) => SUBJECTS[operation]).join(', ')
			: 'every payout operation';
		const matched = row.message.source === '.' ? 'any message' : readable(row.message.source);
		lines.push(
			`| ${operations} | ${row.subCode} | \`${matched}\`${row.unknownOutcome ? ' (unknown outcome)' : ''} | ${row.hint.replace(/\|/g, '\\|')} |`,
		);
	}
	return lines.join('\n');
}

if (require.main === module) console.log(table());
module.exports = { table };

#!/usr/bin/env node
'use strict';
/**
 * Prints the trigger table of docs/sandbox.md (Markdown) from `triggers`, so the table cannot drift from
 * what the sandbox answers and what the tests send:
 *
 *   node sandbox/print-triggers.js            # the table
 *   node sandbox/print-triggers.js --check    # exit 1 when docs/sandbox.md does not carry it verbatim
 *
 * Incident windows are relative to the day the request is sent; they print as
 * `<today-N> hh:mm:ss` (N days before today, UTC).
 */
const fs = require('node:fs');
const path = require('node:path');

const { seed } = require('./seed');
const { triggers } = require('./triggers');

const DAY = 86400000;
/** The page that carries the table. */
const PAGE = path.join(__dirname, '..', 'docs', 'sandbox.md');

/** A date of the last 120 days as `<today-N>`, anything else unchanged. */
function relative(value) {
	return String(value).replace(/\b(\d{4}-\d{2}-\d{2})(?= \d{2}:\d{2}:\d{2})/g, (date) => {
		const days = Math.round(
			(Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`) -
				Date.parse(`${date}T00:00:00Z`)) /
				DAY,
		);
		return days >= 0 && days <= 120 ? `<today-${days}>` : date;
	});
}

const cell = (text) => String(text).replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (text) => `\`${cell(text)}\``;
/** Outside code spans, `<...>` would read as an HTML tag. */
const prose = (text) => cell(text).replace(/</g, '&lt;').replace(/>/g, '&gt;');

function describe(request, operation) {
	const parts = [];
	const query =
		request.query && Object.keys(request.query).length
			? `?${Object.entries(request.query)
					.map(([key, value]) => `${key}=${relative(value)}`)
					.join('&')}`
			: '';
	parts.push(code(`${request.method} ${request.path}${query}`));
	if (request.body !== undefined) parts.push(`body ${code(JSON.stringify(request.body))}`);
	if (operation !== 'generateToken') {
		if (request.token === null) parts.push('**no Authorization header**');
		else if (request.token !== undefined && request.token !== seed.credentials.accessToken)
			parts.push(`token ${code(request.token)}`);
	}
	if (request.headers) {
		const own = Object.entries(request.headers).filter(
			([key, value]) =>
				!(
					operation === 'generateToken' &&
					seed.credentials[
						{
							'x-client-id': 'clientId',
							'x-client-secret': 'clientSecret',
							'x-api-version': 'apiVersion',
						}[key]
					] === value
				),
		);
		for (const [key, value] of own) parts.push(`header ${code(`${key}: ${value}`)}`);
	}
	return parts.join(', ');
}

function table() {
	const lines = [
		'| Row | Operation | subCode | status | Message the sandbox answers | Request (after reset) |',
		'|---|---|---|---|---|---|',
	];
	for (const row of triggers) {
		lines.push(
			`| ${row.id} | ${row.operation} | ${row.subCode} | ${row.status} | ${prose(row.message)} | ${describe(row.request, row.operation)} |`,
		);
	}
	return `${lines.join('\n')}\n`;
}

if (require.main === module) {
	const output = table();
	if (process.argv.includes('--check')) {
		const page = fs.readFileSync(PAGE, 'utf8');
		if (!page.includes(output)) {
			console.error(
				'docs/sandbox.md does not carry the current trigger table: run `node sandbox/print-triggers.js` and paste it under "Trigger table".',
			);
			process.exit(1);
		}
	} else {
		process.stdout.write(output);
	}
}

module.exports = { PAGE, table };

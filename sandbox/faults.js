'use strict';
/**
 * Fault injection: what a real network and a real service sometimes do. A fault is chosen per
 * request by the header `x-sandbox-fault: <kind>[;latencyMs=N]`, or by a rule of the run's
 * configuration: `{ match?: { method, path, transferId, beneId, paylinkId }, fault, times?,
 * latencyMs?, latencyJitterMs?, status?, body?, contentType? }`. The first matching rule applies;
 * `times` uses it up.
 */
const { error } = require('./service');

function parseHeader(value) {
	const [fault, ...settings] = String(value).split(';').map((part) => part.trim());
	const rule = { fault };
	for (const setting of settings) {
		const [key, raw] = setting.split('=');
		rule[key] = Number.isNaN(Number(raw)) ? raw : Number(raw);
	}
	return rule;
}

function matches(rule, entry) {
	const match = rule.match ?? {};
	const body = entry.body && typeof entry.body === 'object' ? entry.body : {};
	const beneId = body.beneId ?? (entry.path.match(/getBeneficiary\/([^/]+)$/) ?? [])[1];
	return (
		(match.method === undefined || match.method === entry.method) &&
		(match.path === undefined || entry.path === match.path) &&
		(match.transferId === undefined || body.transferId === match.transferId) &&
		(match.beneId === undefined || beneId === match.beneId) &&
		(match.paylinkId === undefined || entry.query.paylinkId === match.paylinkId)
	);
}

/** The fault for this request, if any; a rule with `times` is used up as it applies. */
function faultFor(config, header, entry) {
	if (header) return parseHeader(header);
	const rule = config.faults.find((candidate) => (candidate.times === undefined || candidate.times > 0) && matches(candidate, entry));
	if (rule && rule.times !== undefined) rule.times -= 1;
	return rule;
}

function destroy(response) {
	response.hijack();
	response.raw.socket?.destroy();
}

const FAULTS = {
	/** The connection drops before the service does anything. */
	'drop-before': ({ response }) => destroy(response),
	/** The service does everything (money moves), then the connection drops: no answer. */
	'drop-after': ({ response, processRequest }) => {
		processRequest();
		destroy(response);
	},
	/** A proxy's error page: nothing processed. */
	'html-500': ({ response, reply, fault }) => {
		const status = [500, 502, 503].includes(fault.status) ? fault.status : 502;
		const title = `${status} ${{ 500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable' }[status]}`;
		return reply(response, { httpStatus: status, contentType: 'text/html', body: `<html><head><title>${title}</title></head><body><h1>${title}</h1><p>upstream unavailable</p></body></html>` });
	},
	/** The service's own "unknown error": nothing processed. */
	'error-520': ({ response, envelopeReply }) => envelopeReply(response, error('520', 'Unknown error occurred')),
	/** Processed, but the answer's JSON breaks off. */
	'malformed-json': ({ response, processRequest, reply }) => {
		const result = processRequest();
		const text = JSON.stringify(result.envelope ?? result.raw.body);
		reply(response, { httpStatus: 200, body: text.slice(0, Math.floor(text.length / 2)) });
	},
	/** Processed, then headers and half the body, then nothing until the client gives up. */
	stall: ({ response, processRequest }) => {
		const result = processRequest();
		const text = JSON.stringify(result.envelope ?? result.raw.body);
		response.hijack();
		response.raw.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
		response.raw.write(text.slice(0, Math.floor(text.length / 2)));
	},
	/** Processed, then HTTP 200 with an empty body. */
	'empty-body': ({ response, processRequest, reply }) => {
		processRequest();
		reply(response, { httpStatus: 200, body: '' });
	},
	/** A given answer, for tests that need one exact answer: nothing processed. */
	replay: ({ response, reply, fault }) => reply(response, { httpStatus: fault.status ?? 200, body: fault.body ?? '', contentType: fault.contentType ?? 'application/json' }),
};

module.exports = { faultFor, FAULTS };

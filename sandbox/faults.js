'use strict';
/**
 * Fault injection: what a real network and a real service sometimes do. A fault is chosen per
 * request by the header `x-sandbox-fault: <kind>[;latencyMs=N]`, or by a rule of the run's
 * configuration: `{ match?: { method, path, transferId, beneId, paylinkId }, fault, times?,
 * latencyMs?, latencyJitterMs?, status?, body?, contentType? }`. The first matching rule applies;
 * `times` uses it up.
 */
const { error, messages } = require('./service');

/** The money-moving requests: the ones chaos draws faults for. */
const TRANSFER_PATHS = [
	'/payout/v1/cardpay',
	'/payout/v1.2/requestTransfer',
	'/payout/v1/internalTransfer',
];
/** What a chaos run can inject, each as a fault below (no-bank-response: standard transfers only, the one row the document has for it). */
const CHAOS_KINDS = {
	'drop-before': { fault: 'drop-before' },
	'drop-after': { fault: 'drop-after' },
	'html-502': { fault: 'html-500', status: 502 },
	'error-500': { fault: 'error-500' },
	'error-520': { fault: 'error-520' },
	'no-bank-response': { fault: 'no-bank-response' },
};

/** mulberry32: a small seeded generator, so that one seed draws one sequence of faults. */
function seededRandom(seed) {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** Checks a chaos setting `{ seed, rate, kinds? }` and gives its draw: (entry) => fault or undefined. */
function chaosDraw(chaos) {
	if (!chaos || typeof chaos !== 'object') throw new Error('chaos is { seed, rate, kinds? }');
	if (!Number.isInteger(chaos.seed)) throw new Error('chaos.seed must be an integer');
	if (!(Number.isFinite(chaos.rate) && chaos.rate >= 0 && chaos.rate <= 1))
		throw new Error(
			'chaos.rate must be a number from 0 to 1 (the share of transfer requests that meet a fault)',
		);
	const kinds = chaos.kinds ?? Object.keys(CHAOS_KINDS);
	for (const kind of kinds)
		if (!CHAOS_KINDS[kind])
			throw new Error(`unknown chaos kind ${kind}; known: ${Object.keys(CHAOS_KINDS).join(', ')}`);
	const random = seededRandom(chaos.seed);
	return (entry) => {
		if (entry.method !== 'POST' || !TRANSFER_PATHS.includes(entry.path)) return undefined;
		const [hit, pick, books] = [random(), random(), random()];
		if (hit >= chaos.rate) return undefined;
		const eligible = kinds.filter(
			(kind) => kind !== 'no-bank-response' || entry.path === '/payout/v1.2/requestTransfer',
		);
		if (!eligible.length) return undefined;
		const kind = eligible[Math.floor(pick * eligible.length)];
		return { ...CHAOS_KINDS[kind], kind, books: books < 0.5 };
	};
}

function parseHeader(value) {
	const [fault, ...settings] = String(value)
		.split(';')
		.map((part) => part.trim());
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
	const rule = config.faults.find(
		(candidate) =>
			(candidate.times === undefined || candidate.times > 0) && matches(candidate, entry),
	);
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
		return reply(response, {
			httpStatus: status,
			contentType: 'text/html',
			body: `<html><head><title>${title}</title></head><body><h1>${title}</h1><p>upstream unavailable</p></body></html>`,
		});
	},
	/** A JSON 500 from the service: nothing processed. */
	'error-500': ({ response, envelopeReply }) =>
		envelopeReply(response, error('500', 'Internal server error')),
	/** 201 ERROR "no response from bank": the service may or may not have booked it (`books`, default yes). */
	'no-bank-response': ({ response, processRequest, envelopeReply, fault }) => {
		if (fault.books !== false) processRequest();
		envelopeReply(response, error('201', messages.noBankResponse));
	},
	/** The service's own "unknown error": nothing processed. */
	'error-520': ({ response, envelopeReply }) =>
		envelopeReply(response, error('520', 'Unknown error occurred')),
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
		response.raw.writeHead(200, {
			'content-type': 'application/json',
			'content-length': Buffer.byteLength(text),
		});
		response.raw.write(text.slice(0, Math.floor(text.length / 2)));
	},
	/** Processed, then HTTP 200 with an empty body. */
	'empty-body': ({ response, processRequest, reply }) => {
		processRequest();
		reply(response, { httpStatus: 200, body: '' });
	},
	/** A given answer, for tests that need one exact answer: nothing processed. */
	replay: ({ response, reply, fault }) =>
		reply(response, {
			httpStatus: fault.status ?? 200,
			body: fault.body ?? '',
			contentType: fault.contentType ?? 'application/json',
		}),
};

module.exports = { faultFor, FAULTS, chaosDraw, CHAOS_KINDS, seededRandom };

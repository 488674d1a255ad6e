'use strict';
/**
 * A local stand-in for the payouts service: a real HTTP server (fastify) that behaves as
 * the interface document describes, with seeded state, fault injection and an inspection
 * interface for tests. It is written from the document alone and never imports the nodes,
 * so it can catch their mistakes.
 *
 *   const sandbox = await startSandbox({ port: 0 });
 *   sandbox.baseUrl, sandbox.requests(), sandbox.reset(), await sandbox.close()
 */
const Fastify = require('fastify');
const { DateTime } = require('luxon');

const { faultFor, FAULTS, chaosDraw } = require('./faults');
const { seed, seededState, BANKS } = require('./seed');
const { operations, ownMessages, error } = require('./service');
const { triggers } = require('./triggers');

const BODY_LIMIT = 1024 * 1024;
const HTTP_STYLES = ['mirror', 'always200'];
const INTERNAL_DUPLICATES = ['refuse', 'book'];

/**
 * @param {object} [options]
 * @param {number} [options.port] 0 (default) picks a free port
 * @param {string} [options.host] default 127.0.0.1
 * @param {'mirror'|'always200'} [options.httpStyle] mirror: HTTP status = subCode (default); always200: every answer HTTP 200
 * @param {number} [options.latencyMs] added to every request
 * @param {number} [options.latencyJitterMs] plus a random 0..jitter
 * @param {string} [options.timezone] the zone the service reads incident windows
 *   (`yyyy-mm-dd hh:mm:ss`) in, which the document does not name: an IANA zone such as
 *   Asia/Kolkata or a fixed offset such as UTC+5:30 or UTC-8; default UTC
 * @param {Array} [options.faults] fault rules, see faults.js
 * @param {{seed: number, rate: number, kinds?: string[]}} [options.chaos] seeded random faults on
 *   transfer requests for a whole run (`npm run chaos`): each meets one with probability `rate`,
 *   of `kinds` (default all of faults.js's CHAOS_KINDS); counted in the state's `faultsInjected`
 * @param {'refuse'|'book'} [options.internalDuplicates] what a second internal transfer with a used
 *   transferId gets; the document does not say (refuse: "Transfer Id already exists", the default;
 *   book: it moves money again, the worst case a client must survive)
 * @param {boolean} [options.logger] fastify's request log
 */
async function startSandbox(options = {}) {
	const initial = {
		httpStyle: options.httpStyle ?? 'mirror',
		latencyMs: options.latencyMs ?? 0,
		latencyJitterMs: options.latencyJitterMs ?? 0,
		faults: options.faults ?? [],
		internalDuplicates: options.internalDuplicates ?? 'refuse',
		timezone: options.timezone ?? 'UTC',
		chaos: options.chaos ?? null,
	};
	checkTimezone(initial.timezone);
	if (!INTERNAL_DUPLICATES.includes(initial.internalDuplicates))
		throw new Error(`internalDuplicates must be one of ${INTERNAL_DUPLICATES.join(', ')}`);
	if (!HTTP_STYLES.includes(initial.httpStyle))
		throw new Error(`httpStyle must be one of ${HTTP_STYLES.join(', ')}`);
	let config = structuredClone(initial);
	let state = seededState();
	let log = [];
	let inFlight = 0;
	let maxInFlight = 0;
	let drawChaos = initial.chaos ? chaosDraw(initial.chaos) : () => undefined;
	let faultsInjected = {};

	// Ids in paths have no length limit in the document: fastify's default of 100 characters would answer 414.
	const app = Fastify({
		logger: options.logger ?? false,
		bodyLimit: BODY_LIMIT,
		forceCloseConnections: true,
		routerOptions: { maxParamLength: 10000 },
	});

	// Every body is read as text and parsed here, whatever its declared content type, so that a
	// body that is not JSON gets the service's envelope instead of a framework error.
	app.removeAllContentTypeParsers();
	app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

	const reply = (response, { httpStatus, body, contentType = 'application/json' }) =>
		response
			.code(httpStatus)
			.header('content-type', contentType)
			.send(typeof body === 'string' ? body : JSON.stringify(body));

	const envelopeReply = (response, answer) => {
		const { contentType, ...envelope } = answer;
		const httpStatus = config.httpStyle === 'always200' ? 200 : Number(envelope.subCode);
		return reply(response, {
			httpStatus,
			body: envelope,
			contentType: contentType ?? 'application/json',
		});
	};

	app.setErrorHandler((failure, _request, response) => {
		const tooLarge = failure.code === 'FST_ERR_CTP_BODY_TOO_LARGE';
		if (tooLarge || String(failure.code ?? '').startsWith('FST_ERR_CTP'))
			return envelopeReply(
				response,
				error('422', tooLarge ? ownMessages.tooLarge : ownMessages.badJson),
			);
		// Anything else is a fault of the sandbox itself: say so instead of blaming the request.
		return reply(response, {
			httpStatus: 500,
			body: {
				status: 'ERROR',
				subCode: '500',
				message: `Sandbox internal error: ${failure.message}`,
			},
		});
	});
	app.setNotFoundHandler((_request, response) =>
		response.code(404).header('content-type', 'text/plain').send('Not Found'),
	);

	/** The control interface for tests and demos (not part of the service). */
	app.get('/__sandbox/requests', async () => log);
	app.delete('/__sandbox/requests', async () => {
		log = [];
		return { cleared: true };
	});
	app.post('/__sandbox/reset', async () => {
		reset();
		return { reset: true };
	});
	app.post('/__sandbox/config', async (request, response) => {
		try {
			configure(JSON.parse(request.body || '{}'));
		} catch (failure) {
			return response.code(400).send({ error: failure.message });
		}
		return config;
	});
	app.get('/__sandbox/state', async () => snapshot());
	// The payouts dashboard's transfer export stands here: not the real service's format (not shown).
	app.get('/__sandbox/dashboard.csv', async (_request, response) =>
		response.header('content-type', 'text/csv').send(dashboardCsv()),
	);
	app.post('/__sandbox/incidents', async (request, response) => {
		try {
			return openIncident(JSON.parse(request.body || '{}'));
		} catch (failure) {
			return response.code(400).send({ error: failure.message });
		}
	});
	app.post('/__sandbox/paylinks', async (request, response) => {
		try {
			return setPaylink(JSON.parse(request.body || '{}'));
		} catch (failure) {
			return response.code(400).send({ error: failure.message });
		}
	});
	app.post('/__sandbox/oauth/consent', async (request, response) => {
		try {
			return consent(JSON.parse(request.body || '{}'));
		} catch (failure) {
			return response.code(400).send({ error: failure.message });
		}
	});
	app.post('/__sandbox/incidents/resolve', async (request, response) => {
		try {
			return resolveIncidents(JSON.parse(request.body || '{}'));
		} catch (failure) {
			return response.code(400).send({ error: failure.message });
		}
	});

	for (const operation of operations) {
		app.route({
			method: operation.method,
			url: operation.path,
			handler: async (request, response) => {
				inFlight++;
				maxInFlight = Math.max(maxInFlight, inFlight);
				try {
					return await serve(operation, request, response);
				} finally {
					inFlight--;
				}
			},
		});
	}

	async function serve(operation, request, response) {
		let body = {};
		let parseFailure;
		if (typeof request.body === 'string' && request.body.trim() !== '') {
			try {
				body = JSON.parse(request.body);
			} catch {
				parseFailure = ownMessages.badJson;
			}
			if (!parseFailure && (body === null || typeof body !== 'object' || Array.isArray(body)))
				parseFailure = ownMessages.notAnObject;
		}
		const entry = {
			method: request.method,
			path: request.url.split('?')[0],
			query: { ...request.query },
			headers: { ...request.headers },
			body: parseFailure ? request.body : body,
			time: Date.now(),
		};
		log.push(entry);

		const fault = faultFor(config, request.headers['x-sandbox-fault'], entry) ?? drawChaos(entry);
		if (fault?.kind) faultsInjected[fault.kind] = (faultsInjected[fault.kind] ?? 0) + 1;
		const latency =
			(fault?.fault === 'latency' ? (fault.latencyMs ?? 0) : 0) +
			config.latencyMs +
			Math.random() *
				((fault?.fault === 'latency' ? fault.latencyJitterMs : 0) || config.latencyJitterMs || 0);
		if (latency > 0) await new Promise((resolve) => setTimeout(resolve, latency));

		const processRequest = () => {
			if (parseFailure) return { envelope: error('422', parseFailure) };
			const answer = operation.handler(state, {
				body,
				headers: request.headers,
				query: request.query,
				params: request.params,
				now: Date.now(),
				timezone: config.timezone,
				internalDuplicates: config.internalDuplicates,
			});
			return answer.httpStatus ? { raw: answer } : { envelope: answer };
		};
		const send = (result) => {
			if (result.envelope) return envelopeReply(response, result.envelope);
			const { httpStatus, body: rawBody } = result.raw;
			return reply(response, {
				httpStatus: config.httpStyle === 'always200' ? 200 : httpStatus,
				body: rawBody,
			});
		};
		if (!fault || fault.fault === 'latency') return send(processRequest());
		if (!FAULTS[fault.fault])
			return envelopeReply(
				response,
				error(
					'422',
					`${ownMessages.unknownFault}: ${fault.fault} (known: latency, ${Object.keys(FAULTS).join(', ')})`,
				),
			);
		return FAULTS[fault.fault]({ response, processRequest, send, reply, envelopeReply, fault });
	}

	function reset() {
		state = seededState();
		config = structuredClone(initial);
		log = [];
		maxInFlight = 0;
		drawChaos = config.chaos ? chaosDraw(config.chaos) : () => undefined;
		faultsInjected = {};
	}

	/** Checked before anything changes: a bad change leaves the configuration as it was. */
	function configure(change = {}) {
		if (change === null || typeof change !== 'object')
			throw new Error(
				'configure takes an object { httpStyle, faults, latencyMs, latencyJitterMs, internalDuplicates, timezone, chaos }',
			);
		if (change.httpStyle !== undefined && !HTTP_STYLES.includes(change.httpStyle))
			throw new Error(`httpStyle must be one of ${HTTP_STYLES.join(', ')}`);
		if (
			change.internalDuplicates !== undefined &&
			!INTERNAL_DUPLICATES.includes(change.internalDuplicates)
		)
			throw new Error(`internalDuplicates must be one of ${INTERNAL_DUPLICATES.join(', ')}`);
		if (change.timezone !== undefined) checkTimezone(change.timezone);
		if (change.faults !== undefined && !Array.isArray(change.faults))
			throw new Error('faults must be an array of rules');
		for (const fault of change.faults ?? []) {
			if (!fault || (!(fault.fault in FAULTS) && fault.fault !== 'latency'))
				throw new Error(
					`unknown fault ${fault?.fault}; known: latency, ${Object.keys(FAULTS).join(', ')}`,
				);
		}
		for (const key of ['latencyMs', 'latencyJitterMs']) {
			if (change[key] !== undefined && !(Number.isFinite(change[key]) && change[key] >= 0))
				throw new Error(`${key} must be a number of milliseconds`);
		}
		const nextDraw =
			change.chaos === undefined
				? drawChaos
				: change.chaos === null
					? () => undefined
					: chaosDraw(change.chaos);
		const { httpStyle, faults, latencyMs, latencyJitterMs, internalDuplicates, timezone, chaos } =
			structuredClone(change);
		const known = Object.fromEntries(
			Object.entries({
				httpStyle,
				faults,
				latencyMs,
				latencyJitterMs,
				internalDuplicates,
				timezone,
				chaos,
			}).filter(([, value]) => value !== undefined),
		);
		config = { ...config, ...known };
		drawChaos = nextDraw;
	}

	/** An incident created now, open unless said otherwise; a known bank code gets its bank's name. */
	function openIncident(fields = {}) {
		if (fields === null || typeof fields !== 'object' || Array.isArray(fields))
			throw new Error(
				'an incident is a JSON object of Incident fields, e.g. { "entityCode": "HDFC", "mode": "IMPS" }',
			);
		const id = Math.max(0, ...state.incidents.map((incident) => incident.id)) + 1;
		const bank = BANKS.find(([code]) => code === fields.entityCode);
		const incident = {
			id,
			type: 'BENEFICIARY',
			entity: 'BANK',
			mode: 'IMPS',
			createdAt: new Date().toISOString(),
			resolvedAt: '',
			isScheduled: false,
			isResolved: false,
			impact: 'LOW',
			entityName: bank ? bank[1] : 'Bank X',
			entityCode: 'BANKX',
			...fields,
		};
		state.incidents.push(incident);
		return { ...incident };
	}

	/** Resolves now the open incidents chosen by id, or by entityCode and mode (both given): the list resolved. */
	function resolveIncidents({ id, entityCode, mode } = {}) {
		if (id === undefined && (entityCode === undefined || mode === undefined))
			throw new Error(
				'name the incident: { "id": 1000 } or { "entityCode": "HDFC", "mode": "IMPS" }',
			);
		const chosen = state.incidents.filter(
			(incident) =>
				!incident.isResolved &&
				(id !== undefined
					? incident.id === id
					: incident.entityCode === entityCode && incident.mode === mode),
		);
		if (id !== undefined && chosen.length === 0) throw new Error(`no open incident ${id}`);
		for (const incident of chosen)
			Object.assign(incident, { isResolved: true, resolvedAt: new Date().toISOString() });
		return chosen.map((incident) => ({ ...incident }));
	}

	/**
	 * A user's consent in the one-click flow, as the service's initiate-OAuth request and its SDK give
	 * it (neither is in the service's documentation): a fresh authorisation code whose token answer
	 * carries the verification id the flow was started with. Single use, like the seeded codes.
	 */
	function consent(fields = {}) {
		if (
			fields === null ||
			typeof fields !== 'object' ||
			typeof fields.verificationId !== 'string' ||
			fields.verificationId === ''
		) {
			throw new Error(
				'name the verification: { "verificationId": "the id the flow was started with" }',
			);
		}
		const authCode = `CONSENT_CODE_${state.consents.size + 1}`;
		state.consents.set(authCode, fields.verificationId);
		return { authCode, verificationId: fields.verificationId };
	}

	/**
	 * Sets a paylink's fields now (a paylink paid or expired by its recipient, or a new one): its
	 * status and link change as the service's would; an unknown id creates the paylink.
	 */
	function setPaylink(fields = {}) {
		if (
			fields === null ||
			typeof fields !== 'object' ||
			Array.isArray(fields) ||
			typeof fields.paylinkId !== 'string' ||
			fields.paylinkId === ''
		) {
			throw new Error(
				'name the paylink: { "paylinkId": "PAYLINK_ACTIVE_1", "paylinkStatus": "PAID" }',
			);
		}
		const existing = state.paylinks[fields.paylinkId];
		const referenceId =
			existing?.referenceId ??
			Math.max(880000, ...Object.values(state.paylinks).map((paylink) => paylink.referenceId)) + 1;
		const paylink = {
			paylinkStatus: 'ACTIVE',
			paylinkLink: `https://payouts.example.com/paylink/${fields.paylinkId.toLowerCase()}`,
			...existing,
			...fields,
			referenceId,
		};
		state.paylinks[fields.paylinkId] = paylink;
		return { ...paylink };
	}

	/**
	 * The transfers the service booked, as a dashboard's CSV export lists them: one line each, a
	 * header, commas inside a field quoted. A transfer whose bank did not answer is PENDING there.
	 */
	function dashboardCsv() {
		const quoted = (value) =>
			/[",\r\n]/.test(String(value)) ? `"${String(value).replace(/"/g, '""')}"` : String(value);
		const lines = state.transfers.map((transfer) =>
			[
				transfer.transferId,
				transfer.status === 'UNKNOWN' ? 'PENDING' : transfer.status,
				transfer.amount.toFixed(2),
				transfer.referenceId,
				transfer.operation,
				transfer.beneId ?? transfer.rechargeAccount ?? 'card',
			]
				.map(quoted)
				.join(','),
		);
		return ['Transfer ID,Status,Amount,Reference ID,Type,Payee', ...lines].join('\r\n');
	}

	function snapshot() {
		return {
			balances: Object.fromEntries(
				Object.values(state.accounts).map((account) => [account.name, account.balance / 100]),
			),
			rechargeBalances: Object.fromEntries(
				Object.entries(state.rechargeAccounts).map(([id, account]) => [id, account.balance / 100]),
			),
			transfers: state.transfers.map((transfer) => ({ ...transfer })),
			count: state.transfers.length,
			usedAuthCodes: [...state.usedAuthCodes],
			inFlight,
			maxInFlight,
			faultsInjected: { ...faultsInjected },
		};
	}

	await app.listen({ port: options.port ?? 0, host: options.host ?? '127.0.0.1' });
	const { port } = app.server.address();
	const host = options.host ?? '127.0.0.1';
	const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

	return {
		baseUrl,
		verificationUrl: baseUrl,
		port,
		requests: () => log.map((entry) => structuredClone(entry)),
		/** How many requests the log holds, without copying them (a long run polls it). */
		requestCount: () => log.length,
		clearRequests: () => {
			log = [];
		},
		reset,
		configure,
		state: snapshot,
		/** The dashboard's CSV export of booked transfers (also GET /__sandbox/dashboard.csv). */
		dashboardCsv,
		/** Opens an incident created now: `{ entityCode, mode, impact, isScheduled, ... }` (also POST /__sandbox/incidents). */
		openIncident,
		/** The same, under the name the trigger's tests use. */
		addIncident: openIncident,
		/** Resolves open incidents now, by `{ id }` or `{ entityCode, mode }` (also POST /__sandbox/incidents/resolve). */
		resolveIncidents,
		/** Sets a paylink's status (or creates it): `{ paylinkId, paylinkStatus }` (also POST /__sandbox/paylinks). */
		setPaylink,
		/** A user's consent to a flow started with `{ verificationId }`: a fresh single-use auth code (also POST /__sandbox/oauth/consent). */
		consent,
		/** Marks one incident resolved now. */
		resolveIncident(id) {
			const incident = state.incidents.find((candidate) => candidate.id === id);
			if (!incident) throw new Error(`no incident ${id}`);
			Object.assign(incident, { isResolved: true, resolvedAt: new Date().toISOString() });
			return { ...incident };
		},
		close: async () => {
			app.server.closeAllConnections?.();
			await app.close();
		},
	};
}

/** A zone luxon knows (IANA name or fixed offset such as UTC+5:30), else a clear error. */
function checkTimezone(timezone) {
	if (typeof timezone !== 'string' || !DateTime.now().setZone(timezone).isValid)
		throw new Error(
			`timezone must be an IANA zone (e.g. Asia/Kolkata) or a fixed offset (e.g. UTC+5:30, UTC-8); got ${JSON.stringify(timezone)}`,
		);
}

module.exports = { startSandbox, seed, triggers };

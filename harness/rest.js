'use strict';
/** n8n's REST API as the owner: a client, a production webhook waited for, executions stopped. */
const { sleep } = require('./common');
const { NOT_MOUNTED, STARTING_UP, ensureOwner, sessionRefused, waitFor } = require('./server');

/** A network failure (the connection refused, reset or dropped), as opposed to an answer. */
function networkError(error) {
	return error instanceof TypeError && /fetch failed/.test(error.message);
}

/**
 * Signs in as the owner (setting the instance up if it is new) and gives a client of n8n's REST API:
 * `rest(method, route, body)` gives the answer's `data`. Asked again, for at most
 * `notReadySeconds` (60 s): a route not mounted yet (HTTP 404 with Express's "Cannot <METHOD>
 * <route>", never n8n's own 404 for a missing workflow or execution), an instance starting up,
 * and for GET a dropped connection. A session the instance stops accepting (`sessionRefused`) is
 * renewed by signing in again, once per request and said on the console; any other failure is
 * thrown with its method, route, status and n8n's message.
 * `rest.url` is the instance, `rest.cookie()` the session.
 */
async function restClient(url, { cookie: given, notReadySeconds = 60 } = {}) {
	let cookie = given ?? (await ensureOwner(url));
	async function rest(method, route, body) {
		let renewed = false;
		const deadline = Date.now() + notReadySeconds * 1000;
		for (;;) {
			let response;
			try {
				response = await fetch(`${url}/rest${route}`, {
					method,
					headers: { cookie, 'content-type': 'application/json' },
					body: body === undefined ? undefined : JSON.stringify(body),
				});
			} catch (error) {
				if (method === 'GET' && networkError(error) && Date.now() < deadline) {
					await sleep(500);
					continue;
				}
				throw new Error(
					`${method} ${route}: ${error.message}${error.cause ? ` (${error.cause.code ?? error.cause.message})` : ''}`,
				);
			}
			const text = await response.text();
			const refused = sessionRefused(response, text);
			if (refused && !renewed) {
				console.warn(
					`n8n refused the session on ${method} ${route} (${refused}): signing in again`,
				);
				cookie = await ensureOwner(url);
				renewed = true;
				continue;
			}
			if (response.ok) return text ? JSON.parse(text).data : undefined;
			const notReady =
				(response.status === 404 && NOT_MOUNTED.test(text)) || STARTING_UP.test(text);
			if (!notReady || Date.now() > deadline)
				throw new Error(`${method} ${route}: HTTP ${response.status} ${text.slice(0, 500)}`);
			await sleep(500);
		}
	}
	rest.url = url;
	rest.cookie = () => cookie;
	return rest;
}

/**
 * Waits until n8n has registered the production webhook `path` for `method` (its workflow is
 * active), by asking as a browser's CORS preflight does: `OPTIONS /webhook/<path>` with an Origin
 * answers the methods registered for the path in `Access-Control-Allow-Methods` and runs nothing.
 */
async function waitForWebhook(url, path_, { method = 'POST', timeoutSeconds = 60, child } = {}) {
	const route = `${url}/webhook/${path_.replace(/^\//, '')}`;
	let last = '';
	await waitFor(
		`the production webhook ${method} /webhook/${path_}`,
		async () => {
			const response = await fetch(route, {
				method: 'OPTIONS',
				headers: { origin: url, 'access-control-request-method': method },
			});
			const allowed = (response.headers.get('access-control-allow-methods') ?? '')
				.split(',')
				.map((entry) => entry.trim());
			last = `HTTP ${response.status}, allowed: ${allowed.join(', ') || 'none'}`;
			await response.arrayBuffer();
			return allowed.includes(method);
		},
		{ timeoutSeconds, child },
	).catch((error) => {
		throw new Error(`${error.message} (${last})`);
	});
}

/** What n8n has not finished: queued (new), running, waiting (a Wait node, a webhook to come back). */
const UNFINISHED = ['new', 'running', 'waiting'];

/** The executions n8n has not finished: [{ id, workflowId, mode, status }]. */
async function unfinishedExecutions(rest) {
	const filter = encodeURIComponent(JSON.stringify({ status: UNFINISHED }));
	const page = await rest('GET', `/executions?filter=${filter}&limit=100`);
	const results = Array.isArray(page) ? page : (page?.results ?? []);
	return results
		.filter((execution) => UNFINISHED.includes(execution.status))
		.map(({ id, workflowId, mode, status }) => ({ id: String(id), workflowId, mode, status }));
}

/**
 * Stops every execution n8n has not finished and waits until n8n lists none, then (with `idle`)
 * until `idle()` says the service saw the end: call it before resetting the sandbox between tests
 * that pay. Returns the executions it stopped (each `{ id, workflowId, mode, status }`), to say so
 * in a test's log. What n8n can tell: its record of the execution (`POST /rest/executions/<id>/stop`
 * marks it canceled at once). What it cannot: a node still inside its `execute()` after the stop
 * (n8n cancels between nodes, and aborts the node's requests only where the node passes n8n's
 * cancel signal on), so a test that stops a paying run gives `idle` (e.g. the sandbox has no
 * request in flight), and in queue mode uses `queue.settle(stack)`, which also waits for the
 * job queue.
 */
async function stopRunningExecutions(rest, { timeoutSeconds = 120, idle } = {}) {
	const stopped = new Map();
	await waitFor(
		'n8n to finish or stop every execution',
		async () => {
			const running = await unfinishedExecutions(rest);
			if (!running.length) return true;
			for (const execution of running) {
				if (stopped.has(execution.id)) continue;
				stopped.set(execution.id, execution);
				await rest('POST', `/executions/${execution.id}/stop`).catch((error) => {
					// Finished between the listing and the stop: nothing left to stop.
					if (
						!/not found|Only running or waiting executions can be stopped|could not be found/i.test(
							error.message,
						)
					)
						throw error;
				});
			}
			return false;
		},
		{ timeoutSeconds, intervalMs: 300 },
	);
	if (idle)
		await waitFor('the service to see the stopped executions end', idle, {
			timeoutSeconds,
			intervalMs: 100,
		});
	return [...stopped.values()];
}

module.exports = { restClient, waitForWebhook, unfinishedExecutions, stopRunningExecutions };

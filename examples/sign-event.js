#!/usr/bin/env node
'use strict';
/**
 * Signs an event for the event templates (examples/event-payout.json, examples/queue-claim-payout.json;
 * docs/examples.md, "Signed events"). Node 18 or later, nothing to install.
 *
 * The signature is a JWT (HS256: HMAC-SHA256 with the shared secret) whose claims are the time it
 * was made (`iat`), its end five minutes later (`exp`), the SHA-256 of the exact body sent
 * (`body_sha256`) and the webhook it is for (`aud`: the path of the URL it is sent to, e.g.
 * `/webhook/payouts-event`). n8n's Webhook node checks the signature and the end (JWT Auth,
 * credential "Payouts Event Signing"); the template checks the body's digest, that `iat` is at most
 * five minutes old and that `aud` names this very webhook, so a token made for one workflow opens no
 * other. Send the body byte for byte as signed, to the URL signed for.
 *
 *   PAYOUTS_SIGNING_SECRET=<secret> node examples/sign-event.js <webhook URL> '<body>'    prints the Authorization header's value
 *
 * From code: `const { signEvent } = require('./sign-event.js'); const { headers, body } = signEvent(url, event, secret);`
 */
const crypto = require('node:crypto');

/** How long a signature is good for, in seconds: the templates refuse anything signed longer ago. */
const LIFETIME_SECONDS = 300;

const base64url = (value) =>
	Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/**
 * The audience of a token for `url`: its path (`/webhook/<path>`), as the template reads it from the
 * Production (or Test) URL n8n shows for its webhook. The host is left out: a proxy may name it otherwise.
 */
function audienceOf(url) {
	let parsed;
	try {
		parsed = new URL(url);
	} catch {
		throw new Error(
			`Not a webhook URL: ${JSON.stringify(url)} (give the Production URL of the workflow's webhook, e.g. https://n8n.example.com/webhook/…)`,
		);
	}
	return parsed.pathname;
}

/**
 * The token for `body` (an object, sent as its JSON, or the exact text to send) sent to `url`:
 * `Bearer <token>` goes in the Authorization header. `now` (milliseconds) is for tests of stale
 * signatures; `audience` replaces the one made of `url` (tests of a token made for another webhook).
 */
function signature(
	url,
	body,
	secret,
	{ now = Date.now(), lifetimeSeconds = LIFETIME_SECONDS, audience = audienceOf(url) } = {},
) {
	if (!secret)
		throw new Error(
			'No signing secret: set PAYOUTS_SIGNING_SECRET to the secret of the credential "Payouts Event Signing"',
		);
	const text = typeof body === 'string' ? body : JSON.stringify(body);
	const iat = Math.floor(now / 1000);
	const claims = {
		iat,
		exp: iat + lifetimeSeconds,
		aud: audience,
		body_sha256: crypto.createHash('sha256').update(text, 'utf8').digest('hex'),
	};
	const unsigned = `${base64url({ alg: 'HS256', typ: 'JWT' })}.${base64url(claims)}`;
	return `${unsigned}.${crypto.createHmac('sha256', secret).update(unsigned).digest('base64url')}`;
}

/** The request to send to `url`: the body as text and its headers (content type and the signature). */
function signEvent(url, body, secret, options) {
	const text = typeof body === 'string' ? body : JSON.stringify(body);
	return {
		body: text,
		headers: {
			'content-type': 'application/json',
			authorization: `Bearer ${signature(url, text, secret, options)}`,
		},
	};
}

module.exports = { signEvent, signature, audienceOf, LIFETIME_SECONDS };

if (require.main === module) {
	const [url, body] = process.argv.slice(2);
	if (url === undefined || body === undefined) {
		process.stderr.write(
			"usage: PAYOUTS_SIGNING_SECRET=<secret> node examples/sign-event.js <webhook URL> '<the exact body>'\n",
		);
		process.exit(2);
	}
	try {
		process.stdout.write(`Bearer ${signature(url, body, process.env.PAYOUTS_SIGNING_SECRET)}\n`);
	} catch (error) {
		process.stderr.write(`${error.message}\n`);
		process.exit(2);
	}
}

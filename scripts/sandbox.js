#!/usr/bin/env node
'use strict';
// `npm run sandbox [-- --port 5680 --http-style always200 --latency 30 --latency-jitter 10 --timezone UTC --log]`: the local payouts
// service on 127.0.0.1, with the credentials to put into n8n. Ctrl-C stops it.
// --timezone (or SANDBOX_TIMEZONE): the zone incident windows are read in, e.g. Asia/Kolkata or UTC-8.
const { startSandbox, seed } = require('../sandbox');

function flag(name, fallback) {
	const index = process.argv.indexOf(`--${name}`);
	return index > 0 ? process.argv[index + 1] : fallback;
}

(async () => {
	const timezone = flag('timezone', process.env.SANDBOX_TIMEZONE || 'UTC');
	const sandbox = await startSandbox({
		port: Number(flag('port', process.env.PORT ?? 5680)),
		host: flag('host', '127.0.0.1'),
		httpStyle: flag('http-style', 'mirror'),
		latencyMs: Number(flag('latency', 0)),
		latencyJitterMs: Number(flag('latency-jitter', 0)),
		timezone,
		logger: process.argv.includes('--log'),
	});
	console.log(`Payouts sandbox listening
  Base URL:          ${sandbox.baseUrl}
  Verification URL:  ${sandbox.verificationUrl}
  Access Token:      ${seed.credentials.accessToken}
  Client ID:         ${seed.credentials.clientId}
  Client Secret:     ${seed.credentials.clientSecret}
  API Version:       ${seed.credentials.apiVersion}
  Incident windows:  read in ${timezone}
  Inspect:           ${sandbox.baseUrl}/__sandbox/requests, /__sandbox/state; POST /__sandbox/reset, /__sandbox/config, /__sandbox/incidents, /__sandbox/incidents/resolve
Press Ctrl-C to stop.`);
	const stop = async () => {
		await sandbox.close();
		process.exit(0);
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
})().catch((error) => {
	console.error(`The sandbox could not start: ${error.message}`);
	process.exit(1);
});

'use strict';
/**
 * What every harness module shares: where this checkout is, the package's name, the log line, and
 * npm run without this project's own npm settings.
 */
const { spawn } = require('node:child_process');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const PACKAGE_NAME = require(path.join(ROOT, 'package.json')).name;

const log = (message) => process.stderr.write(`[n8n-nodes-payouts] ${message}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The environment for npm commands run from here. `npm start` / `npm test` export this project's
 * npm settings (npm_config_ignore_scripts=true from .npmrc, npm_config_local_prefix, ...) to their
 * children; they must not leak into the runtime's install or the community-package install.
 */
function npmEnv() {
	const env = {};
	for (const [key, value] of Object.entries(process.env)) if (!/^npm_/i.test(key)) env[key] = value;
	return env;
}

/** Runs a command with npmEnv(): resolves its output, or rejects with the tail of it. */
function run(command, args, options = {}) {
	return new Promise((resolve, reject) => {
		const child = spawn(command, args, { env: npmEnv(), ...options });
		let output = '';
		child.stdout?.on('data', (chunk) => (output += chunk));
		child.stderr?.on('data', (chunk) => (output += chunk));
		child.on('error', reject);
		child.on('close', (code) =>
			code === 0
				? resolve(output)
				: reject(
						new Error(
							`${command} ${args.join(' ')} exited with code ${code}\n${output.slice(-4000)}`,
						),
					),
		);
	});
}

module.exports = { ROOT, PACKAGE_NAME, log, sleep, npmEnv, run };

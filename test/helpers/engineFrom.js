'use strict';
/**
 * Which n8n engine the in-process tests and the simulator run: the package's devDependencies
 * (n8n-core and n8n-workflow of the default n8n, 2.41.1), or, with `N8N_ENGINE_FROM` set to an
 * installed n8n (a folder holding its node_modules, e.g. ~/.cache/n8n-nodes-payouts/n8n-2.35.7,
 * which `npm run test:matrix` installs), that n8n's own engine: its Retry On Fail, error output and
 * Stop are part of the world the tests run in. Jest reads `moduleNameMapper()`; the simulator's
 * command line calls `redirect()` before it loads anything of n8n.
 */
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');

/** The packages that make up n8n's engine as a node sees it: resolved together, from one n8n. */
const ENGINE = ['n8n-core', 'n8n-workflow', '@n8n/di', '@n8n/backend-network', 'axios'];

function engineDir() {
	const from = process.env.N8N_ENGINE_FROM;
	if (!from) return undefined;
	const modules = path.join(path.resolve(from), 'node_modules');
	if (!fs.existsSync(path.join(modules, 'n8n-core')))
		throw new Error(
			`N8N_ENGINE_FROM=${from} holds no node_modules/n8n-core: install that n8n first (npm run test:matrix installs each version)`,
		);
	return modules;
}

/** Jest's moduleNameMapper for the engine's packages (empty: the devDependencies). */
function moduleNameMapper() {
	const modules = engineDir();
	if (!modules) return {};
	// The bare names; what those packages require resolves from where they lie. A test's own deep import of n8n-core too.
	return {
		...Object.fromEntries(ENGINE.map((name) => [`^${name}$`, path.join(modules, name)])),
		'^n8n-core/dist/(.*)$': path.join(modules, 'n8n-core', 'dist', '$1'),
	};
}

/** Node's own resolution of the engine's packages pointed at that n8n (the simulator's process). */
function redirect() {
	const modules = engineDir();
	if (!modules) return;
	const resolve = Module._resolveFilename;
	Module._resolveFilename = function (request, parent, isMain, options) {
		const engine = ENGINE.some((name) => request === name || request.startsWith(`${name}/`));
		return resolve.call(
			this,
			request,
			parent,
			isMain,
			engine ? { ...options, paths: [modules] } : options,
		);
	};
}

module.exports = { moduleNameMapper, redirect, ENGINE };

/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- test code runs in Node under jest, never inside n8n (it runs npm and n8n as a user would, with Node's own modules and child processes); these rules guard the code n8n loads (nodes/, credentials/) */
/**
 * Install in your own n8n exactly as the README ("Installation") says, into a fresh
 * n8n user folder: the packed package (`npm run build && npm pack`), then in `<user folder>/.n8n/nodes`
 * `npm install --omit=peer --ignore-scripts <the .tgz>`, then n8n started. It must install the
 * package alone (no second n8n-workflow beside n8n's own), n8n must load all six nodes under the
 * package's name, and a payout and a refusal's hint must come out right.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { n8n, runWithCli } from '../helpers/e2e';
import { seed, startSandbox } from '../../harness/sandbox';
import type { Sandbox } from '../../harness/sandbox';

jest.setTimeout(10 * 60 * 1000);

const NODE_TYPES = [
	'payoutsTransfer',
	'payoutsBeneficiary',
	'payoutsIncident',
	'payoutsPaylink',
	'payoutsOAuth',
	'payoutsIncidentTrigger',
].map((name) => `n8n-nodes-payouts.${name}`);

let sandbox: Sandbox;
let home: string;
let tarball: string;

beforeAll(async () => {
	await n8n.ensureRuntime();
	sandbox = await startSandbox({ port: 0, host: '127.0.0.1' });
	home = fs.mkdtempSync(path.join(os.tmpdir(), 'payouts-install-'));
	// What a user downloads or builds: the package's tarball.
	tarball = await n8n.packPackage(home);
});

afterAll(async () => {
	await sandbox?.close();
	if (home && !process.env.KEEP_N8N_FOLDERS) fs.rmSync(home, { recursive: true, force: true });
});

test('the documented command installs the package alone, n8n loads its six nodes, and a payout and a refusal come out right', async () => {
	const userFolder = path.join(home, 'n8n-user');
	const nodesDir = path.join(userFolder, '.n8n', 'nodes');
	// The documented words, with the Node and npm the user's n8n runs on.
	fs.mkdirSync(nodesDir, { recursive: true });
	const npmOutput = execFileSync('npm', ['install', '--omit=peer', '--ignore-scripts', tarball], {
		cwd: nodesDir,
		env: { ...n8n.npmEnv(), PATH: `${n8n.RUNTIME.nodeBinDir}${path.delimiter}${process.env.PATH}` },
		encoding: 'utf8',
	});
	expect(npmOutput).toMatch(/added 1 package/);
	expect(
		fs.readdirSync(path.join(nodesDir, 'node_modules')).filter((entry) => !entry.startsWith('.')),
	).toEqual(['n8n-nodes-payouts']);

	// n8n started on that user folder: the nodes are there under the package's name.
	const env = n8n.n8nEnv(userFolder, {
		port: await n8n.freePort(),
		brokerPort: await n8n.freePort(),
	});
	await n8n.importCredential(userFolder, env, sandbox, seed);
	const server = await n8n.startServer(env, path.join(userFolder, 'n8n.log'));
	try {
		const types = (await (
			await fetch(`${server.url}/types/nodes.json`, { headers: { cookie: server.cookie } })
		).json()) as Array<{ name: string }>;
		for (const type of NODE_TYPES) expect(types.map((entry) => entry.name)).toContain(type);
	} finally {
		await server.stop();
	}

	// A payout, and a refusal with its hint, in that n8n.
	const pay = (id: string, beneId: string) => ({
		id,
		name: `Install check ${id}`,
		nodes: [
			{
				id: `${id}-1`,
				name: 'Start',
				type: 'n8n-nodes-base.manualTrigger',
				typeVersion: 1,
				position: [0, 0],
				parameters: {},
			},
			{
				id: `${id}-2`,
				name: 'Pay',
				type: 'n8n-nodes-payouts.payoutsTransfer',
				typeVersion: 1,
				position: [220, 0],
				credentials: { payoutsApi: { id: n8n.CREDENTIAL_ID, name: 'Payouts Sandbox' } },
				parameters: {
					operation: 'standardTransfer',
					beneId,
					amount: '100.00',
					transferId: `install_${id}`,
					transferMode: 'banktransfer',
					additionalFields: {},
					options: {},
				},
			},
		],
		connections: { Start: { main: [[{ node: 'Pay', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
		active: false,
	});
	await n8n.importWorkflows(userFolder, env, [
		pay('instPaid', seed.beneficiaries.verified),
		pay('instRefused', seed.unknownBeneId),
	]);
	const paid = await runWithCli('instPaid', env);
	expect(paid.output('Pay')).toEqual([
		expect.objectContaining({ status: 'SUCCESS', transferId: 'install_instPaid' }),
	]);
	const refused = await runWithCli('instRefused', env);
	expect(refused.code).toBe(1);
	expect(refused.error).toMatchObject({
		name: 'NodeApiError',
		message: 'Beneficiary does not exist [item 0]',
		description: expect.stringContaining("No beneficiary has this 'Beneficiary ID'"),
	});
	expect(sandbox.state().transfers.map((transfer) => transfer.transferId)).toEqual([
		'install_instPaid',
	]);
});

#!/usr/bin/env node
'use strict';
/**
 * The chaos run (`npm run chaos`, docs/chaos.md): a big batch through real n8n while the sandbox
 * injects seeded faults on the transfer requests (drops before and after booking, 502 and 520
 * pages, JSON 500s, 201 "no response from bank", latency spikes, some past the node's timeout so
 * that the service books them after the node gave up) and the script SIGKILLs n8n mid-batch. After
 * each restart the same batch is run again, as docs/safety.md says, and then again until every row
 * reads paid, the script doing for each row exactly what its `nextStep` says: run it again, settle it
 * from the dashboard's export (GET /__sandbox/dashboard.csv, taken once the run has ended and the
 * service has nothing in flight), take a new export, pay it under a new Top-Up Key or Transfer ID,
 * or look its Transfer ID up. The sandbox's ledger and every run's output are the evidence. Exits 1
 * when a row is paid twice, a row is unpaid, or an output item says something the ledger denies.
 *
 * Two set-ups:
 * - default: queue mode (Postgres, Redis, a main, two workers), a third each standard, card and
 *   internal; the internal top-ups with Options > Service Refuses Repeated Transfer IDs on and the
 *   sandbox refusing a repeated internal Transfer ID (in queue mode the node's own record guards
 *   internal top-ups in one process only: docs/safety.md, "Regular mode and queue mode").
 * - `--internal-only`: the reach run, regular mode (one `n8n start`, SQLite, n8n's default): every
 *   row a keyed internal top-up (a Top-Up Key from the row) on one Payouts Transfer node guarded by
 *   its own record, Concurrency 5, On Error: Continue, the sandbox booking a repeated internal
 *   Transfer ID again (the worst case: a second send pays twice), two SIGKILLs of n8n.
 *
 *   npm run chaos -- --internal-only --rows 10000 --seed 1
 *   npm run chaos -- --rows 30000 --seed 1 --rate 0.02 --kills 6
 *
 * Options: --internal-only, --rows (10000 internal-only, else 30000: a third each), --seed (1),
 * --rate (share of transfer requests that meet a fault, 0.02), --kills (2 internal-only, else 6),
 * --runs (most runs, 30), --latency (ms, 30), --jitter (ms, 20), --spikes (latency spikes per 1,000
 * transfer requests, 2; 0 for none), --concurrency (5 internal-only, else 10), --dir (scratch
 * folder, a new temporary one by default, removed unless --keep), --json (write the report there too).
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const n8n = require('../harness');
const queue = require('./queue');
const { startSandbox, seed: sandboxSeed } = require('../sandbox');
const { seededRandom } = require('../sandbox/faults');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const PAID = ['SUCCESS', 'PENDING', 'ALREADY_SUBMITTED'];
/** The dashboard's words for a transfer the service booked (sandbox/index.js dashboardCsv). */
const DASHBOARD_PAID = ['SUCCESS', 'PENDING'];
const DONE = ['success', 'error', 'crashed', 'canceled'];
/** A queue-mode run whose execution made no request for this long and never finished was lost with a killed process. */
const LOST_AFTER_MS = 120000;
/** The Pay nodes' Timeout (ms): a latency spike past it leaves the row in doubt, booked after the node gave up. */
const NODE_TIMEOUT_MS = 5000;

/** What tells a row apart in the ledger: its Transfer ID's stem (standard, card) or its amount in paise (internal, keyed by a Top-Up Key). */
const TRANSFER_ID_PREFIX = { standard: 'chaos_std_', card: 'chaos_card_' };
const FIRST_INTERNAL_PAISE = 100;
const rowKey = (kind, index) => `${kind}:${index}`;
/** The row a booked transfer belongs to. */
function rowOfTransfer(transfer) {
	if (transfer.operation === 'internalTransfer')
		return rowKey('internal', Math.round(transfer.amount * 100) - FIRST_INTERNAL_PAISE);
	const kind = transfer.operation === 'cardTransfer' ? 'card' : 'standard';
	const match = new RegExp(`^${TRANSFER_ID_PREFIX[kind]}(\\d+)(_r\\d+)?$`).exec(
		transfer.transferId,
	);
	return match ? rowKey(kind, Number(match[1])) : `other:${transfer.transferId}`;
}

/** The rows of each kind, as the Code node's expression of `i` (`again`: how often the row was given a new Transfer ID or key). */
const ROW_CODE = {
	standard: `{ beneId: '${sandboxSeed.beneficiaries.verified}', amount: 1, transferId: '${TRANSFER_ID_PREFIX.standard}' + i + (again ? '_r' + again : '') }`,
	card: `{ card: '${sandboxSeed.cards.success1}', amount: '1.00', transferId: '${TRANSFER_ID_PREFIX.card}' + i + (again ? '_r' + again : '') }`,
	internal: `{ account: '${sandboxSeed.rechargeAccounts.configured}', amount: (${FIRST_INTERNAL_PAISE} + i) / 100, key: 'chaos-int-' + i + (again ? '-r' + again : '') }`,
};

/** Manual Trigger → one Code node of rows and one Pay node per kind, as a user's batch would be. */
function batchWorkflow(kinds, rowsPerKind, { concurrency, internalOnly }) {
	const credentials = { payoutsApi: { id: n8n.CREDENTIAL_ID, name: 'Payouts Sandbox' } };
	// What the dashboard says of a row in doubt comes in a column (Options > Settle With Dashboard Status).
	const common = {
		concurrency,
		timeout: NODE_TIMEOUT_MS,
		dashboardStatus: '={{ $json.dashboardStatus }}',
	};
	const pays = {
		standard: {
			operation: 'standardTransfer',
			beneId: '={{ $json.beneId }}',
			amount: '={{ $json.amount }}',
			transferId: '={{ $json.transferId }}',
			transferMode: 'banktransfer',
			additionalFields: {},
			options: { ...common, retries: 3 },
		},
		card: {
			operation: 'cardTransfer',
			token: '={{ $json.card }}',
			amount: '={{ $json.amount }}',
			transferId: '={{ $json.transferId }}',
			cardType: 'DEBIT',
			additionalFields: {},
			options: { ...common, retries: 3 },
		},
		// Keyed by a column. In queue mode the service is the guard (the node's record holds in one process only).
		internal: {
			operation: 'internalTransfer',
			amount: '={{ $json.amount }}',
			rechargeAccount: '={{ $json.account }}',
			topUpKey: '={{ $json.key }}',
			additionalFields: {},
			options: internalOnly ? common : { ...common, serviceRefusesRepeats: true, retries: 3 },
		},
	};
	// The reach run's settings: Concurrency 5, On Error: Continue, nothing else. The queue-mode run also turns on Retry On Fail.
	const settings = internalOnly
		? { onError: 'continueRegularOutput' }
		: { onError: 'continueRegularOutput', retryOnFail: true, maxTries: 2 };
	const nodes = [
		{
			id: 'chaos-start',
			name: 'Start',
			type: 'n8n-nodes-base.manualTrigger',
			typeVersion: 1,
			position: [0, 200],
			parameters: {},
		},
	];
	const connections = { Start: { main: [[]] } };
	kinds.forEach((kind, lane) => {
		nodes.push({
			id: `chaos-rows-${kind}`,
			name: `Rows ${kind}`,
			type: 'n8n-nodes-base.code',
			typeVersion: 2,
			position: [220, lane * 200],
			parameters: { jsCode: rowsCode(kind, rowsPerKind) },
		});
		nodes.push({
			id: `chaos-pay-${kind}`,
			name: `Pay ${kind}`,
			type: 'n8n-nodes-payouts.payoutsTransfer',
			typeVersion: 1,
			position: [440, lane * 200],
			credentials,
			...settings,
			parameters: pays[kind],
		});
		connections.Start.main[0].push({ node: `Rows ${kind}`, type: 'main', index: 0 });
		connections[`Rows ${kind}`] = { main: [[{ node: `Pay ${kind}`, type: 'main', index: 0 }]] };
	});
	return {
		id: internalOnly ? 'payoutsChaosTopUps' : 'payoutsChaosBatch',
		name: internalOnly ? 'Chaos: keyed top-ups' : 'Chaos: the batch',
		active: false,
		nodes,
		connections,
		settings: { executionOrder: 'v1' },
	};
}

/**
 * The Code node of a kind's rows: each row, the dashboard's status of its Transfer ID where the user
 * mapped one (`statuses`), and how often it was given a new Transfer ID or key (`again`).
 */
function rowsCode(kind, rowsPerKind, statuses = {}, again = {}) {
	return `const statuses = ${JSON.stringify(statuses)};\nconst agains = ${JSON.stringify(again)};\nreturn Array.from({ length: ${rowsPerKind} }, (_, i) => { const again = agains[i] ?? 0; const row = ${ROW_CODE[kind]}; return { json: { ...row, dashboardStatus: statuses[i] ?? '' } }; });`;
}

/** The dashboard's CSV export as a map of Transfer ID to status (the export quotes no field of ours). */
function dashboardStatuses(csv) {
	const [, ...lines] = csv.split('\r\n');
	return new Map(
		lines
			.filter(Boolean)
			.map((line) => line.split(','))
			.map(([transferId, status]) => [transferId, status]),
	);
}

function parseArgs(argv) {
	const options = {
		internalOnly: false,
		seed: 1,
		rate: 0.02,
		runs: 30,
		latency: 30,
		jitter: 20,
		spikes: 2,
		keep: false,
	};
	for (let index = 0; index < argv.length; index++) {
		const name = argv[index].replace(/^--/, '');
		if (name === 'keep') options.keep = true;
		else if (name === 'internal-only') options.internalOnly = true;
		else if (name === 'dir' || name === 'json') options[name] = argv[++index];
		else if (
			[
				'rows',
				'seed',
				'rate',
				'kills',
				'runs',
				'latency',
				'jitter',
				'spikes',
				'concurrency',
			].includes(name)
		)
			options[name] = Number(argv[++index]);
		else throw new Error(`unknown option --${name}; see the header of scripts/chaos.js`);
	}
	return options;
}

/** The defaults of each set-up, under what was given. */
function withDefaults(given) {
	const internalOnly = Boolean(given.internalOnly);
	return {
		...parseArgs([]),
		rows: internalOnly ? 10000 : 30000,
		kills: internalOnly ? 2 : 6,
		concurrency: internalOnly ? 5 : 10,
		...Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined)),
		internalOnly,
	};
}

/**
 * Judges the ledger and every run's output. `rows`: the row keys the batch has. Untrue: an item that
 * says paid (SUCCESS, PENDING, ALREADY_SUBMITTED) without a transfer of its own row booked under
 * the Transfer ID it names; or that says it did not pay (`nextStep: newTransferId`) of a Transfer
 * ID the ledger holds.
 */
function judge(ledger, outputs, rows) {
	const countOf = new Map();
	const byTransferId = new Map();
	for (const transfer of ledger) {
		if (!byTransferId.has(transfer.transferId)) byTransferId.set(transfer.transferId, []);
		byTransferId.get(transfer.transferId).push(transfer);
		const row = rowOfTransfer(transfer);
		countOf.set(row, (countOf.get(row) ?? 0) + 1);
	}
	const tally = { rows: rows.length, paidOnce: 0, paidTwice: 0, unpaid: 0, untrue: 0 };
	const twice = [];
	for (const row of rows) {
		const count = countOf.get(row) ?? 0;
		if (count === 1) tally.paidOnce += 1;
		else if (count === 0) tally.unpaid += 1;
		else {
			tally.paidTwice += 1;
			twice.push(row);
		}
	}
	const foreign = [...countOf.keys()].filter((row) => !rows.includes(row));
	const untrue = [];
	for (const { kind, run, items } of outputs) {
		items.forEach((item, index) => {
			const own = (byTransferId.get(item.transferId) ?? []).filter(
				(transfer) => rowOfTransfer(transfer) === rowKey(kind, index),
			);
			if (PAID.includes(item.status) && own.length === 0)
				untrue.push({ kind, index, run, said: 'paid', item });
			if (item.nextStep === 'newTransferId' && (byTransferId.get(item.transferId) ?? []).length > 0)
				untrue.push({ kind, index, run, said: 'did not pay', item });
		});
	}
	tally.untrue = untrue.length;
	return {
		...tally,
		paidTwiceExamples: twice.slice(0, 5),
		foreignTransfers: foreign.length,
		untrueExamples: untrue.slice(0, 5),
	};
}

/** A process and every process under it, SIGKILLed at once (n8n and its task runner, as a crash of the machine). */
function killTree(pid) {
	const children = (parent) => {
		try {
			return execFileSync('pgrep', ['-P', String(parent)], { encoding: 'utf8' })
				.split('\n')
				.filter(Boolean)
				.map(Number);
		} catch {
			return [];
		}
	};
	const all = [];
	const walk = (parent) => {
		all.push(parent);
		for (const child of children(parent)) walk(child);
	};
	walk(pid);
	for (const each of all) {
		try {
			process.kill(each, 'SIGKILL');
		} catch {
			// gone already
		}
	}
}

/** Regular mode: one `n8n start` on SQLite with the package installed as n8n installs it. */
async function startRegular({ baseDir, sandbox, workflow, log }) {
	await n8n.ensureRuntime();
	const userFolder = path.join(baseDir, 'n8n');
	fs.mkdirSync(userFolder, { recursive: true });
	log("starting the package in n8n's user folder, the credential and the workflow");
	await n8n.installPackage(userFolder);
	const env = n8n.n8nEnv(userFolder, {
		port: await n8n.freePort(),
		brokerPort: await n8n.freePort(),
	});
	await n8n.importCredential(userFolder, env, sandbox, sandboxSeed);
	await n8n.importWorkflows(userFolder, env, [workflow]);
	const stack = { starts: 0, logs: [] };
	stack.start = async () => {
		const logFile = path.join(baseDir, `n8n-${++stack.starts}.log`);
		stack.logs.push(logFile);
		stack.server = await n8n.startServer(env, logFile);
		stack.rest = await n8n.restClient(stack.server.url, { cookie: stack.server.cookie });
	};
	stack.kill = async () => {
		const { child } = stack.server;
		const gone = new Promise((resolve) =>
			child.exitCode !== null || child.signalCode !== null
				? resolve()
				: child.once('exit', resolve),
		);
		killTree(child.pid);
		await gone;
		return 'n8n';
	};
	stack.stop = async () => stack.server?.stop();
	log('starting n8n');
	await stack.start();
	return stack;
}

async function runChaos(given = {}) {
	const options = withDefaults(given);
	const kinds = options.internalOnly ? ['internal'] : ['standard', 'card', 'internal'];
	const rowsPerKind = Math.floor(options.rows / kinds.length);
	const rows = kinds.flatMap((kind) =>
		Array.from({ length: rowsPerKind }, (_, index) => rowKey(kind, index)),
	);
	const random = seededRandom(options.seed * 7919 + 1);
	const log = options.log ?? ((line) => process.stderr.write(`[chaos] ${line}\n`));
	const baseDir = options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'payouts-chaos-'));
	fs.mkdirSync(baseDir, { recursive: true });
	if (typeof process.getuid === 'function' && process.getuid() === 0) fs.chmodSync(baseDir, 0o755);
	const started = Date.now();
	const mode = options.internalOnly
		? 'regular mode (one n8n process, SQLite)'
		: 'queue mode (a main, two workers, Postgres, Redis)';
	const report = {
		mode,
		rows: rows.length,
		kinds,
		seed: options.seed,
		rate: options.rate,
		concurrency: options.concurrency,
		runs: 0,
		kills: [],
		spikes: 0,
		faultsInjected: {},
		inDoubt: 0,
		settledPaid: 0,
		newKeys: 0,
		newKeyRows: 0,
		lookedUp: 0,
		seconds: 0,
		runLines: [],
	};
	// Queue mode: the sandbox refuses a repeated internal Transfer ID (the internal Pay node says the
	// service does). Regular mode: it books it again, the worst case the node's own record must survive.
	const sandbox = await startSandbox({
		latencyMs: options.latency,
		latencyJitterMs: options.jitter,
		internalDuplicates: options.internalOnly ? 'book' : 'refuse',
		chaos: { seed: options.seed, rate: options.rate },
	});
	const workflow = batchWorkflow(kinds, rowsPerKind, options);
	let stack;
	try {
		log(
			`${report.rows} rows (${kinds.join(', ')}), seed ${options.seed}, fault rate ${options.rate}, ${options.kills} kills, Concurrency ${options.concurrency}; ${mode} in ${baseDir}`,
		);
		let rest;
		let kill;
		if (options.internalOnly) {
			stack = await startRegular({ baseDir, sandbox, workflow, log });
			rest = (...args) => stack.rest(...args);
			kill = async () => {
				await stack.kill();
				await stack.start();
				return 'n8n';
			};
		} else {
			stack = await queue.startQueueStack({
				baseDir,
				sandbox,
				seed: sandboxSeed,
				workers: 2,
				workerConcurrency: 2,
				workflows: [workflow],
				fast: true,
				onStep: (step) => log(`starting ${step}`),
			});
			rest = queueApi(stack, log);
			kill = async (executionId) => {
				const victim = ['worker', 'main', 'both', 'worker'][Math.floor(random() * 4)];
				const busy = queue.workerOfExecution(stack, executionId);
				const workerIndex = Math.max(
					0,
					stack.workers.findIndex((worker) => worker.name === busy[busy.length - 1]),
				);
				if (victim !== 'main') stack.workers[workerIndex].kill();
				if (victim !== 'worker') stack.main.child.kill('SIGKILL');
				await sleep(2000);
				if (victim !== 'worker') await stack.startMain();
				if (victim !== 'main') await stack.startWorker(workerIndex);
				return victim === 'main'
					? 'main'
					: `${stack.workers[workerIndex].name}${victim === 'both' ? ' and main' : ''}`;
			};
		}
		const outputs = [];
		let killsLeft = options.kills;
		/** What the user keeps in the batch's sheet, by kind and row: the dashboard's status mapped, and how often a row got a new key or Transfer ID. */
		const statuses = Object.fromEntries(kinds.map((kind) => [kind, {}]));
		const again = Object.fromEntries(kinds.map((kind) => [kind, {}]));
		const everInDoubt = new Set();
		const histories = new Map();
		const spikes = spiker(sandbox, random, options);

		for (;;) {
			if (report.runs >= options.runs)
				throw new Error(`no run ended with every row paid in ${options.runs} runs`);
			report.runs += 1;
			const workflowData = await rest('GET', `/workflows/${workflow.id}`);
			const { executionId } = await rest('POST', `/workflows/${workflow.id}/run`, {
				workflowData,
				triggerToStartFrom: { name: 'Start' },
			});
			const runStarted = Date.now();
			// A kill lands at a random point of what is left to pay: after that many transfer requests of this run.
			const requestsAtStart = sandbox.requestCount(); // the batch makes no other request
			const left = report.rows - sandbox.state().count;
			let killAfter =
				killsLeft > 0 && left >= 10 ? Math.floor(left * (0.1 + 0.5 * random())) : Infinity;
			let lastRequests = requestsAtStart;
			let lastChange = Date.now();
			let saved;
			let killed = false;
			for (let polls = 0; ; polls++) {
				await sleep(250);
				const requests = sandbox.requestCount();
				spikes.tick(requests);
				if (requests !== lastRequests) [lastRequests, lastChange] = [requests, Date.now()];
				if (requests - requestsAtStart >= killAfter && killsLeft > 0) {
					killsLeft -= 1;
					// Another kill in this run only if the execution goes on (in queue mode, on a worker, after the main's kill).
					const leftNow = report.rows - sandbox.state().count;
					killAfter =
						killsLeft > 0 && leftNow >= 10
							? requests - requestsAtStart + Math.floor(leftNow * (0.2 + 0.4 * random()))
							: Infinity;
					const paidAt = sandbox.state().count;
					log(`run ${report.runs}: SIGKILL with ${paidAt} transfers in the ledger`);
					const victim = await kill(executionId);
					report.kills.push({ run: report.runs, victim, ledgerAt: paidAt });
					log(`run ${report.runs}: killed ${victim}, started again`);
					killed = true;
					lastChange = Date.now();
					// Regular mode: the execution died with n8n; the batch is run again at once.
					if (options.internalOnly) break;
				}
				if (polls % 8 !== 7) continue;
				const found = await rest('GET', `/executions/${executionId}`).catch(() => undefined);
				if (found && DONE.includes(found.status)) {
					saved = found;
					break;
				}
				if (Date.now() - lastChange > LOST_AFTER_MS) break;
			}
			// An execution n8n ended as crashed (its worker was killed) or canceled left no output to act on.
			if (saved && ['crashed', 'canceled'].includes(saved.status)) saved = undefined;
			if (!saved) {
				const line = `run ${report.runs}: execution ${executionId} ${killed ? 'died with the killed process' : `made no request for ${LOST_AFTER_MS / 1000} s and did not finish`}; running the batch again`;
				report.runLines.push(line);
				log(line);
				continue;
			}
			// As docs/safety.md says: settle once no run is sending and no request can still arrive (the service has nothing in flight).
			await n8n.waitFor(
				'the service to have no request in flight',
				() => sandbox.state().inFlight === 0,
				{ timeoutSeconds: 120, intervalMs: 100 },
			);
			const { resultData } = n8n.runDataOf(saved);
			const runData = resultData?.runData ?? {};
			const dashboard = dashboardStatuses(sandbox.dashboardCsv());
			const unsettled = {};
			const stuckExample = {};
			const paidCount = Object.fromEntries(kinds.map((kind) => [kind, 0]));
			let [mapped, renamed, looked] = [0, 0, 0];
			for (const kind of kinds) {
				const items = (runData[`Pay ${kind}`]?.at(-1)?.data?.main?.[0] ?? []).map(
					(item) => item.json,
				);
				outputs.push({ kind, run: report.runs, items });
				// The user's sheet for the next run: statuses only where this run's words ask for one.
				const next = {};
				items.forEach((item, index) => {
					const history = [
						...(histories.get(`${kind} ${index}`) ?? []),
						`${report.runs}: ${item.status}${item.nextStep ? `/${item.nextStep}` : ''}${item.dashboardStatus ? ` (given ${item.dashboardStatus})` : ''}`,
					];
					histories.set(`${kind} ${index}`, history);
					if (item.status === 'UNKNOWN') everInDoubt.add(`${kind} ${index}`);
					if (PAID.includes(item.status)) {
						paidCount[kind] += 1;
						if (
							item.dashboardStatus &&
							item.status === 'ALREADY_SUBMITTED' &&
							!item.dashboardStatusNote
						)
							report.settledPaid += 1;
						return;
					}
					unsettled[`${kind} ${item.status}/${item.nextStep}`] =
						(unsettled[`${kind} ${item.status}/${item.nextStep}`] ?? 0) + 1;
					stuckExample[`${kind} ${item.status}/${item.nextStep}`] ??=
						`${item.transferId}: ${String(item.error ?? item.message ?? '').slice(0, 160)} | ${String(item.hint ?? '').slice(0, 200)} | runs: ${history.join(', ')}`;
					switch (item.nextStep) {
						case 'runAgain':
							return;
						case 'settleFromDashboard':
						case 'newExport':
							// The export taken now: its status of the row's Transfer ID, NOT_FOUND where it has none.
							next[index] = dashboard.get(item.transferId) ?? 'NOT_FOUND';
							mapped += 1;
							return;
						case 'newTransferId':
							// It did not pay and never will under this Transfer ID: a new key (internal) or Transfer ID.
							again[kind][index] = (again[kind][index] ?? 0) + 1;
							renamed += 1;
							return;
						case 'lookUp': {
							// The service has the Transfer ID and this node cannot call it its own: the export says whose.
							const word = dashboard.get(item.transferId);
							looked += 1;
							if (DASHBOARD_PAID.includes(word)) next[index] = word;
							else if (word) again[kind][index] = (again[kind][index] ?? 0) + 1;
							return;
						}
						default:
							throw new Error(
								`run ${report.runs}: ${kind} row ${index} reads ${item.status} with nextStep ${item.nextStep}, which this batch should never need: ${stuckExample[`${kind} ${item.status}/${item.nextStep}`]}`,
							);
					}
				});
				statuses[kind] = next;
				if (items.length !== rowsPerKind)
					throw new Error(
						`run ${report.runs}: Pay ${kind} output ${items.length} items for ${rowsPerKind} rows (${n8n.describeExecution(saved)})`,
					);
			}
			report.newKeys += renamed;
			report.lookedUp += looked;
			const counts = kinds.map((kind) => `${kind} ${paidCount[kind]}/${rowsPerKind}`).join(', ');
			const line = `run ${report.runs}: execution ${executionId} ${saved.status} in ${Math.round((Date.now() - runStarted) / 1000)} s; paid ${counts}; ledger ${sandbox.state().count}; not paid in this run's output: ${JSON.stringify(unsettled)}; the user mapped ${mapped} dashboard statuses, gave ${renamed} rows a new key, looked ${looked} up`;
			report.runLines.push(line);
			log(line);
			if (process.env.CHAOS_VERBOSE)
				for (const [what, example] of Object.entries(stuckExample))
					log(`  ${what}, e.g. ${example}`);
			if (saved.status === 'success' && kinds.every((kind) => paidCount[kind] === rowsPerKind))
				break;
			// The sheet changed as the words said, for the next run.
			const current = await rest('GET', `/workflows/${workflow.id}`);
			for (const node of current.nodes) {
				const kind = kinds.find((candidate) => node.name === `Rows ${candidate}`);
				if (kind) node.parameters.jsCode = rowsCode(kind, rowsPerKind, statuses[kind], again[kind]);
			}
			await rest('PATCH', `/workflows/${workflow.id}`, {
				nodes: current.nodes,
				connections: current.connections,
				versionId: current.versionId,
			});
		}
		report.inDoubt = everInDoubt.size;
		report.newKeyRows = kinds.reduce((sum, kind) => sum + Object.keys(again[kind]).length, 0);
		report.spikes = spikes.count;
		report.faultsInjected = sandbox.state().faultsInjected;
		Object.assign(report, judge(sandbox.state().transfers, outputs, rows));
		report.payments = sandbox.state().count;
	} finally {
		report.seconds = Math.round((Date.now() - started) / 1000);
		await stack?.stop();
		await sandbox.close();
		if (!options.keep && !options.dir) fs.rmSync(baseDir, { recursive: true, force: true });
	}
	report.line = `chaos: ${report.rows} rows, ${report.paidOnce} paid once, ${report.paidTwice} paid twice, ${report.unpaid} unpaid, ${report.untrue} untrue outputs`;
	report.passed =
		report.paidTwice === 0 &&
		report.unpaid === 0 &&
		report.untrue === 0 &&
		report.paidOnce === report.rows &&
		report.foreignTransfers === 0;
	return report;
}

/**
 * Latency spikes, seeded: about `spikes` per 1,000 transfer requests, each a burst of slow answers
 * (0.8 to 2.5 s, within the node's Timeout) led by one answer past the Timeout, which the service
 * books after the node gave up (the row is in doubt; an export taken before it lands would miss it).
 */
function spiker(sandbox, random, options) {
	const state = { count: 0, nextAt: undefined };
	const gap = () => Math.round((1000 / options.spikes) * (0.5 + random()));
	return {
		get count() {
			return state.count;
		},
		tick(requests) {
			if (!options.spikes) return;
			state.nextAt ??= requests + gap();
			if (requests < state.nextAt) return;
			state.nextAt = requests + gap();
			state.count += 1;
			sandbox.configure({
				faults: [
					{
						match: { method: 'POST' },
						fault: 'latency',
						latencyMs: NODE_TIMEOUT_MS + 1500,
						times: 1,
					},
					{
						match: { method: 'POST' },
						fault: 'latency',
						latencyMs: Math.round(800 + 1700 * random()),
						times: 2 * options.concurrency,
					},
				],
			});
		},
	};
}

/** Queue mode's REST calls: the main may be down or restarting (a kill), and may refuse a session it accepted (n8n.sessionRefused). */
function queueApi(stack, log) {
	return async (method, route, body) => {
		for (let attempt = 0; ; attempt++) {
			try {
				const response = await fetch(`${stack.main.url}/rest${route}`, {
					method,
					headers: { cookie: stack.cookie, 'content-type': 'application/json' },
					body: body === undefined ? undefined : JSON.stringify(body),
				});
				const text = await response.text();
				const refused = n8n.sessionRefused(response, text);
				if (refused && attempt <= 90) {
					log(`${method} ${route}: n8n refused the session (${refused}): signing in again`);
					stack.cookie = await n8n.ensureOwner(stack.main.url);
					continue;
				}
				if (response.ok) return JSON.parse(text).data;
				if (attempt > 90)
					throw new Error(`${method} ${route}: HTTP ${response.status} ${text.slice(0, 300)}`);
			} catch (failure) {
				if (attempt > 90) throw failure;
			}
			await sleep(2000); // the main is down or restarting
		}
	};
}

function printReport(report) {
	const faults = Object.entries(report.faultsInjected)
		.map(([kind, count]) => `${kind} ${count}`)
		.join(', ');
	const lines = [
		`rows ${report.rows} (${report.kinds.join(', ')}${report.kinds.includes('internal') ? ', internal keyed by a column' : ''}), ${report.mode}, Concurrency ${report.concurrency}, seed ${report.seed}, fault rate ${report.rate}`,
		`payments in the ledger ${report.payments}; rows paid once ${report.paidOnce}, paid twice ${report.paidTwice}, unpaid ${report.unpaid}`,
		`output items the ledger denies (paid without a payment of their own, or "did not pay" of a booked Transfer ID): ${report.untrue}`,
		`kills ${report.kills.length}: ${report.kills.map((kill) => `${kill.victim} (run ${kill.run}, ledger at ${kill.ledgerAt})`).join('; ')}`,
		`faults injected ${Object.values(report.faultsInjected).reduce((sum, count) => sum + count, 0)}: ${faults}; latency spikes ${report.spikes}`,
		`rows ever in doubt ${report.inDoubt}: settled paid from the dashboard ${report.settledPaid}, given a new key or Transfer ID ${report.newKeyRows} (${report.newKeys} new keys in all: a new one can meet a fault too), looked up ${report.lookedUp}`,
		`runs ${report.runs} (re-runs ${report.runs - 1}), time ${Math.floor(report.seconds / 60)} min ${report.seconds % 60} s`,
		report.line,
	];
	process.stdout.write(`${lines.join('\n')}\n`);
}

if (require.main === module) {
	const options = parseArgs(process.argv.slice(2));
	runChaos(options)
		.then((report) => {
			printReport(report);
			if (options.json) fs.writeFileSync(options.json, JSON.stringify(report, null, 2));
			process.exit(report.passed ? 0 : 1);
		})
		.catch((failure) => {
			process.stderr.write(`chaos run failed: ${failure.stack ?? failure}\n`);
			process.exit(1);
		});
}

module.exports = { runChaos, judge, batchWorkflow, printReport, killTree };

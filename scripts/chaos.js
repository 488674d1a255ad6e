#!/usr/bin/env node
'use strict';
/**
 * The chaos run (`npm run chaos`): a big batch through n8n in queue mode while the sandbox injects
 * seeded faults on every kind of transfer request and the script SIGKILLs workers and the main;
 * then the batch is run again as docs/safety.md says, settling every UNKNOWN row with the dashboard's
 * status of its Transfer ID in a column the Pay node maps to Options > Dashboard Status (the
 * "dashboard" is the sandbox's export, GET /__sandbox/dashboard.csv), until a run ends with every
 * row settled. The
 * sandbox's ledger and every execution's saved output are the evidence. Exits 1 when a row is
 * paid twice, a row is unpaid, or an output item says paid without its own payment.
 *
 *   npm run chaos -- --rows 30000 --seed 1 --rate 0.02 --kills 6
 *
 * Options: --rows (30000: a third each standard, card and internal), --seed (1), --rate (share of
 * transfer requests that meet a fault, 0.02), --kills (6), --runs (most runs, 30), --latency (ms,
 * 30), --jitter (ms, 20), --concurrency (10, each Pay node), --dir (scratch folder, a new temporary
 * one by default, removed unless --keep), --json (write the report there too).
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const n8n = require('./n8n');
const queue = require('./queue');
const { startSandbox, seed: sandboxSeed } = require('../sandbox');
const { seededRandom } = require('../sandbox/faults');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const KINDS = ['standard', 'card', 'internal'];
const PAID = ['SUCCESS', 'PENDING', 'ALREADY_SUBMITTED'];
/** The dashboard's words for a transfer the service booked (sandbox/index.js dashboardCsv). */
const DASHBOARD_PAID = ['SUCCESS', 'PENDING'];
const DONE = ['success', 'error', 'crashed', 'canceled'];
/** A run whose execution made no request for this long and never finished was lost with a killed process. */
const LOST_AFTER_MS = 120000;

/** What tells a row apart in the ledger: its Transfer ID (standard, card) or its amount in paise (internal, keyed by a Top-Up Key). */
const TRANSFER_ID_PREFIX = { standard: 'chaos_std_', card: 'chaos_card_' };
const FIRST_INTERNAL_PAISE = 100;
const rowKey = (kind, index) => (kind === 'internal' ? `internal:${FIRST_INTERNAL_PAISE + index}` : `${TRANSFER_ID_PREFIX[kind]}${index}`);

/** The rows of each kind, as the Code node's expression of `i`. */
const ROW_CODE = {
	standard: `{ beneId: '${sandboxSeed.beneficiaries.verified}', amount: 1, transferId: '${TRANSFER_ID_PREFIX.standard}' + i }`,
	card: `{ card: '${sandboxSeed.cards.success1}', amount: '1.00', transferId: '${TRANSFER_ID_PREFIX.card}' + i }`,
	internal: `{ account: '${sandboxSeed.rechargeAccounts.configured}', amount: (${FIRST_INTERNAL_PAISE} + i) / 100, key: 'chaos-int-' + i }`,
};

/** Manual Trigger → one Code node of rows and one Pay node per kind, as a user's batch would be. */
function batchWorkflow(rowsPerKind, concurrency) {
	const credentials = { payoutsApi: { id: n8n.CREDENTIAL_ID, name: 'Payouts Sandbox' } };
	// What the dashboard says of a row in doubt comes in a column (Options > Settle With Dashboard Status).
	const options = { concurrency, retries: 3, dashboardStatus: '={{ $json.dashboardStatus }}' };
	const pays = {
		standard: { operation: 'standardTransfer', beneId: '={{ $json.beneId }}', amount: '={{ $json.amount }}', transferId: '={{ $json.transferId }}', transferMode: 'banktransfer', additionalFields: {}, options },
		card: { operation: 'cardTransfer', token: '={{ $json.card }}', amount: '={{ $json.amount }}', transferId: '={{ $json.transferId }}', cardType: 'DEBIT', additionalFields: {}, options },
		// Keyed by a column.
		internal: { operation: 'internalTransfer', amount: '={{ $json.amount }}', rechargeAccount: '={{ $json.account }}', topUpKey: '={{ $json.key }}', additionalFields: {}, options },
	};
	const nodes = [{ id: 'chaos-start', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 200], parameters: {} }];
	const connections = { Start: { main: [[]] } };
	KINDS.forEach((kind, lane) => {
		const code = rowsCode(kind, rowsPerKind, {});
		nodes.push({ id: `chaos-rows-${kind}`, name: `Rows ${kind}`, type: 'n8n-nodes-base.code', typeVersion: 2, position: [220, lane * 200], parameters: { jsCode: code } });
		// On Error: Continue, so one unknown row does not stop the other 9,999 (the recipe for big batches).
		nodes.push({ id: `chaos-pay-${kind}`, name: `Pay ${kind}`, type: 'n8n-nodes-payouts.payoutsTransfer', typeVersion: 1, position: [440, lane * 200], credentials, onError: 'continueRegularOutput', retryOnFail: true, maxTries: 2, parameters: pays[kind] });
		connections.Start.main[0].push({ node: `Rows ${kind}`, type: 'main', index: 0 });
		connections[`Rows ${kind}`] = { main: [[{ node: `Pay ${kind}`, type: 'main', index: 0 }]] };
	});
	return { id: 'payoutsChaosBatch', name: 'Chaos: the batch', active: false, nodes, connections, settings: { executionOrder: 'v1' } };
}

/**
 * The Code node of a kind's rows: each row, the dashboard's status of its Transfer ID where one was
 * read (`statuses`), and a new key for a row whose not-paid status was acted on and is still not
 * paid (`rekeyed`: the node will not send its Transfer ID a third time).
 */
function rowsCode(kind, rowsPerKind, statuses, rekeyed = {}) {
	return `const statuses = ${JSON.stringify(statuses)};\nconst rekeyed = ${JSON.stringify(rekeyed)};\nreturn Array.from({ length: ${rowsPerKind} }, (_, i) => { const row = ${ROW_CODE[kind]}; return { json: { ...row, ...(rekeyed[i] ? { key: rekeyed[i] } : {}), dashboardStatus: statuses[i] ?? '' } }; });`;
}

/** The dashboard's CSV export as a map of Transfer ID to status (the export quotes no field of ours). */
function dashboardStatuses(csv) {
	const [, ...lines] = csv.split('\r\n');
	return new Map(lines.filter(Boolean).map((line) => line.split(',')).map(([transferId, status]) => [transferId, status]));
}

function parseArgs(argv) {
	const options = { rows: 30000, seed: 1, rate: 0.02, kills: 6, runs: 30, latency: 30, jitter: 20, concurrency: 10, keep: false };
	for (let index = 0; index < argv.length; index++) {
		const name = argv[index].replace(/^--/, '');
		if (name === 'keep') options.keep = true;
		else if (name === 'dir' || name === 'json') options[name] = argv[++index];
		else if (name in options) options[name] = Number(argv[++index]);
		else throw new Error(`unknown option --${name}; see the header of scripts/chaos.js`);
	}
	return options;
}

const keyOf = (transfer) => (transfer.operation === 'internalTransfer' ? `internal:${Math.round(transfer.amount * 100)}` : transfer.transferId);

/** Judges the ledger and every saved output: the report, and the rows' lines for a test. */
function judge(ledger, outputs, rowsPerKind) {
	const countOf = new Map();
	const byTransferId = new Map();
	for (const transfer of ledger) {
		if (!byTransferId.has(transfer.transferId)) byTransferId.set(transfer.transferId, []);
		byTransferId.get(transfer.transferId).push(transfer);
		const key = keyOf(transfer);
		countOf.set(key, (countOf.get(key) ?? 0) + 1);
	}
	const tally = { rows: 0, paidOnce: 0, paidTwice: 0, unpaid: 0, untrue: 0 };
	for (const kind of KINDS) {
		for (let index = 0; index < rowsPerKind; index++) {
			const count = countOf.get(rowKey(kind, index)) ?? 0;
			tally.rows += 1;
			if (count === 1) tally.paidOnce += 1;
			else if (count === 0) tally.unpaid += 1;
			else tally.paidTwice += 1;
		}
	}
	const untrue = [];
	for (const { kind, items } of outputs) {
		items.forEach((item, index) => {
			if (!PAID.includes(item.status)) return;
			// Its own payment: this row's, and booked under the Transfer ID the item names.
			const own = (byTransferId.get(item.transferId) ?? []).filter((transfer) => keyOf(transfer) === rowKey(kind, index));
			if (own.length === 0) untrue.push({ kind, index, item });
		});
	}
	tally.untrue = untrue.length;
	return { ...tally, untrueExamples: untrue.slice(0, 5) };
}

async function runChaos(given = {}) {
	const options = { ...parseArgs([]), ...given };
	const rowsPerKind = Math.floor(options.rows / KINDS.length);
	const random = seededRandom(options.seed * 7919 + 1);
	const say = options.log ?? ((line) => process.stderr.write(`[chaos] ${line}\n`));
	const baseDir = options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'payouts-chaos-'));
	fs.mkdirSync(baseDir, { recursive: true });
	if (typeof process.getuid === 'function' && process.getuid() === 0) fs.chmodSync(baseDir, 0o755);
	const started = Date.now();
	const report = { rows: rowsPerKind * KINDS.length, seed: options.seed, rate: options.rate, runs: 0, kills: [], faultsInjected: {}, seconds: 0 };
	const sandbox = await startSandbox({ latencyMs: options.latency, latencyJitterMs: options.jitter, internalDuplicates: 'book', chaos: { seed: options.seed, rate: options.rate } });
	const workflow = batchWorkflow(rowsPerKind, options.concurrency);
	let stack;
	try {
		say(`${report.rows} rows, seed ${options.seed}, fault rate ${options.rate}, ${options.kills} kills; queue mode in ${baseDir}`);
		stack = await queue.startQueueStack({ baseDir, sandbox, seed: sandboxSeed, workers: 2, workerConcurrency: 2, workflows: [workflow], fast: true, onStep: (step) => say(`starting ${step}`) });
		const api = async (method, route, body) => {
			for (let attempt = 0; ; attempt++) {
				try {
					const response = await fetch(`${stack.main.url}/rest${route}`, { method, headers: { cookie: stack.cookie, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
					const text = await response.text();
					const refused = n8n.sessionRefused(response, text);
					if (refused && attempt <= 90) {
						// A restarted main may refuse a session it accepted (n8n.sessionRefused): sign in again.
						say(`${method} ${route}: n8n refused the session (${refused}): signing in again`);
						stack.cookie = await n8n.ensureOwner(stack.main.url);
						continue;
					}
					if (response.ok) return JSON.parse(text).data;
					if (attempt > 90) throw new Error(`${method} ${route}: HTTP ${response.status} ${text.slice(0, 300)}`);
				} catch (failure) {
					if (attempt > 90) throw failure;
				}
				await sleep(2000); // the main is down or restarting
			}
		};
		const flatted = require(require.resolve('flatted', { paths: [n8n.RUNTIME_DIR] }));
		const outputs = [];
		let killsLeft = options.kills;
		/** Rows given a new key, by kind and row: kept for every later run. */
		const rekeyed = {};
		/** What each row read run by run (and the status it was given): why a row stays unsettled. */
		const histories = new Map();

		const kill = async (executionId) => {
			const victim = ['worker', 'main', 'both', 'worker'][Math.floor(random() * 4)];
			const busy = queue.workerOfExecution(stack, executionId);
			const workerIndex = Math.max(0, stack.workers.findIndex((worker) => worker.name === busy[busy.length - 1]));
			const paidAt = sandbox.state().count;
			if (victim !== 'main') stack.workers[workerIndex].kill();
			if (victim !== 'worker') stack.main.child.kill('SIGKILL');
			report.kills.push({ run: report.runs, victim: victim === 'main' ? 'main' : `${stack.workers[workerIndex].name}${victim === 'both' ? ' and main' : ''}`, ledgerAt: paidAt });
			say(`run ${report.runs}: SIGKILL ${report.kills.at(-1).victim} with ${paidAt} transfers in the ledger`);
			await sleep(2000);
			if (victim !== 'worker') await stack.startMain();
			if (victim !== 'main') await stack.startWorker(workerIndex);
		};

		for (;;) {
			if (report.runs >= options.runs) throw new Error(`no run ended with every row settled in ${options.runs} runs`);
			report.runs += 1;
			const workflowData = await api('GET', `/workflows/${workflow.id}`);
			const { executionId } = await api('POST', `/workflows/${workflow.id}/run`, { workflowData, triggerToStartFrom: { name: 'Start' } });
			const runStarted = Date.now();
			// A kill lands at a random point of what is left to pay: after that many transfer requests of this run.
			const transferRequests = () => sandbox.requestCount(); // the batch makes no other request
			const requestsAtStart = transferRequests();
			const left = report.rows - sandbox.state().count;
			let killAfter = killsLeft > 0 && left >= 10 ? Math.floor(left * (0.1 + 0.5 * random())) : Infinity;
			let lastRequests = requestsAtStart;
			let lastChange = Date.now();
			let saved;
			for (let polls = 0; ; polls++) {
				await sleep(250);
				const requests = transferRequests();
				if (requests !== lastRequests) [lastRequests, lastChange] = [requests, Date.now()];
				if (requests - requestsAtStart >= killAfter && killsLeft > 0) {
					killsLeft -= 1;
					killAfter = Infinity; // one kill a run
					await kill(executionId);
					lastChange = Date.now();
				}
				if (polls % 8 !== 7) continue;
				const found = await api('GET', `/executions/${executionId}`).catch(() => undefined);
				if (found && DONE.includes(found.status)) {
					saved = found;
					break;
				}
				if (Date.now() - lastChange > LOST_AFTER_MS) break;
			}
			if (!saved) {
				say(`run ${report.runs}: execution ${executionId} made no request for ${LOST_AFTER_MS / 1000} s and did not finish: lost with a killed process; running the batch again`);
				continue;
			}
			const runData = saved.data ? flatted.parse(saved.data).resultData.runData : {};
			const settled = { ...Object.fromEntries(KINDS.map((kind) => [kind, 0])) };
			// The recipe: for each row in doubt, the dashboard's status of its Transfer ID (NOT_FOUND when the export lacks it).
			const dashboard = dashboardStatuses(sandbox.dashboardCsv());
			const looked = {};
			/** Rows not settled by this run, by kind and status: what the run's line says of them. */
			const unsettled = {};
			const stuckExample = {};
			let rekeyedNow = 0;
			for (const kind of KINDS) {
				const items = (runData[`Pay ${kind}`]?.at(-1)?.data?.main?.[0] ?? []).map((item) => item.json);
				outputs.push({ kind, items });
				items.forEach((item, index) => {
					if (PAID.includes(item.status)) settled[kind] += 1;
					// The recipe for ALREADY_EXISTS (docs/safety.md): look the Transfer ID up in the dashboard.
					// A card or standard row whose request went out as n8n was killed, before its claim was
					// written, reads so on the re-run; the dashboard has it paid: settled, nothing to change.
					else if (item.status === 'ALREADY_EXISTS' && DASHBOARD_PAID.includes(dashboard.get(item.transferId))) settled[kind] += 1;
					else if (/to Options > 'Settle With Dashboard Status'/i.test(String(item.hint ?? ''))) looked[kind] = { ...looked[kind], [index]: dashboard.get(item.transferId) ?? 'NOT_FOUND' };
					else if (/acted on by an earlier run/.test(String(item.hint ?? ''))) {
						// A fresh look: paid now, or still not paid and paid under a new key, as the hint says.
						if (dashboard.has(item.transferId)) looked[kind] = { ...looked[kind], [index]: dashboard.get(item.transferId) };
						else {
							rekeyed[kind] = { ...rekeyed[kind], [index]: `chaos-int-${index}-again-${report.runs}` };
							rekeyedNow += 1;
						}
					}
					const said = `${item.status}${item.dashboardStatus ? ` (given ${item.dashboardStatus})` : ''}`;
					histories.set(`${kind} ${index}`, [...(histories.get(`${kind} ${index}`) ?? []), `${report.runs}: ${said}`]);
					if (!PAID.includes(item.status)) {
						unsettled[`${kind} ${item.status}`] = (unsettled[`${kind} ${item.status}`] ?? 0) + 1;
						// One of each, with what it was given and said: why a row stays unsettled run after run.
						stuckExample[`${kind} ${item.status}`] ??= `${item.transferId} (given ${item.dashboardStatus || 'no status'}): ${String(item.message ?? item.error ?? '').slice(0, 160)} | ${String(item.hint ?? '').slice(0, 160)} | runs: ${(histories.get(`${kind} ${index}`) ?? []).join(', ')}`;
					}
				});
			}
			const counts = KINDS.map((kind) => `${kind} ${settled[kind]}/${rowsPerKind}`).join(', ');
			if (rekeyedNow) say(`run ${report.runs}: ${rekeyedNow} rows still not paid after their not-paid status was acted on: new keys`);
			const written = Object.values(looked).reduce((sum, statuses) => sum + Object.keys(statuses).length, 0);
			say(`run ${report.runs}: execution ${executionId} ${saved.status} in ${Math.round((Date.now() - runStarted) / 1000)} s; settled ${counts}; ${written} dashboard statuses read; not paid in this run's output: ${JSON.stringify(unsettled)}`);
			if (process.env.CHAOS_VERBOSE) for (const [what, example] of Object.entries(stuckExample)) say(`  ${what}, e.g. ${example}`);
			if (saved.status === 'success' && KINDS.every((kind) => settled[kind] === rowsPerKind)) break;
			// The statuses go in the rows' column for the next run; a row's status from an earlier look is replaced by the new one.
			const current = await api('GET', `/workflows/${workflow.id}`);
			for (const node of current.nodes) {
				const kind = KINDS.find((candidate) => node.name === `Rows ${candidate}`);
				if (kind) node.parameters.jsCode = rowsCode(kind, rowsPerKind, looked[kind] ?? {}, rekeyed[kind] ?? {});
			}
			await api('PATCH', `/workflows/${workflow.id}`, { nodes: current.nodes, connections: current.connections, versionId: current.versionId });
		}
		report.faultsInjected = sandbox.state().faultsInjected;
		Object.assign(report, judge(sandbox.state().transfers, outputs, rowsPerKind));
		report.payments = sandbox.state().count;
	} finally {
		report.seconds = Math.round((Date.now() - started) / 1000);
		await stack?.stop();
		await sandbox.close();
		if (!options.keep && !options.dir) fs.rmSync(baseDir, { recursive: true, force: true });
	}
	report.line = `chaos: ${report.rows} rows, ${report.paidOnce} paid once, ${report.paidTwice} paid twice, ${report.unpaid} unpaid, ${report.untrue} untrue outputs`;
	report.passed = report.paidTwice === 0 && report.unpaid === 0 && report.untrue === 0 && report.paidOnce === report.rows;
	return report;
}

function print(report) {
	const faults = Object.entries(report.faultsInjected).map(([kind, count]) => `${kind} ${count}`).join(', ');
	const lines = [
		`rows ${report.rows} (a third each: standard, card, internal keyed by a column), seed ${report.seed}, fault rate ${report.rate}`,
		`payments in the ledger ${report.payments}; rows paid once ${report.paidOnce}, paid twice ${report.paidTwice}, unpaid ${report.unpaid}`,
		`output items that say paid without their own payment: ${report.untrue}`,
		`kills ${report.kills.length}: ${report.kills.map((kill) => `${kill.victim} (run ${kill.run}, ledger at ${kill.ledgerAt})`).join('; ')}`,
		`faults injected ${Object.values(report.faultsInjected).reduce((sum, count) => sum + count, 0)}: ${faults}`,
		`runs ${report.runs} (re-runs ${report.runs - 1}), time ${Math.floor(report.seconds / 60)} min ${report.seconds % 60} s`,
		report.line,
	];
	process.stdout.write(`${lines.join('\n')}\n`);
}

if (require.main === module) {
	const options = parseArgs(process.argv.slice(2));
	runChaos(options)
		.then((report) => {
			print(report);
			if (options.json) fs.writeFileSync(options.json, JSON.stringify(report, null, 2));
			process.exit(report.passed ? 0 : 1);
		})
		.catch((failure) => {
			process.stderr.write(`chaos run failed: ${failure.stack ?? failure}\n`);
			process.exit(1);
		});
}

module.exports = { runChaos, judge, batchWorkflow, print };

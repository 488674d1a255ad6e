'use strict';
/**
 * A workflow run with `n8n execute`, and what a run did, read from whatever form it comes in and
 * said in one line for an assertion's message.
 */
const { n8nCli } = require('./server');
const { RUNTIME } = require('./runtime');

/**
 * Runs a saved workflow with `n8n execute --rawOutput`: { code, run } with run the result JSON.
 * n8n's CLI has been seen ended by a signal: once on 1.123.81 after it printed the whole result (on
 * its way out), and by SIGSEGV on 2.41.1 in CI (its output not kept). With the whole result
 * printed, the result is the run's and its exit code is
 * the one n8n gives it (1 when the run holds an error, else 0), with a console line saying so. A
 * signal before the whole result was printed is thrown with n8n's output: the run's outcome is
 * not known, and it is never run again here.
 */
async function executeWorkflow(id, env, { runtime = RUNTIME } = {}) {
	const result = await n8nCli(['execute', `--id=${id}`, '--rawOutput'], env, { runtime });
	if (!result.signal) return { code: result.code, run: parseExecuteOutput(result.stdout) };
	let run;
	try {
		run = parseExecuteOutput(result.stdout);
	} catch {
		throw new Error(
			`n8n execute --id=${id} was ended by ${result.signal} before it printed its result; its stdout:\n${result.stdout.slice(-2000)}\nits stderr:\n${result.stderr.slice(-2000)}`,
		);
	}
	console.warn(
		`n8n execute --id=${id} was ended by ${result.signal} after it printed its whole result; the result is read as the run's`,
	);
	return { code: run.data?.resultData?.error ? 1 : 0, run };
}

/** The result JSON of `n8n execute --rawOutput`, which prints log lines before (and after) it. */
function parseExecuteOutput(stdout) {
	const lines = stdout.split('\n');
	const first = lines.indexOf('{');
	const last = lines.lastIndexOf('}');
	if (first >= 0 && last > first) return JSON.parse(lines.slice(first, last + 1).join('\n'));
	throw new Error(`no JSON in n8n's output:\n${stdout.slice(-2000)}`);
}

/** n8n's own copy of flatted (the form n8n stores run data in), from the runtime in use. */
function flatted(runtime = RUNTIME) {
	return require(require.resolve('flatted', { paths: [runtime.dir] }));
}

/**
 * The run data of an execution, whatever form it comes in: what `executeWorkflow` returns
 * (`{ code, run }`), the JSON of `n8n execute --rawOutput` (`{ data: { resultData } }`), a saved
 * execution from `GET /rest/executions/<id>` (`{ status, data }`, data flatted), or run data itself
 * (`{ resultData }`). Gives `{ status, resultData }` (status: n8n's, or "exit code N" from the CLI).
 */
function runDataOf(result) {
	if (!result || typeof result !== 'object') return { status: undefined, resultData: undefined };
	let status = typeof result.status === 'string' ? result.status : undefined;
	let run = result;
	if ('run' in result && 'code' in result) {
		status = `exit code ${result.code}`;
		run = result.run;
	}
	let data = run?.resultData ? run : run?.data;
	if (typeof data === 'string') data = flatted().parse(data);
	if (!status && typeof run?.status === 'string') status = run.status;
	return { status, resultData: data?.resultData };
}

const clip = (text, length = 160) => {
	const flat = String(text ?? '')
		.replace(/\s+/g, ' ')
		.trim();
	return flat.length > length ? `${flat.slice(0, length - 1)}…` : flat;
};

/** What a Transfer ID says of the test that paid it: its letters, without the row number or the node's UUID. */
function transferIdFamily(transferId) {
	const id = String(transferId ?? '');
	if (!id) return '(no Transfer ID)';
	return id
		.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, '<uuid>')
		.replace(/\d+$/, '#');
}

/**
 * The sandbox's ledger in a few words: how many transfers, grouped by their Transfer IDs' family
 * (the ID without its row number: `nov_payout_#`), the Transfer IDs paid more than once, and the
 * amounts when there are few. `ledger`: `sandbox.state().transfers`, or the sandbox itself.
 */
function describeLedger(ledger) {
	const transfers = typeof ledger?.state === 'function' ? ledger.state().transfers : (ledger ?? []);
	if (!transfers.length) return 'ledger: empty';
	const families = new Map();
	const seen = new Map();
	for (const transfer of transfers) {
		const family = transferIdFamily(transfer.transferId);
		families.set(family, (families.get(family) ?? 0) + 1);
		seen.set(transfer.transferId, (seen.get(transfer.transferId) ?? 0) + 1);
	}
	const twice = [...seen]
		.filter(([id, count]) => id && count > 1)
		.map(([id, count]) => `${id} ×${count}`);
	const parts = [
		`ledger: ${transfers.length} transfer${transfers.length === 1 ? '' : 's'} (${[...families].map(([family, count]) => `${family} ${count}`).join(', ')})`,
	];
	if (twice.length) parts.push(`paid more than once: ${clip(twice.join(', '), 200)}`);
	if (transfers.length <= 6)
		parts.push(
			`rows: ${transfers.map((transfer) => `${transfer.transferId || '?'} ${transfer.amount}`).join(', ')}`,
		);
	return parts.join('; ');
}

/**
 * One line that says why a run ended as it did, for an assertion's message:
 * "execution (error): NodeApiError: Beneficiary does not exist [item 0] (No beneficiary has…);
 * node output by status: Pay: SUCCESS 3, ERROR 1 (first ERROR: nov_payout_0002: …); ledger: 4
 * transfers (nov_payout_# 4)". `result`: anything `runDataOf` reads; `ledger` (optional):
 * `sandbox.state().transfers` or the sandbox. Items with a `status` field (our transfer nodes'
 * output) are counted by status, per node; a node that failed says its error.
 */
function describeExecution(result, { ledger } = {}) {
	const parts = [];
	let status;
	let resultData;
	try {
		({ status, resultData } = runDataOf(result));
	} catch (error) {
		parts.push(`run data unreadable: ${clip(error.message)}`);
	}
	const error = resultData?.error;
	const errorText = error
		? `${error.name ?? 'Error'}: ${clip(error.message, 200)}${error.description ? ` (${clip(error.description, 200)})` : ''}${error.node?.name ? ` in node '${error.node.name}'` : ''}`
		: 'no error';
	parts.unshift(`execution${status ? ` (${status})` : ''}: ${errorText}`);
	const byNode = [];
	for (const [node, tasks] of Object.entries(resultData?.runData ?? {})) {
		const counts = new Map();
		let firstBad;
		for (const task of tasks ?? []) {
			if (task?.error) byNode.push(`${node}: failed: ${clip(task.error.message, 160)}`);
			for (const output of task?.data?.main ?? []) {
				for (const item of output ?? []) {
					const json = item?.json ?? {};
					if (typeof json.status !== 'string') continue;
					counts.set(json.status, (counts.get(json.status) ?? 0) + 1);
					if (!firstBad && !['SUCCESS', 'ALREADY_SUBMITTED'].includes(json.status)) {
						const why = json.error?.message ?? json.message ?? json.hint ?? json.error ?? '';
						firstBad = `first ${json.status}: ${json.transferId ?? '?'}: ${clip(typeof why === 'string' ? why : JSON.stringify(why), 160)}`;
					}
				}
			}
		}
		if (counts.size)
			byNode.push(
				`${node}: ${[...counts].map(([key, count]) => `${key} ${count}`).join(', ')}${firstBad ? ` (${firstBad})` : ''}`,
			);
	}
	parts.push(
		`node output by status: ${byNode.length ? byNode.join('; ') : resultData ? 'no item with a status' : 'no run data'}`,
	);
	if (ledger !== undefined) parts.push(describeLedger(ledger));
	return parts.join('; ');
}

module.exports = {
	executeWorkflow,
	parseExecuteOutput,
	flatted,
	runDataOf,
	describeExecution,
	describeLedger,
};

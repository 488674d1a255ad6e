import { randomUUID } from 'crypto';
import { DateTime } from 'luxon';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { displayNames } from '../input/describe';
import { guardIncidents } from '../incidents/guard';
import { checkItems, invalid } from '../input/items';
import { readOptions } from '../input/options';
import { rowOutcome } from '../outcomes/messages';
import { outputItems, refuseBatchIfAny, throwIfAnyFailed } from '../output/output';
import { newRun } from './run';
import { sendItems } from './lanes';
import { CREDENTIAL_TYPE, targetFor } from '../transport/target';
import type { PayoutsCredentials } from '../transport/target';
import type { PayoutOperation } from '../types';

/**
 * The one execute routine of every payouts node. A row travels down the folders of nodes/shared:
 * 1. input/: read and check every item before the first request (a bad row moves no money), each
 *    transfer with the Transfer ID it will be sent with; then, for standard transfers, the
 *    Incident Guard (incidents/);
 * 2. run/lanes.ts: send the good items, bounded and paced; run/sendRow.ts: each transfer claimed
 *    first in the record of sent transfers (record/), sent (transport/) again only with the same
 *    Transfer ID, its answer result (outcomes/interpret.ts), kept in the record and said
 *    (outcomes/messages.ts, the error table in outcomes/errors.ts);
 * 3. output/: output in input order, every item paired with the item it came from; without
 *    Continue On Fail, one error listing every row that needs the user.
 */
export async function runOperations(
	this: IExecuteFunctions,
	operations: PayoutOperation[],
): Promise<INodeExecutionData[][]> {
	const node = this.getNode();
	const operationValue = this.getNodeParameter('operation', 0) as string;
	const operation = operations.find((candidate) => candidate.value === operationValue);
	if (!operation)
		throw new NodeOperationError(node, `The operation '${operationValue}' is not known`);
	const options = runOptions(this, operation);
	const credentials = await this.getCredentials<PayoutsCredentials>(CREDENTIAL_TYPE);
	const target = targetFor(this, operation, credentials, options);
	const continueOnFail = this.continueOnFail();
	const timezone = this.getTimezone();
	const workflowId = operation.movesMoney ? workflowIdOf(this) : '';

	// 1. Read and check every item before anything is sent.
	const schema = operation.schema({ timezone, now: DateTime.now().setZone(timezone) });
	// Only rows paid again on every run need the run's identity.
	const origin = {
		workflowId,
		nodeId: node.id,
		runId: options.payEveryRun ? runIdOf(this, options.dryRun) : '',
		runIndex: options.payEveryRun ? runIndexOf(this) : 0,
		payEveryRun: options.payEveryRun,
	};
	const { outcomes, secretsOf, ...checked } = await checkItems(
		this,
		operation,
		schema,
		displayNames(operation),
		[credentials.accessToken, credentials.clientSecret],
		origin,
	);
	let { planned } = checked;
	refuseBatchIfAny(node, outcomes, continueOnFail, 'invalid');
	// A row an earlier Payouts Transfer node left in doubt under another Transfer ID (a retry branch on its error output): never sent under a new one.
	for (const entry of planned) {
		if (entry.earlier && entry.earlier.transferId !== entry.transferId)
			outcomes.set(
				entry.index,
				rowOutcome(entry, { kind: 'earlierNodeInDoubt', earlier: entry.earlier }, { operation }),
			);
	}
	planned = planned.filter((entry) => !outcomes.has(entry.index));

	// The Incident Guard, when chosen: every item checked against open incidents before anything is sent.
	const notes = new Map<number, IDataObject>();
	if (operation.incidentGuard && options.incidentGuard) {
		const { transferMode, beneId } = operation.incidentGuard;
		const guarded = planned.map(({ index, params }) => ({
			index,
			params,
			transferMode: transferMode(params),
			beneId: beneId(params),
		}));
		const results = await guardIncidents(this, target, options.incidentGuard, guarded, timezone);
		for (const [index, item] of results.held) outcomes.set(index, { items: [item] });
		for (const [index, { rule, hint }] of results.refused)
			outcomes.set(index, { failure: invalid(index, rule, hint) });
		for (const [index, note] of results.notes) notes.set(index, note);
		planned = planned.filter((entry) => !outcomes.has(entry.index));
		refuseBatchIfAny(node, outcomes, continueOnFail, 'refused by the Incident Guard');
	}

	// 2. Send (or, in a dry run, describe) the items, each claimed in the record first: every
	// transfer, whatever the options (an earlier step's claim is a guard more, not one instead).
	const run = newRun(this, operation, target, options, workflowId, planned.length);
	try {
		// On a queue-mode worker a transfer this node alone guards is not sent (a Dry Run shows it).
		if (run.unguardedInQueueMode && !options.dryRun) {
			const process = run.unguardedInQueueMode;
			for (const entry of planned)
				outcomes.set(
					entry.index,
					rowOutcome(entry, { kind: 'unguardedInQueueMode', process }, run),
				);
			planned = [];
		}
		const { sentItems } = await sendItems(run, planned, outcomes, secretsOf, notes);
		// 3. Output in input order; without Continue On Fail, rows that need the user end the run
		// with one error that lists them all.
		const paramsOf = new Map(checked.planned.map((entry) => [entry.index, entry.params]));
		const madeForRun = new Set(
			checked.planned.filter((entry) => entry.madeForRun).map((entry) => entry.index),
		);
		if (!continueOnFail)
			throwIfAnyFailed(
				node,
				outcomes,
				operation.movesMoney ? { items: sentItems, madeForRun } : undefined,
				paramsOf,
			);
		return outputItems(node, this.getInputData().length, outcomes, notes, paramsOf);
	} finally {
		// A run ends once its record is written: a row it reports paid reads paid in any later run.
		await run.record?.close((warning) => this.logger.warn(`Payouts: ${warning}`));
	}
}

/** Where the run's id is kept: the execution's custom data, which n8n saves with its run data. */
const RUN_ID_KEY = 'payoutsRun';

/**
 * The execution's run, for Transfer IDs made for it (Pay Again on Every Run): n8n's Retry of a
 * failed execution carries the execution's custom data over, so it sends the same Transfer IDs and
 * reads what the failed execution paid; a new execution makes a new one. A Dry Run writes nothing,
 * custom data included. Where n8n keeps no custom data (full, or an n8n without it), the execution's id.
 */
function runIdOf(context: IExecuteFunctions, dryRun: boolean): string {
	const executionId = context.getExecutionId() || randomUUID();
	try {
		// n8n 2.35 and later give nodes `customData`; earlier ones, the `$execution.customData` of expressions.
		const custom =
			(context as Partial<Pick<IExecuteFunctions, 'customData'>>).customData ??
			(
				context.getWorkflowDataProxy(0).$execution as
					| { customData?: IExecuteFunctions['customData'] }
					| undefined
			)?.customData;
		const kept = custom?.get(RUN_ID_KEY);
		if (kept) return kept;
		if (dryRun || !custom) return executionId;
		const made = randomUUID();
		custom.set(RUN_ID_KEY, made);
		return custom.get(RUN_ID_KEY) === made ? made : executionId;
	} catch {
		return executionId;
	}
}

/** The node's run in this execution: a loop runs it again, n8n's Retry On Fail repeats the same run. */
function runIndexOf(context: IExecuteFunctions): number {
	return Number(context.getWorkflowDataProxy(0).$runIndex) || 0;
}

/** The Options collection, checked before anything else happens. */
function runOptions(context: IExecuteFunctions, operation: PayoutOperation) {
	const node = context.getNode();
	const given = context.getNodeParameter('options', 0, {}) as Parameters<typeof readOptions>[1];
	const options = readOptions(operation, given);
	// n8n gives a node used as an AI agent's tool the type "<node type>Tool".
	if (node.type.endsWith('Tool') && !options.allowAgentUse) {
		throw new NodeOperationError(
			node,
			`${node.name} does not run as an AI agent's tool unless allowed`,
			{
				description:
					"This operation moves money or hands out secrets. Turn on 'Allow Use by AI Agents' in the node's Options only if the agent's inputs are checked, e.g. by a human approval step.",
			},
		);
	}
	return options;
}

/** The workflow's id keys the node's record of sent transfers; n8n gives every saved workflow one. */
function workflowIdOf(context: IExecuteFunctions): string {
	const { id } = context.getWorkflow();
	if (!id) {
		throw new NodeOperationError(context.getNode(), 'Save the workflow before it sends transfers', {
			description:
				'The node keeps its record of sent transfers under the saved workflow, so that no re-run pays twice. Nothing was sent.',
		});
	}
	return String(id);
}

import { randomUUID } from 'crypto';
import { DateTime } from 'luxon';
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { displayNames } from './describe';
import { guardIncidents } from './incidentGuard';
import { checkItems, invalid } from './items';
import { readOptions } from './options';
import { outputItems, refuseBatchIfAny, throwIfAnyFailed } from './output';
import { TransferRecord } from './record';
import type { Run } from './routine';
import { sendItems } from './sending';
import { CREDENTIAL_TYPE, targetFor } from './transport';
import type { PayoutsCredentials } from './transport';
import type { PayoutOperation } from './types';

/**
 * The one execute routine of every payouts node, in four steps, each in a file of its own:
 * 1. items.ts: read and check every item before the first request (a bad row moves no money),
 *    each transfer with the Transfer ID it will be sent with; then, for standard transfers, the
 *    Incident Guard (incidentGuard.ts);
 * 2. sending.ts: send the good items, bounded, paced, each transfer claimed first in the record
 *    of sent transfers (record/), sent again only with the same Transfer ID;
 * 3. answers.ts: judge each answer by its body, ERROR subCodes mapped to hints (errors.ts);
 * 4. output.ts: output in input order, every item paired with the item it came from; without
 *    Continue On Fail, one error listing every row that needs the user.
 */
export async function runOperations(this: IExecuteFunctions, operations: PayoutOperation[]): Promise<INodeExecutionData[][]> {
	const node = this.getNode();
	const operationValue = this.getNodeParameter('operation', 0) as string;
	const operation = operations.find((candidate) => candidate.value === operationValue);
	if (!operation) throw new NodeOperationError(node, `The operation '${operationValue}' is not known`);
	const options = runOptions(this, operation);
	const credentials = await this.getCredentials<PayoutsCredentials>(CREDENTIAL_TYPE);
	const target = targetFor(this, operation, credentials, options);
	const continueOnFail = this.continueOnFail();
	const timezone = this.getTimezone();
	const workflowId = operation.movesMoney ? workflowIdOf(this) : '';
	const executionId = this.getExecutionId() || randomUUID();
	const run: Run = { context: this, operation, target, options, workflowId, executionId };

	// 1. Read and check every item before anything is sent.
	const schema = operation.schema({ timezone, now: DateTime.now().setZone(timezone) });
	// Only rows paid again on every run need the run's identity.
	const origin = { workflowId, nodeId: node.id, executionId, runIndex: options.payEveryRun ? runIndexOf(this) : 0, payEveryRun: options.payEveryRun };
	const { outcomes, secretsOf, ...checked } = await checkItems(this, operation, schema, displayNames(operation), [credentials.accessToken, credentials.clientSecret], origin);
	let { planned } = checked;
	refuseBatchIfAny(node, outcomes, continueOnFail, 'invalid');

	// The Incident Guard, when chosen: every item checked against open incidents before anything is sent.
	const notes = new Map<number, IDataObject>();
	if (operation.incidentGuard && options.incidentGuard) {
		const { transferMode, beneId } = operation.incidentGuard;
		const guarded = planned.map(({ index, params }) => ({ index, params, transferMode: transferMode(params), beneId: beneId(params) }));
		const verdicts = await guardIncidents(this, target, options.incidentGuard, guarded, timezone);
		for (const [index, item] of verdicts.held) outcomes.set(index, { items: [item] });
		for (const [index, { rule, hint }] of verdicts.refused) outcomes.set(index, { failure: invalid(index, rule, hint) });
		for (const [index, note] of verdicts.notes) notes.set(index, note);
		planned = planned.filter((entry) => !outcomes.has(entry.index));
		refuseBatchIfAny(node, outcomes, continueOnFail, 'refused by the Incident Guard');
	}

	// 2. Send (or, in a dry run, describe) the items, each claimed in the record first, unless an
	// earlier step of the workflow holds the claims.
	if (operation.movesMoney) run.guard = options.serviceRefusesRepeats ? 'service' : options.claimHeldEarlier ? 'earlierStep' : 'node';
	if ((run.guard === 'node' || run.guard === 'service') && planned.length > 0 && !options.dryRun) run.record = TransferRecord.open(this, workflowId, run.guard);
	try {
		const { sentItems } = await sendItems(run, planned, outcomes, secretsOf, notes);
		// 3. (each answer was judged as it came: answers.ts) 4. Output in input order; without
		// Continue On Fail, rows that need the user end the run with one error that lists them all.
		const paramsOf = new Map(checked.planned.map((entry) => [entry.index, entry.params]));
		if (!continueOnFail) throwIfAnyFailed(node, outcomes, operation.movesMoney ? sentItems : undefined, paramsOf);
		return outputItems(node, this.getInputData().length, outcomes, notes, paramsOf);
	} finally {
		// A run ends once its record is written: a row it reports paid reads paid in any later run.
		await run.record?.close((warning) => this.logger.warn(`Payouts: ${warning}`));
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
		throw new NodeOperationError(node, `${node.name} does not run as an AI agent's tool unless allowed`, {
			description: "This operation moves money or hands out secrets. Turn on 'Allow Use by AI Agents' in the node's Options only if the agent's inputs are checked, e.g. by a human approval step.",
		});
	}
	return options;
}

/** The workflow's id keys the node's record of sent transfers; n8n gives every saved workflow one. */
function workflowIdOf(context: IExecuteFunctions): string {
	const { id } = context.getWorkflow();
	if (!id) {
		throw new NodeOperationError(context.getNode(), 'Save the workflow before it sends transfers', {
			description: 'The node keeps its record of sent transfers under the saved workflow, so that no re-run pays twice. Nothing was sent.',
		});
	}
	return String(id);
}

/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports -- test code runs in Node under jest, never inside n8n (it reads files with Node's own modules); these rules guard the code n8n loads (nodes/, credentials/) */
/**
 * The status table (docs/nodes/payouts-transfer.md, "What each status means") against the node's
 * own words: every status and `nextStep` a transfer row can read, under every guard and option
 * that changes the words, is in the table's row for that status, and every `nextStep` the table
 * names for a status is one the node says. The words are the node's (outcomes/messages.ts `rowOutcome`),
 * for every verdict run/ can reach and every row of the error table.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { errorRows } from '../../nodes/shared/outcomes/errors';
import type { ServiceResult } from '../../nodes/shared/outcomes/interpret';
import { rowOutcome } from '../../nodes/shared/outcomes/messages';
import type { RunResult, MessageContext, RowResult } from '../../nodes/shared/outcomes/messages';
import type { Failure, NextStep, OperationName, Planned } from '../../nodes/shared/types';
import { OPERATIONS, plan } from '../unit/rows';

const TRANSFERS: OperationName[] = ['cardTransfer', 'standardTransfer', 'internalTransfer'];
const NEXT_STEPS: NextStep[] = [
	'runAgain',
	'fixRow',
	'settleFromDashboard',
	'newExport',
	'newTransferId',
	'lookUp',
	'settleClaim',
];

/** The table as the page has it: each status, and the `nextStep` words its row names. */
function statusTable(): Map<string, Set<string>> {
	const page = readFileSync(
		path.join(__dirname, '..', '..', 'docs', 'nodes', 'payouts-transfer.md'),
		'utf8',
	);
	const section = page.slice(page.indexOf('## What each status means'));
	const table = new Map<string, Set<string>>();
	for (const line of section.split('\n')) {
		const row = /^\| `([A-Z_]+)` \|(.*)\|$/.exec(line);
		if (!row) continue;
		const named = [...row[2].matchAll(/`([a-zA-Z]+)`/g)].map((match) => match[1]);
		table.set(row[1], new Set(named.filter((word) => (NEXT_STEPS as string[]).includes(word))));
		if (table.size > 0 && line.startsWith('**Which output**')) break;
	}
	return table;
}

const said = { subCode: '500', message: 'Internal server error' };
const stopped: Failure = {
	message: 'APIs not enabled',
	hint: 'Enable the APIs.',
	status: 'ERROR',
	fromService: true,
	retryable: false,
	nextStep: 'runAgain',
	stopsBatch: true,
};
/** Every verdict run/ can give a transfer row: the record's and the run's, and each kind of answer. */
function verdicts(operation: OperationName): RowResult[] {
	const refusals: ServiceResult[] = errorRows
		.filter((row) => !row.unknownOutcome && (!row.operations || row.operations.includes(operation)))
		.map((row) => ({
			kind: 'refused',
			said: { subCode: row.subCode, message: 'refused' },
			row,
			serverSide: row.subCode.startsWith('5'),
		}));
	const rowResults: RunResult[] = [
		{ kind: 'alreadySubmitted' },
		{ kind: 'alreadyExists', said },
		{ kind: 'heldByService', said },
		{ kind: 'heldByService', said, predates: 'NOT_FOUND' },
		{ kind: 'cannotPayUnder', word: 'FAILED' },
		{ kind: 'notPaidByDashboard', word: 'FAILED' },
		{ kind: 'inDoubt' },
		{ kind: 'otherValues' },
		{ kind: 'refusedResend', refusal: refusals[0] },
		{ kind: 'stoppedBeforeSending' },
		{ kind: 'notSentAfter', stopped },
		{ kind: 'recordFailed', reason: 'SQLITE_BUSY' },
		{ kind: 'recordFull', size: 50_000 },
		{ kind: 'earlierNodeInDoubt', earlier: { status: 'UNKNOWN', transferId: 'other_1' } },
		{ kind: 'earlierNodeInDoubt', earlier: { status: 'ALREADY_EXISTS', transferId: 'other_1' } },
		{ kind: 'unguardedInQueueMode', process: 'worker' },
	];
	return [
		...rowResults,
		...refusals,
		{ kind: 'paid', items: [{ status: 'SUCCESS' }] },
		{ kind: 'paid', items: [{ status: 'PENDING' }] },
		{ kind: 'repeatRefused', said },
		{ kind: 'unclear', what: 'the request timed out', noAnswer: true },
		{ kind: 'unreachable', reason: 'ECONNREFUSED' },
		{ kind: 'notTheService', httpStatus: 404, said: 'Not Found' },
	];
}

/** Who speaks: each guard the operation can have, and the options that change the words. */
function speakers(operation: OperationName): MessageContext[] {
	const op = OPERATIONS[operation];
	if (op.refusesDuplicateTransferId) return [{ operation: op, guard: 'service' }];
	return [
		{ operation: op, guard: 'node' },
		{ operation: op, guard: 'node', options: { claimHeldEarlier: true } },
		{ operation: op, guard: 'service' },
	];
}

/** The rows a speaker's words are about: a row with a key of its own, and one made for the execution. */
function rows(operation: OperationName): Planned[] {
	const op = OPERATIONS[operation];
	if (operation !== 'internalTransfer') return [plan(op)];
	return [
		plan(op),
		plan(op, { amount: '500', rechargeAccount: 'RECHARGE001' }, 0, {
			workflowId: 'wf1',
			nodeId: 'n1',
			runId: 'run1',
			runIndex: 0,
			payEveryRun: true,
		}),
	];
}

/** Every status and nextStep the node says of a transfer row. */
function nodeWords(): Map<string, Set<string>> {
	const words = new Map<string, Set<string>>();
	for (const operation of TRANSFERS)
		for (const speaker of speakers(operation))
			for (const entry of rows(operation))
				for (const verdict of verdicts(operation)) {
					const outcome = rowOutcome(entry, verdict, speaker);
					const [status, nextStep] =
						'failure' in outcome
							? [outcome.failure.status, outcome.failure.nextStep]
							: [String(outcome.items[0]?.status), undefined];
					const steps = words.get(status) ?? new Set<string>();
					if (nextStep) steps.add(nextStep);
					words.set(status, steps);
				}
	return words;
}

test("the status table names every status and nextStep a transfer row can read, and only those: the node's words, under every guard and option", () => {
	const table = statusTable();
	const node = nodeWords();
	// HELD is the Incident Guard's, before any verdict: the table has it, the verdicts do not.
	expect([...node.keys()].sort()).toEqual([...table.keys()].filter((s) => s !== 'HELD').sort());
	for (const [status, steps] of node)
		expect({ status, nextSteps: [...steps].sort() }).toEqual({
			status,
			nextSteps: [...(table.get(status) ?? [])].sort(),
		});
});

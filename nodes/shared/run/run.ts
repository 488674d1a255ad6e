import type { IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import type { RunOptions } from '../input/options';
import { TransferRecord } from '../record';
import type { SendTarget } from '../transport/target';
import type { Failure, PayoutOperation, RepeatGuard } from '../types';

/** Everything one run needs to send its items, built once by `newRun`; only `stopped` changes after. */
export interface Run {
	context: IExecuteFunctions;
	operation: PayoutOperation;
	target: SendTarget;
	options: RunOptions;
	workflowId: string;
	/** Who refuses a repeat of a transfer (transfers only). */
	guard?: RepeatGuard;
	/** What this workflow sent before: every transfer's, whatever the options (closed by the run's end). */
	record?: TransferRecord;
	/** A queue-mode process's kind, where this node alone would guard a transfer: nothing is sent (a Dry Run says so). */
	unguardedInQueueMode?: string;
	/** A row that needs the user ends the execution with an error (no Continue On Fail): n8n's Retry of it runs the node again. */
	failsExecution: boolean;
	/** Requests Per Second: waits for the next request's turn. */
	pace?: () => Promise<void>;
	/** The first failure that says nothing of one row alone: the run sends nothing more (run/lanes.ts). */
	stopped?: Failure;
}

/** A run of `rows` items (its record opened where a transfer is sent or described). */
export function newRun(
	context: IExecuteFunctions,
	operation: PayoutOperation,
	target: SendTarget,
	options: RunOptions,
	workflowId: string,
	rows: number,
): Run {
	const guard = operation.movesMoney
		? options.serviceRefusesRepeats
			? ('service' as const)
			: ('node' as const)
		: undefined;
	const unguardedInQueueMode = guard && queueProcessUnguarded(context, options);
	const sends = guard !== undefined && rows > 0 && (!unguardedInQueueMode || options.dryRun);
	return {
		context,
		operation,
		target,
		options,
		workflowId,
		guard,
		unguardedInQueueMode: unguardedInQueueMode || undefined,
		failsExecution: !context.continueOnFail(),
		// A Dry Run opens the record too, and only reads what this process holds without asking it (asking writes).
		record: sends ? TransferRecord.forWorkflow(context, workflowId, guard) : undefined,
		pace: pacer(options.requestsPerSecond),
	};
}

/**
 * On a queue-mode worker (or webhook process) n8n runs executions of one workflow in several
 * processes, and the record holds in one process only: a transfer the node alone guards is not sent
 * there. n8n tells a node which kind of process runs it only through its instance settings (no
 * documented call), so where they cannot be read the docs say what to set.
 */
function queueProcessUnguarded(
	context: IExecuteFunctions,
	options: { serviceRefusesRepeats: boolean; claimHeldEarlier: boolean },
): string | undefined {
	if (options.serviceRefusesRepeats || options.claimHeldEarlier) return undefined;
	const { instanceSettings } = context as { instanceSettings?: { instanceType?: string } };
	const kind = instanceSettings?.instanceType;
	return kind === 'worker' || kind === 'webhook' ? kind : undefined;
}

/** Requests Per Second: a turn for each request, before it is claimed (re-sends are requests too), at most `perSecond` a second. */
function pacer(perSecond: number): (() => Promise<void>) | undefined {
	if (perSecond <= 0) return undefined;
	const interval = 1000 / perSecond;
	let nextStart = Date.now();
	return async () => {
		const wait = nextStart - Date.now();
		nextStart = Math.max(Date.now(), nextStart) + interval;
		if (wait > 0) await sleep(wait);
	};
}

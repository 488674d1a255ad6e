import type { IExecuteFunctions } from 'n8n-workflow';

import type { RunOptions } from '../input/options';
import type { TransferRecord } from '../record';
import type { SendTarget } from '../transport/target';
import type { Failure, PayoutOperation, RepeatGuard } from '../types';

/** Everything one run needs to send an item, read once. */
export interface Run {
	context: IExecuteFunctions;
	operation: PayoutOperation;
	target: SendTarget;
	options: RunOptions;
	/** Who refuses a repeat of a transfer (transfers only). */
	guard?: RepeatGuard;
	/** What this node sent before: every transfer's, whatever the options. */
	record?: TransferRecord;
	workflowId: string;
	/** A queue-mode worker's kind, where this node alone would guard: nothing is sent (a Dry Run says so). */
	unguardedInQueueMode?: string;
	/** Requests Per Second: waits for the next request's turn. */
	pace?: () => Promise<void>;
	/** The first failure that says nothing of one row alone: the run sends nothing more. */
	stopped?: Failure;
}

import type { Failure, Planned, PayoutOperation, RepeatGuard } from '../types';
import type { ServiceMessage } from './interpret';

/** What every message of a row is made of; the tables that word each result are beside this file. */

/**
 * Who speaks: the operation, who refuses a repeat of its transfers, the options that change the
 * words, and whether a row that needs the user ends the execution with an error (which n8n's Retry
 * of the execution can run again).
 */
export interface MessageContext {
	operation: PayoutOperation;
	guard?: RepeatGuard;
	options?: { claimHeldEarlier?: boolean; payEveryRun?: boolean };
	failsExecution?: boolean;
}

export const transferIdOf = (entry: Planned) => entry.transferId ?? '';

/** Every message ends with the item it is about. */
export const item = (entry: Planned) => `[item ${entry.index}]`;

/**
 * When a dashboard export can settle a row: a request that timed out may still reach the service a
 * while later, so an export taken too soon may miss it.
 */
export const ONCE_SETTLED =
	'Once no run is sending it and 10 minutes have passed (a request that timed out can still arrive)';

/** Fields every failure of a transfer carries, by what the user does next. */
type FailureFields = Pick<Failure, 'message' | 'hint' | 'status' | 'nextStep'> &
	Partial<Pick<Failure, 'subCode' | 'serviceMessage' | 'fromService' | 'stopsBatch' | 'noAnswer'>>;
export const failure = (fields: FailureFields): Failure => ({
	fromService: false,
	retryable: false,
	...fields,
});

/**
 * The service already has a transfer with this Transfer ID, and this node has no record of sending
 * it with these values. Nothing moved now; whose it is, a person finds out.
 */
export function alreadyExists(entry: Planned, said: ServiceMessage): Failure {
	const transferId = transferIdOf(entry);
	return failure({
		message: `The service already has a transfer with Transfer ID ${transferId}, and this node has no record of sending it with these values ${item(entry)}`,
		hint: `Not paid by this run. Look Transfer ID ${transferId} up in the dashboard (an export taken now): paid there with this row's amount and payee, it is this payout, paid; failed, or another payout's, give this row a Transfer ID of its own; not there yet, look again later.`,
		status: 'ALREADY_EXISTS',
		nextStep: 'lookUp',
		fromService: true,
		subCode: said.subCode,
		serviceMessage: said.message,
	});
}

import type { Failure, Outcome, Planned } from '../types';
import { retryable } from './interpret';
import type { ServiceResult } from './interpret';
import { madeForRunAdvice } from './inDoubtMessages';
import type { MessageContext } from './messageParts';
import { RUN_RESULT_MESSAGES, refusedResend } from './runMessages';
import type { RunResult } from './runMessages';
import { SERVICE_RESULT_MESSAGES } from './serviceMessages';

/**
 * Every word the node says of a row that was sent, or that the record kept from being sent: its
 * status, what happened (`message`), what to do (`hint`) and the one-word `nextStep`. run/ decides
 * what became of a row (a RowResult: the answer as interpret.ts read it, or what the record says)
 * and calls `rowOutcome` once; serviceMessages.ts words an answer, runMessages.ts what the run or
 * the record decided, inDoubtMessages.ts what a row in doubt asks of the user.
 */

export type { MessageContext } from './messageParts';
export type { RunResult } from './runMessages';
export { settleAdvice } from './inDoubtMessages';
export { NO_ANSWER_IN_A_ROW, notTheService, serviceDown } from './serviceMessages';

export type RowResult = ServiceResult | RunResult;

/** What the node says of a row: its output items, or a failure in the user's words. */
export function rowOutcome(entry: Planned, result: RowResult, context: MessageContext): Outcome {
	const outcome = messagesOf(entry, result, context);
	if (!('failure' in outcome) || !entry.madeForRun) return outcome;
	// A Transfer ID made for this execution: running the row in a new one is a new transfer, so a
	// row in doubt is looked up first, whatever made it so, and a row run again is run alone.
	const { failure } = outcome;
	if (failure.status === 'UNKNOWN') Object.assign(failure, madeForRunAdvice(entry));
	else if (RUN_AGAIN.includes(failure.nextStep))
		failure.hint = `${failure.hint} ${context.failsExecution ? RETRY_THE_EXECUTION : ONLY_THIS_ROW}`;
	return outcome;
}

/** Steps that run a row again: under Pay Again on Every Run, running the whole batch again pays its paid rows again. */
const RUN_AGAIN: Failure['nextStep'][] = ['runAgain', 'fixRow'];
/** The execution ends with an error: n8n's Retry of it sends this row under the same Transfer ID. */
export const RETRY_THE_EXECUTION =
	"Pay it once, one way: retry this execution (n8n's Retry, from the Executions list) once the cause is fixed; it sends this row under the same Transfer ID and pays none of this execution's rows twice. Do not also run the row in a new execution: with Options > 'Pay Again on Every Run' that is a new transfer, and the row would be paid twice.";
/** The execution goes on (Continue On Fail): there is no Retry of this node's rows, only a new execution. */
const ONLY_THIS_ROW =
	"Run only this row again: with Options > 'Pay Again on Every Run' a new execution pays every row it is given again, the ones paid in this execution too.";

type Wording<R> = (entry: Planned, result: R, context: MessageContext) => Outcome;

function messagesOf(entry: Planned, result: RowResult, context: MessageContext): Outcome {
	if (result.kind === 'refusedResend') {
		// The refusal of a re-send says nothing of the earlier request, which may have paid.
		const refused = messagesOf(entry, result.refusal, context);
		return 'failure' in refused ? { failure: refusedResend(entry, refused.failure) } : refused;
	}
	if (result.kind in SERVICE_RESULT_MESSAGES) {
		const answered = result as ServiceResult;
		const outcome = (SERVICE_RESULT_MESSAGES[answered.kind] as Wording<ServiceResult>)(
			entry,
			answered,
			context,
		);
		if ('failure' in outcome)
			outcome.failure.retryable = retryable(answered, context.operation, context.guard);
		return outcome;
	}
	const kept = result as Exclude<RunResult, { kind: 'refusedResend' }>;
	return (RUN_RESULT_MESSAGES[kept.kind] as Wording<typeof kept>)(entry, kept, context);
}

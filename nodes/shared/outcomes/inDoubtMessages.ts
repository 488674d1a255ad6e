import { DASHBOARD_STATUS_OPTION, DASHBOARD_WORDS } from '../input/dashboardStatus';
import type { Failure, Planned, RepeatGuard } from '../types';
import { ONCE_SETTLED, transferIdOf } from './messageParts';
import type { MessageContext } from './messageParts';

/**
 * What a transfer without a clear answer means, and the one thing to do: it depends on who refuses
 * a repeat of it (the service, the node, an earlier step's claim) and on whether its Transfer ID was
 * made for this execution.
 */
export function inDoubtAdvice(
	entry: Planned,
	context: MessageContext,
): Pick<Failure, 'hint' | 'nextStep'> {
	const transferId = transferIdOf(entry);
	if (entry.madeForRun) return madeForRunAdvice(entry);
	if (context.options?.claimHeldEarlier) return claimAdvice(transferId);
	if (guardOf(context) === 'service') {
		return {
			hint: `The transfer may have been paid. Run the row again with the same Transfer ID (${transferId}): the service refuses a second transfer with it, so the row then reads SUCCESS (the first never arrived) or says the service holds it. Never give it a new Transfer ID while its outcome is unknown.`,
			nextStep: 'runAgain',
		};
	}
	return { hint: settleAdvice(transferId), nextStep: 'settleFromDashboard' };
}

/** A row in doubt whose Transfer ID was made for this execution (Options > 'Pay Again on Every Run'). */
export function madeForRunAdvice(entry: Planned): Pick<Failure, 'hint' | 'nextStep'> {
	const transferId = transferIdOf(entry);
	return {
		hint: `The transfer may have been paid. Its Transfer ID ${transferId} was made for this execution (Options > 'Pay Again on Every Run'): n8n's Retry of this execution sends it again under the same Transfer ID and reads what it came to, while running the row in a new execution is a new transfer. ${ONCE_SETTLED}, look Transfer ID ${transferId} up in the dashboard: paid there, it is paid; not there, or failed, run the row again to pay it.`,
		nextStep: 'lookUp',
	};
}

/** Who refuses a repeat: as the run says, else by the operation. */
const guardOf = ({ guard, operation }: MessageContext): RepeatGuard =>
	guard ?? (operation.refusesDuplicateTransferId ? 'service' : 'node');

/**
 * Options > Claim Held by an Earlier Step: a transfer in doubt is settled in the earlier step's
 * table (later deliveries are answered from it), and, as anywhere the node guards, never sent again
 * under its Transfer ID once in doubt.
 */
function claimAdvice(transferId: string): Pick<Failure, 'hint' | 'nextStep'> {
	return {
		hint: `The transfer may have been paid. Keep its claim in the earlier step's table (never give it a new Transfer ID before you know). ${ONCE_SETTLED}, look up Transfer ID ${transferId} in the payouts dashboard and write what it says as the claim's outcome: SUCCESS or PENDING, it is paid; FAILED, or not there, it did not pay, and this node never sends it again under Transfer ID ${transferId} (its record holds it in doubt): pay it under a new Transfer ID.`,
		nextStep: 'settleClaim',
	};
}

/** Where the node guards a transfer, an unknown outcome is settled from the dashboard. */
export function settleAdvice(transferId: string): string {
	return `The transfer may have been paid, and the service may book a repeated internal transfer, so this node never sends it again on a guess. ${ONCE_SETTLED}, export the payouts dashboard and map its status for Transfer ID ${transferId} to ${DASHBOARD_STATUS_OPTION} (${DASHBOARD_WORDS.paid.join(' or ')}: paid; ${[...DASHBOARD_WORDS.failed, ...DASHBOARD_WORDS.notFound].join(', ')}: not paid, pay it under a new key), then run the row again. Never give it a new Transfer ID before that.`;
}

/**
 * The payouts service as the simulator needs it: a ledger of what was booked, written from the
 * interface document (../shared/spec/payouts-service-interface.md, sections 4.2, 4.3 and 7), not
 * from the node's code, and the faults of a network between them.
 *
 * - A standard transfer refuses a Transfer ID it holds, whatever became of it ("Transfer Id
 *   already exists", 400).
 * - An internal transfer is not known to refuse a repeat: by default every request is booked
 *   again (`internalRefusesRepeats` says otherwise).
 * - A booking is paid (SUCCESS, PENDING) or failed later at the bank (FAILED: booked, no money).
 * - A clear refusal (404 "Recharge Account not found") books nothing.
 * - Faults: the answer lost after booking (the node waits and times out), the request lost before
 *   it arrived, a 5xx before or after booking, a booking whose answer is lost and which then fails
 *   at the bank (the service holds the Transfer ID, no money moved). Which answers reach the node
 *   is the network's (world.ts).
 */

export type Fault = 'none' | 'refuse' | 'lostAfter' | 'lostBefore' | 'error5xxAfter' | 'error5xxBefore' | 'failsLater';

export interface Booking {
	transferId: string;
	operation: 'internalTransfer' | 'standardTransfer';
	amount: number;
	/** Recharge account (internal) or beneficiary (standard). */
	to: string;
	status: 'SUCCESS' | 'PENDING' | 'FAILED';
	at: number;
}

/** Every request that reached the service (booked or not), and what it answered. */
export interface Received {
	transferId: string;
	operation: string;
	body: Record<string, unknown>;
	fault: Fault;
	/** What the service answered (the node may never see it). */
	answer: { httpStatus: number; body: Record<string, unknown> } | undefined;
	booked: boolean;
	at: number;
	by: string;
}

/** A request the node started: when, and what answer reached it (none: lost, timed out or a 5xx). */
export interface Attempt {
	transferId: string;
	body: Record<string, unknown>;
	by: string;
	execution: string;
	at: number;
	fault: Fault;
	answered: 'paid' | 'refused' | 'none';
	/** When the answer (or the timeout) reached the node. */
	settledAt?: number;
}

export interface Answer {
	httpStatus: number;
	body: Record<string, unknown>;
}

export class PayoutsServiceModel {
	readonly bookings: Booking[] = [];
	readonly received: Received[] = [];
	/** Requests the node started, also those lost before the service (the network's view). */
	readonly attempted: Attempt[] = [];
	internalRefusesRepeats = false;

	/**
	 * A request as it arrives (undefined: lost before it arrived, nothing booked). The answer is what
	 * the service sends back; whether it reaches the node is the network's.
	 */
	receive(path: string, body: Record<string, unknown>, fault: Fault, at: number, by: string): Answer | undefined {
		const operation = path.includes('internalTransfer') ? 'internalTransfer' : 'standardTransfer';
		const transferId = String(body.transferId ?? '');
		if (fault === 'lostBefore' || fault === 'error5xxBefore') return fault === 'lostBefore' ? undefined : { httpStatus: 502, body: { message: 'Bad Gateway' } };
		const entry: Received = { transferId, operation, body, fault, answer: undefined, booked: false, at, by };
		this.received.push(entry);
		const before = this.bookings.length;
		entry.answer = this.answer(operation, transferId, body, fault, at);
		entry.booked = this.bookings.length > before;
		return entry.answer;
	}

	private answer(operation: Booking['operation'], transferId: string, body: Record<string, unknown>, fault: Fault, at: number): Answer {
		const held = this.bookings.some((booking) => booking.transferId === transferId && booking.operation === operation);
		if (held && (operation === 'standardTransfer' || this.internalRefusesRepeats)) {
			return { httpStatus: 400, body: { status: 'ERROR', subCode: '400', message: 'Transfer Id already exists' } };
		}
		if (fault === 'refuse') {
			return operation === 'internalTransfer'
				? { httpStatus: 404, body: { status: 'ERROR', subCode: '404', message: 'Recharge Account not found' } }
				: { httpStatus: 404, body: { status: 'ERROR', subCode: '404', message: 'Beneficiary does not exist' } };
		}
		const booking: Booking = {
			transferId,
			operation,
			amount: Number(body.amount),
			to: String(body.rechargeAccount ?? body.beneId ?? ''),
			status: fault === 'failsLater' ? 'FAILED' : 'SUCCESS',
			at,
		};
		this.bookings.push(booking);
		if (fault === 'error5xxAfter') return { httpStatus: 500, body: { status: 'ERROR', subCode: '500', message: 'Internal error' } };
		if (operation === 'internalTransfer') {
			return { httpStatus: 200, body: { status: 'SUCCESS', subCode: '200', message: `Internal Fund Transfer ref ${this.bookings.length}`, data: { transferId } } };
		}
		return { httpStatus: 200, body: { status: 'SUCCESS', subCode: '200', message: 'Transfer completed successfully', data: { referenceId: `R${this.bookings.length}`, utr: `U${this.bookings.length}`, acknowledged: 1 } } };
	}

	/** Paid bookings of a Transfer ID: money moved (or moving). */
	paid(transferId: string): Booking[] {
		return this.bookings.filter((booking) => booking.transferId === transferId && booking.status !== 'FAILED');
	}

	/** Whether the dashboard shows a transfer of this Transfer ID with other values than these. */
	otherValues(transferId: string, amount: number): boolean {
		const mine = this.bookings.filter((booking) => booking.transferId === transferId);
		return mine.length > 0 && !mine.some((booking) => booking.amount === amount);
	}

	/** What the dashboard's export says of a Transfer ID now, in its own words. */
	dashboard(transferId: string): string {
		const mine = this.bookings.filter((booking) => booking.transferId === transferId);
		if (mine.some((booking) => booking.status === 'SUCCESS')) return 'SUCCESS';
		if (mine.some((booking) => booking.status === 'PENDING')) return 'PENDING';
		return mine.length > 0 ? 'FAILED' : 'NOT_FOUND';
	}
}

/**
 * The payouts service as the simulator needs it: a ledger of what was booked, written from the
 * interface document (../shared/spec/payouts-service-interface.md, sections 4 and 7), never from
 * the node's code.
 *
 * - Card and standard transfers refuse a Transfer ID they hold, whatever became of it ("Transfer
 *   Id already exists", 400), and book nothing then.
 * - An internal transfer is not known to refuse a repeat: every request is booked again
 *   (`internalRefusesRepeats` says otherwise, as Options > Service Refuses Repeated Transfer IDs).
 * - Each transfer request the service takes is answered as the interface allows: SUCCESS (200),
 *   PENDING (201; card and standard), 201 ERROR "no response from bank" (standard: taken, its
 *   outcome unknown), or one of the operation's ERROR rows (a refusal: nothing booked).
 * - A booking is paid (SUCCESS, PENDING) or fails at the bank later (FAILED: booked, no money
 *   moved; a PENDING or "no response" booking settles later, either way).
 * - The dashboard's export: one status per Transfer ID (SUCCESS, PENDING, FAILED, or NOT_FOUND for
 *   one it has never booked), as it stands when the export is taken.
 * - Reads (Incident Guard): the beneficiary lookup and the incident listing, from a fixed seed.
 *
 * Which requests arrive and which answers reach the node is the network's (world.ts).
 */

export type Operation = 'cardTransfer' | 'standardTransfer' | 'internalTransfer';

/** What the service does with a transfer request it takes, drawn per request by the world. */
export type ServiceDecision = 'pay' | 'pending' | 'noBankResponse' | 'refuse' | 'refuseAccount';

export interface Booking {
	transferId: string;
	operation: Operation;
	amount: number;
	/** Recharge account (internal), beneficiary (standard) or card token (card). */
	to: string;
	status: 'SUCCESS' | 'PENDING' | 'FAILED';
	at: number;
	/** The request that booked it (world.ts `Attempt.id`). */
	attempt: number;
	/** When the bank failed it (it was paid, pending, until then). */
	failedAt?: number;
}

export interface Answer {
	httpStatus: number;
	body: Record<string, unknown>;
}

/** The operation's ERROR rows that refuse one transfer (interface document, section 7), by operation. */
const REFUSALS: Record<Operation, Array<[number, string]>> = {
	cardTransfer: [
		[422, 'Please provide valid token details'],
		[422, 'Please provide a valid Name'],
	],
	standardTransfer: [
		[404, 'Beneficiary does not exist'],
		[400, 'Please wait 30 minutes after adding the beneficiary'],
		[400, 'Transfer request to a wallet failed (retry with a different mode)'],
		[400, 'Transfer attempt failed at the bank'],
		[400, 'Transfer limit for beneficiary exceeded'],
	],
	internalTransfer: [
		[404, 'Recharge Account not found'],
		[422, 'Account not configured; contact the account manager'],
	],
};

/** ERROR rows that refuse every transfer of the account, not one row's (balance, token). */
const ACCOUNT_REFUSALS: Record<Operation, Array<[number, string]>> = {
	cardTransfer: [[412, 'Not enough available balance in the account']],
	standardTransfer: [
		[400, 'Not enough available balance in the account'],
		[403, 'Token is not valid'],
	],
	internalTransfer: [[403, 'APIs not enabled (see the support form)']],
};

const SUBCODE_OF_PENDING: Record<Operation, string> = {
	cardTransfer: '201',
	standardTransfer: '201',
	internalTransfer: '200',
};

export class PayoutsServiceModel {
	readonly bookings: Booking[] = [];
	internalRefusesRepeats = false;
	/** Beneficiaries' bank codes (IFSC's first four letters) and the open incidents, for the Incident Guard. */
	readonly beneficiaries = new Map<string, string>();
	readonly incidents: Array<{
		id: number;
		mode: string;
		entityCode: string;
		createdAt: string;
		isResolved: boolean;
		isScheduled: boolean;
		impact: string;
	}> = [];
	private booked = 0;

	/** A transfer request as it arrives; its answer is what the service sends back. */
	transfer(
		operation: Operation,
		body: Record<string, unknown>,
		decision: ServiceDecision,
		at: number,
		attempt: number,
		random: () => number,
	): Answer {
		const transferId = String(body.transferId ?? '');
		const held = this.bookings.some(
			(booking) => booking.transferId === transferId && booking.operation === operation,
		);
		if (held && (operation !== 'internalTransfer' || this.internalRefusesRepeats))
			return error(400, 'Transfer Id already exists');
		if (decision === 'refuse' || decision === 'refuseAccount') {
			const rows = (decision === 'refuse' ? REFUSALS : ACCOUNT_REFUSALS)[operation];
			const [code, message] = rows[Math.floor(random() * rows.length)];
			return error(code, message);
		}
		// The service books the amount it can pay: two decimals (the sandbox rounds 1.005 to 1.01).
		const amount = Math.round(Number(body.amount) * 100) / 100;
		const pendingAllowed = operation !== 'internalTransfer';
		const status = decision === 'pay' || !pendingAllowed ? 'SUCCESS' : 'PENDING';
		const booking: Booking = {
			transferId,
			operation,
			amount,
			to: String(body.rechargeAccount ?? body.beneId ?? body.token ?? ''),
			status,
			at,
			attempt,
		};
		this.bookings.push(booking);
		const reference = ++this.booked;
		if (operation === 'internalTransfer')
			return {
				httpStatus: 200,
				body: {
					status: 'SUCCESS',
					subCode: '200',
					message: `Internal Fund Transfer ref ${reference}`,
					data: { transferId },
				},
			};
		if (decision === 'noBankResponse' && operation === 'standardTransfer')
			return {
				httpStatus: 201,
				body: {
					status: 'ERROR',
					subCode: '201',
					message: 'Transfer request the service, no response from bank',
				},
			};
		if (status === 'PENDING')
			return {
				httpStatus: 201,
				body: {
					status: 'PENDING',
					subCode: SUBCODE_OF_PENDING[operation],
					message: 'Transfer request pending at the bank',
					data: { referenceId: `R${reference}`, utr: '', acknowledged: 0 },
				},
			};
		return {
			httpStatus: 200,
			body: {
				status: 'SUCCESS',
				subCode: '200',
				message: 'Transfer completed successfully',
				data: { referenceId: `R${reference}`, utr: `U${reference}`, acknowledged: 1 },
			},
		};
	}

	/** A booking still PENDING settles at the bank: paid, or failed (no money moved). */
	settleAtBank(booking: Booking, paid: boolean, at: number) {
		if (booking.status !== 'PENDING') return;
		booking.status = paid ? 'SUCCESS' : 'FAILED';
		if (!paid) booking.failedAt = at;
	}

	/** Whether a booking was paid (or pending) at a time. */
	static paidAt(booking: Booking, at: number): boolean {
		return booking.at <= at && (booking.failedAt === undefined || booking.failedAt > at);
	}

	/** Reads the Incident Guard makes: a beneficiary and the incident listing. */
	read(path: string): Answer {
		const beneficiary = /getBeneficiary\/([^/?]+)/.exec(path)?.[1];
		if (beneficiary !== undefined) {
			const bank = this.beneficiaries.get(decodeURIComponent(beneficiary)) ?? 'SIMB';
			return {
				httpStatus: 200,
				body: {
					status: 'SUCCESS',
					subCode: '200',
					message: 'Details of beneficiary',
					data: {
						beneId: beneficiary,
						name: 'Sim',
						ifsc: `${bank}0000001`,
						bankAccount: '000111',
						status: 'VERIFIED',
					},
				},
			};
		}
		if (path.includes('/incidents'))
			return {
				httpStatus: 200,
				body: {
					status: 'SUCCESS',
					subCode: '200',
					message: 'List of incidents retrieved',
					data: { incidents: this.incidents.filter((incident) => !incident.isResolved) },
				},
			};
		return { httpStatus: 404, body: { message: 'Cannot GET' } };
	}

	/** Paid bookings of a Transfer ID (money moved, or moving). */
	paid(transferId: string): Booking[] {
		return this.bookings.filter(
			(booking) => booking.transferId === transferId && booking.status !== 'FAILED',
		);
	}

	/** The dashboard's export as it stands now: each Transfer ID's status in the dashboard's words. */
	export(): Map<string, { status: string; amounts: number[]; to: string[] }> {
		const rows = new Map<string, { status: string; amounts: number[]; to: string[] }>();
		for (const booking of this.bookings) {
			const row = rows.get(booking.transferId) ?? { status: 'FAILED', amounts: [], to: [] };
			row.amounts.push(booking.amount);
			row.to.push(booking.to);
			if (
				booking.status === 'SUCCESS' ||
				(booking.status === 'PENDING' && row.status !== 'SUCCESS')
			)
				row.status = booking.status;
			rows.set(booking.transferId, row);
		}
		return rows;
	}
}

function error(httpStatus: number, message: string): Answer {
	return { httpStatus, body: { status: 'ERROR', subCode: String(httpStatus), message } };
}

/** What a dashboard export says of a Transfer ID: its status, or NOT_FOUND. */
export function exportedStatus(
	exported: ReturnType<PayoutsServiceModel['export']>,
	transferId: string,
): string {
	return exported.get(transferId)?.status ?? 'NOT_FOUND';
}

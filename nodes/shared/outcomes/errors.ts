import type { NextStep, OperationName } from '../types';

/**
 * The error section of the interface document (section 7) as data: each row that the service
 * can answer, and what the user should do about it. Rows match on subCode first (as the document
 * asks), then on the message, because one subCode carries many causes. A row without
 * `operations` applies to every operation that can answer it.
 */
export interface ErrorRow {
	subCode: string;
	message: RegExp;
	hint: string;
	operations?: OperationName[];
	/** The request may have moved money and no clear answer came: the outcome is unknown. */
	unknownOutcome?: true;
	/** What the user does next (default: run the row again once the hint's cause is fixed elsewhere). */
	nextStep?: NextStep;
	/** Refuses the account, not the row: every row of the run would meet it, so the run sends nothing more. */
	account?: true;
}

const TRANSFER_ID_TAKEN =
	"A transfer with this 'Transfer ID' already exists, so this request moved no money. Look it up in the dashboard before changing anything: it may be this very payout, sent before.";
const TOP_UP = "Top up the payout account, then run the item again with the same 'Transfer ID'.";
const BANK_DETAILS =
	"The beneficiary's bank account number or IFSC is invalid: correct the beneficiary's bank details in the dashboard, then run the row again.";
const TRANSFER_ID_RULE =
	"Set 'Transfer ID' to at most 40 letters, digits or underscores, unique per transfer.";
const BENEFICIARY_MISSING =
	"No beneficiary has this 'Beneficiary ID'. Check the ID, or add the beneficiary in the dashboard first.";

export const errorRows: ErrorRow[] = [
	// Authentication (section 5), answered by every payout endpoint.
	{
		subCode: '403',
		message: /token is not valid/i,
		account: true,
		hint: "The access token is unknown or expired: put a valid token in the credential's 'Access Token'.",
	},
	{
		subCode: '403',
		message: /not enabled/i,
		account: true,
		hint: 'Payout APIs are not enabled for this account: ask the service to enable them (the message names the form).',
	},
	{
		subCode: '403',
		message: /ip not whitelisted/i,
		account: true,
		hint: "This n8n server's IP address is not on the account's allow-list: add it in the service's dashboard (in queue mode, every worker's address: the workers send the transfers).",
	},
	{
		subCode: '412',
		message: /token missing/i,
		account: true,
		hint: "No access token was sent: fill in 'Access Token' in the Payouts API credential.",
	},

	// Card transfer.
	{
		operations: ['cardTransfer', 'standardTransfer'],
		subCode: '400',
		message: /transfer id already exists/i,
		hint: TRANSFER_ID_TAKEN,
	},
	{
		operations: ['cardTransfer'],
		subCode: '412',
		message: /balance/i,
		account: true,
		hint: TOP_UP,
	},
	{
		operations: ['cardTransfer'],
		subCode: '422',
		message: /valid token details/i,
		nextStep: 'fixRow',
		hint: "Check 'Card Token' and the network fields under Additional Fields ('Network Type', 'Cryptogram', 'Token Expiry').",
	},
	{
		operations: ['cardTransfer'],
		subCode: '422',
		message: /at least 1/i,
		nextStep: 'fixRow',
		hint: "Set 'Amount' to at least 1.00.",
	},
	{
		operations: ['cardTransfer'],
		subCode: '422',
		message: /invalid bank account number or ifsc/i,
		hint: "The bank details behind this card are invalid: check 'Card Token' (and the network fields) with the card's issuer; nothing was paid.",
	},
	{
		operations: ['standardTransfer'],
		subCode: '422',
		message: /invalid bank account number or ifsc/i,
		hint: BANK_DETAILS,
	},
	{
		operations: ['cardTransfer'],
		subCode: '422',
		message: /valid name/i,
		nextStep: 'fixRow',
		hint: "Check 'Name' under Additional Fields: the beneficiary's name as the card holds it.",
	},
	{
		operations: ['cardTransfer'],
		subCode: '422',
		message: /networktype/i,
		nextStep: 'fixRow',
		hint: "Choose Network A or Network B in 'Network Type' (in an expression: NETWORK_A or NETWORK_B).",
	},
	{
		operations: ['cardTransfer'],
		subCode: '422',
		message: /cardtype/i,
		nextStep: 'fixRow',
		hint: "Choose DEBIT or CREDIT in 'Card Type'.",
	},
	{
		operations: ['cardTransfer'],
		subCode: '422',
		message: /transferid can contain only/i,
		nextStep: 'fixRow',
		hint: TRANSFER_ID_RULE,
	},

	// Standard transfer v1.2.
	{
		operations: ['standardTransfer'],
		subCode: '201',
		message: /no response from bank/i,
		unknownOutcome: true,
		hint: 'The service took the transfer but the bank did not answer.',
	},
	{
		operations: ['standardTransfer'],
		subCode: '400',
		message: /mode not valid/i,
		nextStep: 'fixRow',
		hint: "This beneficiary cannot receive this 'Transfer Mode': choose another mode.",
	},
	{
		operations: ['standardTransfer'],
		subCode: '400',
		message: /balance/i,
		account: true,
		hint: TOP_UP,
	},
	{
		operations: ['standardTransfer'],
		subCode: '400',
		message: /wait 30 minutes/i,
		hint: 'The beneficiary was added less than 30 minutes ago: run the item again after the wait.',
	},
	{
		operations: ['standardTransfer'],
		subCode: '400',
		message: /minimum amount of rs\.? ?100\b/i,
		nextStep: 'fixRow',
		hint: "Raise 'Amount' to at least 100 for this transfer, or choose another 'Transfer Mode'.",
	},
	{
		operations: ['standardTransfer'],
		subCode: '400',
		message: /maximum amount/i,
		nextStep: 'fixRow',
		hint: "Lower 'Amount' to at most 100000, or split the payout into several transfers.",
	},
	{
		operations: ['standardTransfer'],
		subCode: '400',
		message: /wallet/i,
		nextStep: 'fixRow',
		hint: "The wallet refused the transfer: choose another 'Transfer Mode' and run the row again.",
	},
	{
		operations: ['standardTransfer'],
		subCode: '400',
		message: /failed at the bank/i,
		hint: "The bank refused the transfer: run the row again later, or with another 'Transfer Mode'.",
	},
	{
		operations: ['standardTransfer'],
		subCode: '400',
		message: /not allowed/i,
		nextStep: 'fixRow',
		hint: 'Transfers to this beneficiary are blocked: check the beneficiary in the dashboard.',
	},
	{
		operations: ['standardTransfer'],
		subCode: '400',
		message: /minimum amount of rs\.? ?1\b/i,
		nextStep: 'fixRow',
		hint: "Set 'Amount' to at least 1.00.",
	},
	{
		operations: ['standardTransfer'],
		subCode: '400',
		message: /limit for your account/i,
		account: true,
		hint: "The account's transfer limit is reached: raise it with the service or wait for the limit period to end.",
	},
	{
		operations: ['standardTransfer'],
		subCode: '400',
		message: /mode not enabled/i,
		hint: "This 'Transfer Mode' is not enabled for the account: enable it with the service or choose another mode.",
	},
	{
		operations: ['standardTransfer'],
		subCode: '400',
		message: /paymentinstrumentid not available/i,
		nextStep: 'fixRow',
		hint: "No fund source has this 'Payment Instrument ID': check it under Additional Fields.",
	},
	{
		operations: ['standardTransfer'],
		subCode: '400',
		message: /not valid for this payment mode/i,
		nextStep: 'fixRow',
		hint: "This 'Payment Instrument ID' cannot pay with the chosen 'Transfer Mode': choose a matching fund source or mode.",
	},
	{
		operations: ['standardTransfer'],
		subCode: '400',
		message: /multiple paymentinstruments/i,
		nextStep: 'fixRow',
		hint: "Several fund sources serve this 'Transfer Mode': choose one in 'Payment Instrument ID' under Additional Fields.",
	},
	{
		operations: ['standardTransfer'],
		subCode: '400',
		message: /limit for beneficiary/i,
		hint: "This beneficiary's transfer limit is reached: wait for the limit period to end or pay another way.",
	},
	{
		operations: ['standardTransfer', 'getBeneficiary'],
		subCode: '404',
		message: /beneficiary does not exist/i,
		nextStep: 'fixRow',
		hint: BENEFICIARY_MISSING,
	},
	{
		operations: ['standardTransfer'],
		subCode: '412',
		message: /valid transferid/i,
		nextStep: 'fixRow',
		hint: TRANSFER_ID_RULE,
	},
	{
		operations: ['standardTransfer'],
		subCode: '422',
		message: /valid beneid/i,
		nextStep: 'fixRow',
		hint: "Check 'Beneficiary ID': letters and digits only.",
	},
	{
		operations: ['standardTransfer'],
		subCode: '422',
		message: /invalid ifsc/i,
		hint: "The beneficiary's IFSC does not match its bank account: correct the beneficiary in the dashboard.",
	},
	{
		operations: ['standardTransfer'],
		subCode: '422',
		message: /decimal/i,
		nextStep: 'fixRow',
		hint: "Give 'Amount' at most 2 decimal places.",
	},
	{
		operations: ['standardTransfer'],
		subCode: '422',
		message: /valid transferid/i,
		nextStep: 'fixRow',
		hint: TRANSFER_ID_RULE,
	},
	{
		operations: ['standardTransfer'],
		subCode: '422',
		message: /remarks/i,
		nextStep: 'fixRow',
		hint: "Shorten 'Remarks' to at most 70 letters, digits and spaces.",
	},

	// Internal transfer.
	{
		operations: ['internalTransfer'],
		subCode: '404',
		message: /recharge account not found/i,
		nextStep: 'fixRow',
		hint: "No recharge account has this number: check 'Recharge Account'.",
	},
	{
		operations: ['internalTransfer'],
		subCode: '422',
		message: /not configured/i,
		hint: 'This account is not configured for internal transfers: contact your account manager at the service.',
	},

	// Get incidents.
	{
		operations: ['getIncidents'],
		subCode: '422',
		message: /status is invalid/i,
		nextStep: 'fixRow',
		hint: "Choose RESOLVED, UNRESOLVED or ALL in 'Status'.",
	},
	{
		operations: ['getIncidents'],
		subCode: '422',
		message: /less than or equal/i,
		nextStep: 'fixRow',
		hint: "Set 'Start Time' to no later than 'End Time'.",
	},
	{
		operations: ['getIncidents'],
		subCode: '422',
		message: /maximum time difference/i,
		nextStep: 'fixRow',
		hint: "Keep 'Start Time' to 'End Time' within 7 days, and 'Start Time' within the last 90 days.",
	},
	{
		operations: ['getIncidents'],
		subCode: '422',
		message: /starttime should be of the format/i,
		nextStep: 'fixRow',
		hint: "Give 'Start Time' as a date and time (sent as yyyy-mm-dd hh:mm:ss).",
	},
	{
		operations: ['getIncidents'],
		subCode: '422',
		message: /endtime should be of the format/i,
		nextStep: 'fixRow',
		hint: "Give 'End Time' as a date and time (sent as yyyy-mm-dd hh:mm:ss).",
	},
	{
		subCode: '520',
		message: /unknown error/i,
		hint: 'The service failed with an unknown error: run the item again later.',
	},

	// Get paylink status.
	{
		operations: ['getPaylinkStatus'],
		subCode: '404',
		message: /./,
		nextStep: 'fixRow',
		hint: "No paylink has this 'Paylink ID': check the ID the paylink was created with.",
	},
];

/** When no row matches: still a clear error, with the service's own message. */
const UNKNOWN_ROW_HINT =
	'The service gave no further detail: check the item against the service documentation for this subCode, or contact the service.';

export function findErrorRow(operation: OperationName, subCode: string, message: string): ErrorRow {
	const row = errorRows.find(
		(candidate) =>
			candidate.subCode === subCode &&
			(candidate.operations === undefined || candidate.operations.includes(operation)) &&
			candidate.message.test(message),
	);
	return row ?? { subCode, message: /.*/, hint: UNKNOWN_ROW_HINT };
}

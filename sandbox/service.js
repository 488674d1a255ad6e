'use strict';
/**
 * What the payouts service does, per operation, from the interface document: field rules as
 * tables (field -> check -> answer), then the business rules, then the outcome. A handler
 * returns an answer `{ subCode, status, message, data? }` (the envelope) or, for the token
 * endpoint, which answers without the envelope, `{ httpStatus, body }`.
 */
const { DateTime } = require('luxon');

const { seed } = require('./seed');

const ok = (subCode, message, data) => ({
	status: 'SUCCESS',
	subCode,
	message,
	...(data ? { data } : {}),
});
const pending = (subCode, message, data) => ({ status: 'PENDING', subCode, message, data });
const error = (subCode, message) => ({ status: 'ERROR', subCode, message });

/** The messages of the document's error tables, and the sandbox's own where it has none. */
const M = {
	tokenMissing: 'Token missing in the request (expected format Bearer <ACCESS_TOKEN>)',
	tokenMissingIncidents: 'Token missing in the request',
	tokenInvalid: 'Token is not valid',
	apisDisabled:
		'APIs not enabled. Please raise a request through the support form at https://payouts.example.com/support to enable payout APIs',
	ipNotWhitelisted: 'IP not whitelisted',
	ipNotWhitelistedIncidents: 'IP Not Whitelisted',
	transferIdExists: 'Transfer Id already exists',
	balance: 'Not enough available balance in the account',
	// Card transfer.
	cardToken: 'Please provide valid token details',
	cardAmountMin: 'amount should be at least 1.0',
	cardBankDetails: 'Invalid bank account number or ifsc provided',
	cardName: 'Please provide a valid Name',
	cardNetwork: 'Please provide a valid networkType',
	cardType: 'cardType is invalid',
	cardTransferId: 'transferId can contain only alphabets, numbers, hyphen and underscore',
	// Standard transfer.
	completed: 'Transfer completed successfully',
	scheduled: 'Transfer Scheduled for next working day',
	awaiting: 'Awaiting confirmation from beneficiary bank',
	pendingAtBank: 'Transfer request pending at the bank',
	noBankResponse: 'Transfer request the service, no response from bank',
	accepted: 'Request received; check status after some time',
	modeNotValid: 'Mode Not valid for Beneficiary',
	wait30: 'Please wait 30 minutes after adding the beneficiary',
	min100: 'Transfer amount is less than minimum amount of Rs. 100',
	max100000: 'Transfer amount is greater than the maximum amount of Rs. 100000',
	walletFailed: 'Transfer request to a wallet failed (retry with a different mode)',
	bankFailed: 'Transfer attempt failed at the bank',
	notAllowed: 'Transfer to this beneficiary not allowed',
	min1: 'Transfer amount is less than minimum amount of Rs. 1',
	accountLimit: 'Transfer limit for your account exceeded',
	modeNotEnabled: 'Transfer mode not enabled for the account',
	piNotAvailable: 'Specified paymentInstrumentId not available',
	piWrongMode: 'Specified paymentInstrumentId not valid for this payment mode',
	piMultiple: 'Multiple PaymentInstruments available for this payment mode',
	beneLimit: 'Transfer limit for beneficiary exceeded',
	beneMissing: 'Beneficiary does not exist',
	transferIdMissing: 'Please provide a valid transferId',
	beneIdInvalid: 'Please provide a valid beneId',
	bankDetails: 'Invalid bank account number or IFSC provided',
	ifsc: 'Invalid IFSC code provided for bank account',
	decimals: 'Invalid Amount Passed; only 2 decimal places are allowed',
	remarks: 'Remarks is invalid (maximum 70 alphanumeric characters and whitespace)',
	// Internal transfer.
	rechargeMissing: 'Recharge Account not found',
	notConfigured: 'Account not configured; contact the account manager',
	// Beneficiary, incidents, paylink.
	beneDetails: 'Details of beneficiary',
	incidentsListed: 'List of incidents retrieved',
	statusInvalid: 'Status is invalid',
	startAfterEnd: 'startTime should be less than or equal to EndTime',
	window:
		'Maximum time difference can be up to 7 days and startTime should be within 90 days from now',
	startFormat: 'startTime should be of the format yyyy-mm-dd hh:mm:ss',
	endFormat: 'endTime should be of the format yyyy-mm-dd hh:mm:ss',
	unknownError: 'Unknown error occurred',
	paylinkFound: 'Paylink details retrieved',
};

/** The sandbox's own answers, for rules the document states without an error row. */
const OWN = {
	amountInvalid: "amount is invalid (the sandbox's own message: a decimal number is expected)",
	cardRemarks:
		"remarks is invalid (the sandbox's own message: at most 70 letters, digits and whitespace)",
	cryptogram: "cryptogram is invalid (the sandbox's own message: at most 600 characters)",
	tokenExpiry:
		"tokenExpiry is invalid (the sandbox's own message: YYYY-MM, at most 10 characters, not null)",
	panSequence:
		"tokenPANSequenceNumber is invalid (the sandbox's own message: at most 3 letters or digits)",
	cardTransferIdLength: "transferId is invalid (the sandbox's own message: at most 40 characters)",
	transferMode:
		"transferMode is invalid (the sandbox's own message: banktransfer, neft, imps, rtgs, upi, walletA or walletB)",
	internalAmount: "amount should be at least 1 (the sandbox's own message)",
	rechargeInvalid: "rechargeAccount is invalid (the sandbox's own message: letters and digits)",
	internalTransferId:
		"transferId is invalid (the sandbox's own message: letters, digits, hyphen and underscore, at most 40 characters)",
	paylinkIdMissing: "paylinkId is required (the sandbox's own message)",
	badJson: "Request body is not valid JSON (the sandbox's own message)",
	tooLarge: "Request body is too large (the sandbox's own message)",
	notAnObject: "Request body must be a JSON object (the sandbox's own message)",
	unknownFault: "Unknown x-sandbox-fault (the sandbox's own message)",
};

const TRANSFER_MODES = ['banktransfer', 'neft', 'imps', 'rtgs', 'upi', 'walletA', 'walletB'];
const TIME_FORMAT = 'yyyy-MM-dd HH:mm:ss';
const TIME_PATTERN = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

const isText = (value) => typeof value === 'string';
const present = (value) => value !== undefined && value !== null && value !== '';

/** A decimal string or number, in paise, or undefined when it is not a plain decimal. */
function paise(value) {
	const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
	if (typeof text !== 'string' || !/^\d+(\.\d+)?$/.test(text)) return undefined;
	const [whole, fraction = ''] = text.split('.');
	return (
		Number(whole) * 100 +
		Number((fraction + '00').slice(0, 2)) +
		(Number(fraction.slice(2) || 0) > 0 ? 1 : 0)
	);
}
const decimals = (value) => (String(value).split('.')[1] ?? '').length;

/**
 * Field rules per operation: the first rule that fails gives the answer. Each rule is
 * [field, test(value, body) -> true when the value is acceptable, answer].
 */
const rules = {
	cardTransfer: [
		['token', (v) => isText(v) && v.trim() !== '', error('422', M.cardToken)],
		['amount', (v) => isText(v) && paise(v) !== undefined, error('422', OWN.amountInvalid)],
		['amount', (v) => Number(v) >= 1, error('422', M.cardAmountMin)],
		['transferId', (v) => isText(v) && /^[A-Za-z0-9_-]+$/.test(v), error('422', M.cardTransferId)],
		['transferId', (v) => v.length <= 40, error('422', OWN.cardTransferIdLength)],
		['cardType', (v) => !present(v) || v === 'DEBIT' || v === 'CREDIT', error('422', M.cardType)],
		[
			'remarks',
			(v) => !present(v) || (isText(v) && v.length <= 70 && /^[A-Za-z0-9\s]*$/.test(v)),
			error('422', OWN.cardRemarks),
		],
		['name', (v) => !present(v) || isText(v), error('422', M.cardName)],
		[
			'networkType',
			(v) => !present(v) || v === 'NETWORK_A' || v === 'NETWORK_B',
			error('422', M.cardNetwork),
		],
		[
			'cryptogram',
			(v) => !present(v) || (isText(v) && v.length <= 600),
			error('422', OWN.cryptogram),
		],
		[
			'tokenExpiry',
			(v, body) =>
				body.networkType !== 'NETWORK_B' ||
				v === undefined ||
				(isText(v) && v.length <= 10 && /^\d{4}-(0[1-9]|1[0-2])$/.test(v)),
			error('422', OWN.tokenExpiry),
		],
		[
			'tokenPANSequenceNumber',
			(v) => !present(v) || (isText(v) && /^[A-Za-z0-9]{1,3}$/.test(v)),
			error('422', OWN.panSequence),
		],
	],
	standardTransfer: [
		['beneId', (v) => isText(v) && /^[A-Za-z0-9]+$/.test(v), error('422', M.beneIdInvalid)],
		['transferId', (v) => present(v), error('412', M.transferIdMissing)],
		[
			'transferId',
			(v) => isText(v) && v.length <= 40 && /^[A-Za-z0-9_]+$/.test(v),
			error('422', M.transferIdMissing),
		],
		[
			'amount',
			(v) => typeof v === 'number' && paise(v) !== undefined,
			error('422', OWN.amountInvalid),
		],
		['amount', (v) => decimals(v) <= 2, error('422', M.decimals)],
		[
			'transferMode',
			(v) => !present(v) || TRANSFER_MODES.includes(v),
			error('422', OWN.transferMode),
		],
		[
			'remarks',
			(v) => !present(v) || (isText(v) && v.length <= 70 && /^[A-Za-z0-9\s]*$/.test(v)),
			error('422', M.remarks),
		],
		['paymentInstrumentId', (v) => !present(v) || isText(v), error('400', M.piNotAvailable)],
	],
	internalTransfer: [
		[
			'amount',
			(v) => typeof v === 'number' && paise(v) !== undefined,
			error('422', OWN.amountInvalid),
		],
		['amount', (v) => v >= 1, error('422', OWN.internalAmount)],
		[
			'rechargeAccount',
			(v) => isText(v) && /^[A-Za-z0-9]+$/.test(v),
			error('422', OWN.rechargeInvalid),
		],
		[
			'transferId',
			(v) => v === undefined || (isText(v) && /^[A-Za-z0-9_-]{1,40}$/.test(v)),
			error('422', OWN.internalTransferId),
		],
	],
};

function firstBrokenRule(operation, body) {
	for (const [field, acceptable, answer] of rules[operation]) {
		if (!acceptable(body[field], body)) return answer;
	}
	return undefined;
}

/** Section 5: the bearer token, the account's switches, the caller allow-list. */
function authenticate(
	state,
	headers,
	{ ipMessage = M.ipNotWhitelisted, missingMessage = M.tokenMissing } = {},
) {
	const header = headers.authorization;
	if (!header || !/^Bearer\s+\S+/i.test(header)) return { answer: error('412', missingMessage) };
	const account = state.accounts[header.replace(/^Bearer\s+/i, '').trim()];
	if (!account) return { answer: error('403', M.tokenInvalid) };
	if (!account.apisEnabled) return { answer: error('403', M.apisDisabled) };
	if (!account.ipAllowed) return { answer: error('403', ipMessage) };
	return { account };
}

function reference(state) {
	return String(state.nextReference++);
}

/** Moves money once: records the transfer and debits the account. */
function book(state, account, record, amountPaise) {
	state.usedTransferIds.add(record.transferId);
	account.balance -= amountPaise;
	state.transfers.push({ ...record, amount: amountPaise / 100, account: account.name });
}

function cardTransfer(state, { body, headers }) {
	const { account, answer } = authenticate(state, headers);
	if (answer) return answer;
	const broken = firstBrokenRule('cardTransfer', body);
	if (broken) return broken;
	const card = state.cards[body.token];
	if (!card || card.outcome === 'invalidToken') return error('422', M.cardToken);
	if (card.outcome === 'badBank') return error('422', M.cardBankDetails);
	if (card.holder && body.name !== card.holder) return error('422', M.cardName);
	if (state.usedTransferIds.has(body.transferId)) return error('400', M.transferIdExists);
	const amount = paise(body.amount);
	if (account.balance < amount) return error('412', M.balance);
	const referenceId = reference(state);
	const isPending = card.outcome === 'pending';
	book(
		state,
		account,
		{
			operation: 'cardTransfer',
			transferId: body.transferId,
			token: body.token,
			cardType: body.cardType || 'CREDIT',
			status: isPending ? 'PENDING' : 'SUCCESS',
			referenceId,
		},
		amount,
	);
	if (isPending) return pending('201', M.pendingAtBank, { referenceId, utr: '', acknowledged: 0 });
	return {
		...ok('200', M.completed, { referenceId, utr: `UTR${referenceId}`, acknowledged: 1 }),
		contentType: 'text/plain',
	};
}

const STANDARD_OUTCOMES = {
	scheduled: (data) => ok('201', M.scheduled, data),
	awaiting: (data) => pending('201', M.awaiting, { ...data, utr: '', acknowledged: 0 }),
	pending: (data) => pending('201', M.pendingAtBank, { ...data, utr: '', acknowledged: 0 }),
	accepted: (data) => pending('202', M.accepted, { ...data, utr: '', acknowledged: 0 }),
	noResponse: () => error('201', M.noBankResponse),
};

function standardTransfer(state, { body, headers, now }) {
	const { account, answer } = authenticate(state, headers);
	if (answer) return answer;
	const broken = firstBrokenRule('standardTransfer', body);
	if (broken) return broken;
	const mode = body.transferMode || 'banktransfer';
	const amount = paise(body.amount);
	const beneficiary = state.beneficiaries[body.beneId];
	if (!beneficiary) return error('404', M.beneMissing);
	if (state.usedTransferIds.has(body.transferId)) return error('400', M.transferIdExists);
	if (amount < 100) return error('400', M.min1);
	if (amount > 100000 * 100) return error('400', M.max100000);
	if (mode === seed.modeWithMinimum100 && amount < 100 * 100) return error('400', M.min100);
	if (mode === seed.modeNotEnabled) return error('400', M.modeNotEnabled);
	const instruments = seed.paymentInstruments;
	if (present(body.paymentInstrumentId)) {
		const known = Object.values(instruments).flat();
		if (!known.includes(body.paymentInstrumentId)) return error('400', M.piNotAvailable);
		if (![instruments[mode]].flat().includes(body.paymentInstrumentId))
			return error('400', M.piWrongMode);
	} else if (Array.isArray(instruments[mode])) {
		return error('400', M.piMultiple);
	}
	if (beneficiary.disallowedModes?.includes(mode)) return error('400', M.modeNotValid);
	if (now - beneficiary.addedAt < 30 * 60 * 1000) return error('400', M.wait30);
	if (beneficiary.blocked) return error('400', M.notAllowed);
	if (account.limitReached) return error('400', M.accountLimit);
	if (beneficiary.limitReached) return error('400', M.beneLimit);
	if (beneficiary.bankAccount.length < 6) return error('422', M.bankDetails);
	if (beneficiary.ifsc.startsWith('XXXX')) return error('422', M.ifsc);
	if (account.balance < amount) return error('400', M.balance);
	if (beneficiary.walletFails && mode.startsWith('wallet')) return error('400', M.walletFailed);
	if (beneficiary.outcome === 'bankFails') return error('400', M.bankFailed);
	const referenceId = reference(state);
	const outcome = STANDARD_OUTCOMES[beneficiary.outcome];
	const answerOf = outcome ?? ((data) => ok('200', M.completed, data));
	const reply = answerOf({ referenceId, utr: `UTR${referenceId}`, acknowledged: 1 });
	// The money is held even when the bank did not answer: its outcome is unknown, not failed.
	book(
		state,
		account,
		{
			operation: 'standardTransfer',
			transferId: body.transferId,
			beneId: body.beneId,
			transferMode: mode,
			status: reply.status === 'ERROR' ? 'UNKNOWN' : reply.status,
			referenceId,
		},
		amount,
	);
	return reply;
}

function internalTransfer(state, { body, headers, internalDuplicates = 'refuse' }) {
	const { account, answer } = authenticate(state, headers);
	if (answer) return answer;
	const broken = firstBrokenRule('internalTransfer', body);
	if (broken) return broken;
	const recharge = state.rechargeAccounts[body.rechargeAccount];
	if (!recharge) return error('404', M.rechargeMissing);
	if (!recharge.configured || !account.internalConfigured) return error('422', M.notConfigured);
	const transferId = body.transferId ?? `INT${state.nextReference}`;
	// Not shown in the document: configurable, so tests can prove a client never relies on it.
	if (internalDuplicates === 'refuse' && state.usedTransferIds.has(transferId))
		return error('400', M.transferIdExists);
	const amount = paise(body.amount);
	if (account.balance < amount) return error('400', M.balance);
	const referenceId = reference(state);
	book(
		state,
		account,
		{
			operation: 'internalTransfer',
			transferId,
			rechargeAccount: body.rechargeAccount,
			status: 'SUCCESS',
			referenceId,
		},
		amount,
	);
	recharge.balance += amount;
	return ok('200', `Reference ${referenceId}: Internal Fund Transfer completed`, { transferId });
}

function getBeneficiary(state, { headers, params }) {
	const { answer } = authenticate(state, headers);
	if (answer) return answer;
	const beneficiary = state.beneficiaries[params.beneId];
	if (!beneficiary) return error('404', M.beneMissing);
	const {
		beneId,
		name,
		groupName,
		email,
		phone,
		address1,
		address2,
		city,
		state: region,
		pincode,
		bankAccount,
		ifsc,
		status,
	} = beneficiary;
	return ok('200', M.beneDetails, {
		beneId,
		name,
		groupName,
		email,
		phone,
		address1,
		address2,
		city,
		state: region,
		pincode,
		bankAccount,
		ifsc,
		status,
	});
}

function getIncidents(state, { headers, query, now, timezone }) {
	const { answer } = authenticate(state, headers, {
		ipMessage: M.ipNotWhitelistedIncidents,
		missingMessage: M.tokenMissingIncidents,
	});
	if (answer) return answer;
	const status = query.status ?? 'UNRESOLVED';
	if (!['RESOLVED', 'UNRESOLVED', 'ALL'].includes(status)) return error('422', M.statusInvalid);
	const today = DateTime.fromMillis(now, { zone: timezone });
	const parse = (value, fallback) =>
		value === undefined
			? fallback
			: TIME_PATTERN.test(value)
				? DateTime.fromFormat(value, TIME_FORMAT, { zone: timezone })
				: undefined;
	const start = parse(query.startTime, today.startOf('day'));
	if (!start?.isValid) return error('422', M.startFormat);
	const end = parse(query.endTime, today.endOf('day'));
	if (!end?.isValid) return error('422', M.endFormat);
	if (start > end) return error('422', M.startAfterEnd);
	if (end.diff(start, 'days').days > 7 || start < today.minus({ days: 90 }))
		return error('422', M.window);
	if (query.entityCode === seed.failingEntityCode) return error('520', M.unknownError);
	// The window is inclusive to the second: "hh:mm:ss" covers that whole second.
	const from = start.toMillis();
	const to = end.toMillis() + 999;
	const incidents = state.incidents.filter((incident) => {
		const created = Date.parse(incident.createdAt);
		if (created < from || created > to) return false;
		if (status === 'RESOLVED' && !incident.isResolved) return false;
		if (status === 'UNRESOLVED' && incident.isResolved) return false;
		return query.entityCode === undefined || incident.entityCode === query.entityCode;
	});
	return ok('200', M.incidentsListed, { incidents });
}

function getPaylinkStatus(state, { headers, query }) {
	const { answer } = authenticate(state, headers);
	if (answer) return answer;
	if (!present(query.paylinkId)) return error('422', OWN.paylinkIdMissing);
	const paylink = state.paylinks[query.paylinkId];
	if (!paylink) return error('404', `Paylink with id ${query.paylinkId} does not exist`);
	return ok('200', M.paylinkFound, { ...paylink });
}

/** The token endpoint's errors are not in the document: these are the sandbox's own. */
const TOKEN_ERRORS = {
	client: {
		httpStatus: 401,
		body: {
			status: 'ERROR',
			subCode: '401',
			message: "Invalid client credentials (the sandbox's own message)",
		},
	},
	version: {
		httpStatus: 400,
		body: {
			status: 'ERROR',
			subCode: '400',
			message: "x-api-version must be a date in the format YYYY-MM-DD (the sandbox's own message)",
		},
	},
	missingCode: {
		httpStatus: 400,
		body: {
			status: 'ERROR',
			subCode: '400',
			message: "auth_code is required (the sandbox's own message)",
		},
	},
	badCode: {
		httpStatus: 400,
		body: {
			status: 'ERROR',
			subCode: '400',
			message: "auth_code is invalid or already used (the sandbox's own message)",
		},
	},
};

function generateToken(state, { body, headers, now }) {
	if (
		headers['x-client-id'] !== seed.credentials.clientId ||
		headers['x-client-secret'] !== seed.credentials.clientSecret
	)
		return TOKEN_ERRORS.client;
	if (!/^\d{4}-\d{2}-\d{2}$/.test(headers['x-api-version'] ?? '')) return TOKEN_ERRORS.version;
	if (!present(body.auth_code)) return TOKEN_ERRORS.missingCode;
	const consented = state.consents.get(body.auth_code);
	if (
		(!seed.authCodes.includes(body.auth_code) && consented === undefined) ||
		state.usedAuthCodes.has(body.auth_code)
	)
		return TOKEN_ERRORS.badCode;
	state.usedAuthCodes.add(body.auth_code);
	const referenceId = state.nextReference++;
	return {
		httpStatus: 200,
		body: {
			reference_id: referenceId,
			// The id the merchant gave the verification when it started the flow; a seeded code's flow was started by nobody here.
			verification_id: consented ?? `verification_${referenceId}`,
			expiry: new Date(now + 3600 * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
			access_token: `user-access-${referenceId}-${Math.random().toString(36).slice(2, 10)}`,
		},
	};
}

/** The routes: method, path, handler. Paths carry the document's version segments. */
const operations = [
	{ name: 'cardTransfer', method: 'POST', path: '/payout/v1/cardpay', handler: cardTransfer },
	{
		name: 'standardTransfer',
		method: 'POST',
		path: '/payout/v1.2/requestTransfer',
		handler: standardTransfer,
	},
	{
		name: 'internalTransfer',
		method: 'POST',
		path: '/payout/v1/internalTransfer',
		handler: internalTransfer,
	},
	{
		name: 'getBeneficiary',
		method: 'GET',
		path: '/payout/v1/getBeneficiary/:beneId',
		handler: getBeneficiary,
	},
	{ name: 'getIncidents', method: 'GET', path: '/payout/v1/incidents', handler: getIncidents },
	{
		name: 'getPaylinkStatus',
		method: 'GET',
		path: '/payout/v1/getPaylinkStatus',
		handler: getPaylinkStatus,
	},
	{
		name: 'generateToken',
		method: 'POST',
		path: '/verification/oauth2/generate-token',
		handler: generateToken,
	},
];

/**
 * Every answer by which the service refuses a field's value (as opposed to refusing the business:
 * an unknown beneficiary, a low balance). A differential test uses it: what the nodes send must
 * never be refused for its form.
 */
const fieldRuleMessages = new Set([
	...Object.values(rules).flatMap((table) => table.map(([, , answer]) => answer.message)),
	M.statusInvalid,
	M.startFormat,
	M.endFormat,
	M.startAfterEnd,
	M.window,
	OWN.paylinkIdMissing,
	OWN.badJson,
	OWN.notAnObject,
	OWN.tooLarge,
	TOKEN_ERRORS.missingCode.body.message,
]);

module.exports = {
	operations,
	messages: M,
	ownMessages: OWN,
	TOKEN_ERRORS,
	error,
	fieldRuleMessages,
};

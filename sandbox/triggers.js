'use strict';
/**
 * How to reach every row of the interface document's error tables (section 7), and every
 * success, scheduled and pending outcome, with one request to a freshly reset sandbox. The
 * trigger table of docs/sandbox.md is printed from this list (print-triggers.js) and the tests send each
 * request, so the table, the sandbox and the tests cannot drift apart.
 */
const { seed } = require('./seed');
const { messages: M, TOKEN_ERRORS } = require('./service');

const { beneficiaries: B, cards: C, tokens: T } = seed;
const card = (body = {}, extra = {}) => ({ method: 'POST', path: '/payout/v1/cardpay', body: { token: C.success1, amount: '100.00', transferId: 'card_trigger_1', cardType: 'CREDIT', ...body }, ...extra });
const standard = (body = {}, extra = {}) => ({ method: 'POST', path: '/payout/v1.2/requestTransfer', body: { beneId: B.verified, amount: 150, transferId: 'std_trigger_1', transferMode: 'banktransfer', ...body }, ...extra });
const internal = (body = {}, extra = {}) => ({ method: 'POST', path: '/payout/v1/internalTransfer', body: { amount: 500, rechargeAccount: seed.rechargeAccounts.configured, transferId: 'int-trigger-1', ...body }, ...extra });
const beneficiary = (beneId = B.verified, extra = {}) => ({ method: 'GET', path: `/payout/v1/getBeneficiary/${beneId}`, ...extra });
const incidents = (query = {}, extra = {}) => ({ method: 'GET', path: '/payout/v1/incidents', query, ...extra });
const paylink = (paylinkId = seed.paylinks.active, extra = {}) => ({ method: 'GET', path: '/payout/v1/getPaylinkStatus', query: { paylinkId }, ...extra });
const token = (body = { auth_code: seed.authCodes[0] }, headers = {}) => ({
	method: 'POST',
	path: '/verification/oauth2/generate-token',
	body,
	token: null,
	headers: { 'x-client-id': seed.credentials.clientId, 'x-client-secret': seed.credentials.clientSecret, 'x-api-version': seed.credentials.apiVersion, ...headers },
});

const daysAgo = (days, time = '00:00:00') => `${new Date(Date.now() - days * 86400000).toISOString().slice(0, 10)} ${time}`;

const rows = [
	// Card transfer.
	['card-200', 'cardTransfer', '200', 'SUCCESS', M.completed, card()],
	['card-201-pending', 'cardTransfer', '201', 'PENDING', M.pendingAtBank, card({ token: C.pending })],
	['card-400-duplicate', 'cardTransfer', '400', 'ERROR', M.transferIdExists, card({ transferId: seed.existingTransferId })],
	['card-403-token', 'cardTransfer', '403', 'ERROR', M.tokenInvalid, card({}, { token: T.expired })],
	['card-403-apis', 'cardTransfer', '403', 'ERROR', M.apisDisabled, card({}, { token: T.apisDisabled })],
	['card-412-balance', 'cardTransfer', '412', 'ERROR', M.balance, card({}, { token: T.lowBalance })],
	['card-422-token', 'cardTransfer', '422', 'ERROR', M.cardToken, card({ token: C.fail1 })],
	['card-422-amount', 'cardTransfer', '422', 'ERROR', M.cardAmountMin, card({ amount: '0.50' })],
	['card-422-bank', 'cardTransfer', '422', 'ERROR', M.cardBankDetails, card({ token: C.fail2 })],
	['card-422-name', 'cardTransfer', '422', 'ERROR', M.cardName, card({ token: C.nameChecked, name: 'Somebody Else' })],
	['card-422-network', 'cardTransfer', '422', 'ERROR', M.cardNetwork, card({ networkType: 'NETWORK_C' })],
	['card-422-cardtype', 'cardTransfer', '422', 'ERROR', M.cardType, card({ cardType: 'PREPAID' })],
	['card-422-transferid', 'cardTransfer', '422', 'ERROR', M.cardTransferId, card({ transferId: 'card trigger 1' })],

	// Standard transfer v1.2.
	['std-200', 'standardTransfer', '200', 'SUCCESS', M.completed, standard()],
	['std-201-scheduled', 'standardTransfer', '201', 'SUCCESS', M.scheduled, standard({ beneId: B.scheduled })],
	['std-201-awaiting', 'standardTransfer', '201', 'PENDING', M.awaiting, standard({ beneId: B.awaitingConfirmation })],
	['std-201-pending', 'standardTransfer', '201', 'PENDING', M.pendingAtBank, standard({ beneId: B.pendingAtBank })],
	['std-201-no-response', 'standardTransfer', '201', 'ERROR', M.noBankResponse, standard({ beneId: B.noBankResponse })],
	['std-202-accepted', 'standardTransfer', '202', 'PENDING', M.accepted, standard({ beneId: B.accepted })],
	['std-400-mode', 'standardTransfer', '400', 'ERROR', M.modeNotValid, standard({ beneId: B.modeNotAllowed, transferMode: 'imps' })],
	['std-400-duplicate', 'standardTransfer', '400', 'ERROR', M.transferIdExists, standard({ transferId: seed.existingTransferId })],
	['std-400-balance', 'standardTransfer', '400', 'ERROR', M.balance, standard({}, { token: T.lowBalance })],
	['std-400-wait', 'standardTransfer', '400', 'ERROR', M.wait30, standard({ beneId: B.newlyAdded })],
	['std-400-min-100', 'standardTransfer', '400', 'ERROR', M.min100, standard({ transferMode: seed.modeWithMinimum100, amount: 50 })],
	['std-400-max', 'standardTransfer', '400', 'ERROR', M.max100000, standard({ amount: 100000.5 })],
	['std-400-wallet', 'standardTransfer', '400', 'ERROR', M.walletFailed, standard({ beneId: B.walletFails, transferMode: 'walletA' })],
	['std-400-bank', 'standardTransfer', '400', 'ERROR', M.bankFailed, standard({ beneId: B.bankFails })],
	['std-400-not-allowed', 'standardTransfer', '400', 'ERROR', M.notAllowed, standard({ beneId: B.blocked })],
	['std-400-min-1', 'standardTransfer', '400', 'ERROR', M.min1, standard({ amount: 0.5 })],
	['std-400-account-limit', 'standardTransfer', '400', 'ERROR', M.accountLimit, standard({}, { token: T.accountLimit })],
	['std-400-mode-not-enabled', 'standardTransfer', '400', 'ERROR', M.modeNotEnabled, standard({ transferMode: seed.modeNotEnabled })],
	['std-400-pi-not-available', 'standardTransfer', '400', 'ERROR', M.piNotAvailable, standard({ paymentInstrumentId: 'PIUNKNOWN' })],
	['std-400-pi-wrong-mode', 'standardTransfer', '400', 'ERROR', M.piWrongMode, standard({ transferMode: 'imps', paymentInstrumentId: seed.paymentInstruments.upi })],
	['std-400-pi-multiple', 'standardTransfer', '400', 'ERROR', M.piMultiple, standard({ transferMode: 'neft' })],
	['std-400-bene-limit', 'standardTransfer', '400', 'ERROR', M.beneLimit, standard({ beneId: B.limitReached })],
	['std-403-token', 'standardTransfer', '403', 'ERROR', M.tokenInvalid, standard({}, { token: T.expired })],
	['std-403-ip', 'standardTransfer', '403', 'ERROR', M.ipNotWhitelisted, standard({}, { token: T.ipRestricted })],
	['std-404-beneficiary', 'standardTransfer', '404', 'ERROR', M.beneMissing, standard({ beneId: seed.unknownBeneId })],
	['std-412-transferid', 'standardTransfer', '412', 'ERROR', M.transferIdMissing, standard({ transferId: '' })],
	['std-422-beneid', 'standardTransfer', '422', 'ERROR', M.beneIdInvalid, standard({ beneId: 'BENE-1' })],
	['std-422-bank', 'standardTransfer', '422', 'ERROR', M.bankDetails, standard({ beneId: B.badBankAccount })],
	['std-422-ifsc', 'standardTransfer', '422', 'ERROR', M.ifsc, standard({ beneId: B.badIfsc })],
	['std-422-decimals', 'standardTransfer', '422', 'ERROR', M.decimals, standard({ amount: 150.255 })],
	['std-422-transferid', 'standardTransfer', '422', 'ERROR', M.transferIdMissing, standard({ transferId: 'std-trigger-1' })],
	['std-422-remarks', 'standardTransfer', '422', 'ERROR', M.remarks, standard({ remarks: 'r'.repeat(71) })],

	// Internal transfer.
	['internal-200', 'internalTransfer', '200', 'SUCCESS', 'Reference <n>: Internal Fund Transfer completed', internal()],
	['internal-403-apis', 'internalTransfer', '403', 'ERROR', M.apisDisabled, internal({}, { token: T.apisDisabled })],
	['internal-404-recharge', 'internalTransfer', '404', 'ERROR', M.rechargeMissing, internal({ rechargeAccount: seed.rechargeAccounts.unknown })],
	['internal-422-not-configured', 'internalTransfer', '422', 'ERROR', M.notConfigured, internal({ rechargeAccount: seed.rechargeAccounts.notConfigured })],

	// Get beneficiary details.
	['bene-200', 'getBeneficiary', '200', 'SUCCESS', M.beneDetails, beneficiary()],
	['bene-403-token', 'getBeneficiary', '403', 'ERROR', M.tokenInvalid, beneficiary(B.verified, { token: T.expired })],
	['bene-403-apis', 'getBeneficiary', '403', 'ERROR', M.apisDisabled, beneficiary(B.verified, { token: T.apisDisabled })],
	['bene-404', 'getBeneficiary', '404', 'ERROR', M.beneMissing, beneficiary(seed.unknownBeneId)],
	['bene-412-token-missing', 'getBeneficiary', '412', 'ERROR', M.tokenMissing, beneficiary(B.verified, { token: null })],

	// Get incidents.
	['incidents-200', 'getIncidents', '200', 'SUCCESS', M.incidentsListed, incidents({ status: 'ALL' })],
	['incidents-403-token', 'getIncidents', '403', 'ERROR', M.tokenInvalid, incidents({}, { token: T.expired })],
	['incidents-403-ip', 'getIncidents', '403', 'ERROR', M.ipNotWhitelistedIncidents, incidents({}, { token: T.ipRestricted })],
	['incidents-403-apis', 'getIncidents', '403', 'ERROR', M.apisDisabled, incidents({}, { token: T.apisDisabled })],
	['incidents-412-token-missing', 'getIncidents', '412', 'ERROR', M.tokenMissingIncidents, incidents({}, { token: null })],
	['incidents-422-status', 'getIncidents', '422', 'ERROR', M.statusInvalid, incidents({ status: 'OPEN' })],
	['incidents-422-order', 'getIncidents', '422', 'ERROR', M.startAfterEnd, incidents({ startTime: daysAgo(1), endTime: daysAgo(2) })],
	['incidents-422-window', 'getIncidents', '422', 'ERROR', M.window, incidents({ startTime: daysAgo(10), endTime: daysAgo(1) })],
	['incidents-422-start-format', 'getIncidents', '422', 'ERROR', M.startFormat, incidents({ startTime: '2026/01/01' })],
	['incidents-422-end-format', 'getIncidents', '422', 'ERROR', M.endFormat, incidents({ endTime: 'tomorrow' })],
	['incidents-520', 'getIncidents', '520', 'ERROR', M.unknownError, incidents({ entityCode: seed.failingEntityCode })],

	// Get paylink status.
	['paylink-200', 'getPaylinkStatus', '200', 'SUCCESS', M.paylinkFound, paylink()],
	['paylink-404', 'getPaylinkStatus', '404', 'ERROR', `Paylink with id ${seed.paylinks.unknown} does not exist`, paylink(seed.paylinks.unknown)],

	// OAuth token generation: its errors are the sandbox's own (the document shows none).
	['token-200', 'generateToken', '200', 'SUCCESS', '(the access token object, without the envelope)', token()],
	['token-401-client', 'generateToken', '401', 'ERROR', TOKEN_ERRORS.client.body.message, token(undefined, { 'x-client-secret': 'wrong-secret' })],
	['token-400-version', 'generateToken', '400', 'ERROR', TOKEN_ERRORS.version.body.message, token(undefined, { 'x-api-version': '2024/01/01' })],
	['token-400-missing-code', 'generateToken', '400', 'ERROR', TOKEN_ERRORS.missingCode.body.message, token({})],
	['token-400-bad-code', 'generateToken', '400', 'ERROR', TOKEN_ERRORS.badCode.body.message, token({ auth_code: 'AUTH_CODE_UNKNOWN' })],
];

const triggers = rows.map(([id, operation, subCode, status, message, request]) => ({ id, operation, subCode, status, message, request }));

module.exports = { triggers };

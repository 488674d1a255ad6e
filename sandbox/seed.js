'use strict';
/**
 * The sandbox's seeded state, written from the interface document: accounts (one per bearer
 * token), beneficiaries, cards, payment instruments, recharge accounts, paylinks, incidents and
 * OAuth codes. Every special case exists so that one row of the document's error tables can be
 * reached on purpose with a single request (see triggers.js).
 */

const credentials = {
	accessToken: 'sandbox-access-token',
	clientId: 'sandbox-client-id',
	clientSecret: 'sandbox-client-secret',
	apiVersion: '2024-01-01',
};

/** Bearer tokens of the other accounts, each with one trait. */
const tokens = {
	expired: 'sandbox-expired-token',
	apisDisabled: 'sandbox-token-apis-disabled',
	ipRestricted: 'sandbox-token-ip-restricted',
	lowBalance: 'sandbox-token-low-balance',
	accountLimit: 'sandbox-token-account-limit',
	/** The same account as accountLimit (the name the brief used). */
	limited: 'sandbox-token-account-limit',
	internalNotConfigured: 'sandbox-token-internal-not-configured',
};

/** Beneficiary ids (letters and digits, as the standard transfer's rule asks). */
const beneficiaries = {
	verified: 'BENEVERIFIED1',
	verified2: 'BENEVERIFIED2',
	newlyAdded: 'BENENEW1',
	modeNotAllowed: 'BENENOIMPS',
	blocked: 'BENEBLOCKED1',
	limitReached: 'BENELIMIT1',
	badBankAccount: 'BENEBADACCOUNT',
	badIfsc: 'BENEBADIFSC',
	bankFails: 'BENEBANKFAIL',
	walletFails: 'BENEWALLETFAIL',
	scheduled: 'BENESCHEDULED',
	awaitingConfirmation: 'BENEAWAITING',
	pendingAtBank: 'BENEPENDING',
	noBankResponse: 'BENENORESPONSE',
	accepted: 'BENEACCEPTED',
	/** Banks with seeded incidents (IFSC prefix = incident entityCode): see `incidentBanks`. */
	hdfcBank: 'BENEHDFC1',
	iciciBank: 'BENEICIC1',
};

/**
 * Seeded incidents that the transfer node's Incident Guard meets, with the beneficiaries whose
 * IFSC starts with the incident's entityCode: an open scheduled LOW IMPS incident at HDFC, an
 * open unscheduled LOW RTGS incident at YESB (the bank of every other seeded beneficiary), and
 * only resolved ones (NEFT, today) at ICIC.
 */
const incidentBanks = {
	openScheduledImpsAtHdfc: {
		incidentId: 1000,
		entityCode: 'HDFC',
		mode: 'IMPS',
		beneId: 'BENEHDFC1',
	},
	openRtgsAtYesb: { incidentId: 1003, entityCode: 'YESB', mode: 'RTGS', beneId: 'BENEVERIFIED1' },
	resolvedNeftAtIcic: { incidentId: 1001, entityCode: 'ICIC', mode: 'NEFT', beneId: 'BENEICIC1' },
};

const unknownBeneId = 'BENEUNKNOWN9';

/** Test card tokens: two that succeed, two that fail, one that stays pending, and two special ones. */
const cards = {
	success1: '4111110000001111',
	success2: '5222220000002222',
	fail1: '4111110000009991',
	fail2: '5222220000009992',
	pending: '4111110000005555',
	/** Pays only when `name` is the holder's name, "Asha Rao". */
	nameChecked: '4111110000007777',
};

const paymentInstruments = {
	banktransfer: 'PIBANK1',
	imps: 'PIIMPS1',
	neft: ['PINEFT1', 'PINEFT2'],
	rtgs: 'PIRTGS1',
	upi: 'PIUPI1',
	walletA: 'PIWALLETA1',
};

const rechargeAccounts = {
	configured: 'RECHARGE001',
	notConfigured: 'RECHARGE002',
	unknown: 'RECHARGE999',
};

const paylinks = {
	active: 'PAYLINK_ACTIVE_1',
	paid: 'PAYLINK_PAID_1',
	expired: 'PAYLINK_EXPIRED_1',
	unknown: 'PAYLINK_MISSING_9',
};

const existingTransferId = 'EXISTING_TRANSFER_1';

const authCodes = Array.from({ length: 20 }, (_, index) => `AUTH_CODE_${index + 1}`);

/** Entity codes with a trait: incidents listing for BANK520 fails with the 520 row. */
const failingEntityCode = 'BANK520';

const seed = {
	credentials,
	tokens,
	beneficiaries,
	unknownBeneId,
	cards,
	paymentInstruments,
	rechargeAccounts,
	paylinks,
	existingTransferId,
	authCodes,
	failingEntityCode,
	incidentBanks,
	/** Which transfer mode has a Rs. 100 minimum, and which is not enabled for the account. */
	modeWithMinimum100: 'rtgs',
	modeNotEnabled: 'walletB',
};

const MAIN_BALANCE = 1000000000; // in paise: 10,000,000.00

function accounts() {
	const base = {
		balance: MAIN_BALANCE,
		apisEnabled: true,
		ipAllowed: true,
		limitReached: false,
		internalConfigured: true,
	};
	return {
		[credentials.accessToken]: { name: 'main', ...base },
		[tokens.apisDisabled]: { name: 'apis-disabled', ...base, apisEnabled: false },
		[tokens.ipRestricted]: { name: 'ip-restricted', ...base, ipAllowed: false },
		[tokens.lowBalance]: { name: 'low-balance', ...base, balance: 500 },
		[tokens.accountLimit]: { name: 'account-limit', ...base, limitReached: true },
		[tokens.internalNotConfigured]: {
			name: 'internal-not-configured',
			...base,
			internalConfigured: false,
		},
	};
}

function beneficiaryRecords(now) {
	const record = (beneId, name, extra = {}) => ({
		beneId,
		name,
		groupName: 'DEFAULT',
		email: `${beneId.toLowerCase()}@example.com`,
		phone: '9876543210',
		address1: '12 Market Road',
		address2: '',
		city: 'Bengaluru',
		state: 'Karnataka',
		pincode: '560001',
		bankAccount: '026291800001191',
		ifsc: 'YESB0000262',
		status: 'VERIFIED',
		addedAt: now - 30 * 24 * 3600 * 1000,
		...extra,
	});
	const b = beneficiaries;
	return Object.fromEntries(
		[
			record(b.verified, 'Asha Rao'),
			record(b.verified2, 'Vikram Iyer', { address2: 'Flat 4B' }),
			record(b.newlyAdded, 'Nila Menon', { addedAt: now - 5 * 60 * 1000 }),
			record(b.modeNotAllowed, 'Ravi Das', { disallowedModes: ['imps'] }),
			record(b.blocked, 'Kiran Shah', { blocked: true }),
			record(b.limitReached, 'Meera Pillai', { limitReached: true }),
			record(b.badBankAccount, 'Arjun Nair', { bankAccount: '000' }),
			record(b.badIfsc, 'Divya Rao', { ifsc: 'XXXX0000000' }),
			record(b.bankFails, 'Sanjay Gupta', { outcome: 'bankFails' }),
			record(b.walletFails, 'Tara Singh', { walletFails: true }),
			record(b.scheduled, 'Farah Khan', { outcome: 'scheduled' }),
			record(b.awaitingConfirmation, 'Omar Ali', { outcome: 'awaiting' }),
			record(b.pendingAtBank, 'Leela Bose', { outcome: 'pending' }),
			record(b.noBankResponse, 'Hari Kumar', { outcome: 'noResponse' }),
			record(b.accepted, 'Zoya Mirza', { outcome: 'accepted' }),
			record(b.hdfcBank, 'Neha Joshi', { ifsc: 'HDFC0000123' }),
			record(b.iciciBank, 'Priya Nair', { ifsc: 'ICIC0000789' }),
		].map((beneficiary) => [beneficiary.beneId, beneficiary]),
	);
}

function cardRecords() {
	return {
		[cards.success1]: { outcome: 'success' },
		[cards.success2]: { outcome: 'success' },
		[cards.fail1]: { outcome: 'invalidToken' },
		[cards.fail2]: { outcome: 'badBank' },
		[cards.pending]: { outcome: 'pending' },
		[cards.nameChecked]: { outcome: 'success', holder: 'Asha Rao' },
	};
}

function paylinkRecords() {
	const link = (paylinkId, paylinkStatus, referenceId) => ({
		paylinkId,
		paylinkStatus,
		referenceId,
		paylinkLink: `https://payouts.example.com/paylink/${paylinkId.toLowerCase()}`,
	});
	return {
		[paylinks.active]: link(paylinks.active, 'ACTIVE', 880011),
		[paylinks.paid]: link(paylinks.paid, 'PAID', 880012),
		[paylinks.expired]: link(paylinks.expired, 'EXPIRED', 880013),
	};
}

const BANKS = [
	['HDFC', 'HDFC Bank'],
	['ICIC', 'ICICI Bank'],
	['SBIN', 'State Bank of India'],
	['YESB', 'Yes Bank'],
	['UTIB', 'Axis Bank'],
];
const MODES = ['IMPS', 'NEFT', 'UPI', 'RTGS'];
const IMPACTS = ['LOW', 'MEDIUM', 'HIGH'];

function iso(ms) {
	return new Date(ms).toISOString();
}

/** Incidents spread over the last 90 days; some of today's are unresolved. */
function incidentRecords(now) {
	const hour = 3600 * 1000;
	const startOfToday = new Date(now).setUTCHours(0, 0, 0, 0);
	const list = [];
	for (let index = 0; index < 45; index++) {
		const [entityCode, entityName] = BANKS[index % BANKS.length];
		// The first six fall on today (UTC, the sandbox's default timezone), the rest up to ~87 days back.
		const created =
			index < 6 ? startOfToday + ((now - startOfToday) * (index + 1)) / 7 : now - index * 47 * hour;
		const ageHours = (now - created) / hour;
		const resolved = index % 3 !== 0 || ageHours > 24 * 10;
		list.push({
			id: 1000 + index,
			type: index % 4 === 0 ? 'BANK' : 'BENEFICIARY',
			entity: 'BANK',
			mode: MODES[index % MODES.length],
			createdAt: iso(created),
			resolvedAt: resolved ? iso(Math.min(now - 60 * 1000, created + 2 * hour)) : '',
			isScheduled: index % 5 === 0,
			isResolved: resolved,
			impact: IMPACTS[index % IMPACTS.length],
			entityName,
			entityCode,
		});
	}
	return list;
}

/** A fresh copy of everything that changes while the sandbox runs. */
function seededState(now = Date.now()) {
	return {
		accounts: accounts(),
		beneficiaries: beneficiaryRecords(now),
		cards: cardRecords(),
		paylinks: paylinkRecords(),
		incidents: incidentRecords(now),
		rechargeAccounts: {
			[rechargeAccounts.configured]: { configured: true, balance: 0 },
			[rechargeAccounts.notConfigured]: { configured: false, balance: 0 },
		},
		usedTransferIds: new Set([existingTransferId]),
		usedAuthCodes: new Set(),
		/** Codes of consents given through the control interface, each with the verification id it was started with. */
		consents: new Map(),
		transfers: [],
		nextReference: 500001,
	};
}

module.exports = { seed, seededState, MAIN_BALANCE, BANKS };

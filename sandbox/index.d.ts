/** Types of the sandbox's public API (the sandbox itself is plain JavaScript). */
export type HttpStyle = 'mirror' | 'always200';
export type FaultKind =
	| 'latency'
	| 'drop-before'
	| 'drop-after'
	| 'html-500'
	| 'error-520'
	| 'malformed-json'
	| 'stall'
	| 'empty-body'
	| 'replay'
	| 'error-500'
	| 'no-bank-response';
/** What a chaos run injects (`chaos.kinds`): html-502 is html-500 with status 502; no-bank-response meets standard transfers only and books half of them. */
export type ChaosKind =
	| 'drop-before'
	| 'drop-after'
	| 'html-502'
	| 'error-500'
	| 'error-520'
	| 'no-bank-response';

/** Seeded random faults on transfer requests: each meets one with probability `rate`. */
export interface ChaosSetting {
	seed: number;
	rate: number;
	kinds?: ChaosKind[];
}

export interface FaultRule {
	fault: FaultKind | string;
	match?: {
		method?: string;
		path?: string;
		transferId?: string;
		beneId?: string;
		paylinkId?: string;
	};
	times?: number;
	latencyMs?: number;
	latencyJitterMs?: number;
	/** no-bank-response: whether the service booked it before answering (default true). */
	books?: boolean;
	/** replay and html-500: the HTTP status; replay: the body and its content type. */
	status?: number;
	body?: string;
	contentType?: string;
}

export interface SandboxOptions {
	port?: number;
	host?: string;
	httpStyle?: HttpStyle;
	latencyMs?: number;
	latencyJitterMs?: number;
	/** The zone incident windows are read in (the document names none): IANA (Asia/Kolkata) or a fixed offset (UTC+5:30, UTC-8). Default UTC. */
	timezone?: string;
	faults?: FaultRule[];
	chaos?: ChaosSetting | null;
	logger?: boolean;
	/** What a second internal transfer with a used transferId gets (not shown in the document). */
	internalDuplicates?: 'refuse' | 'book';
}

export interface ReceivedRequest {
	method: string;
	path: string;
	query: Record<string, string>;
	headers: Record<string, string>;
	body: unknown;
	time: number;
}

export interface Incident {
	id: number;
	type: string;
	entity: string;
	mode: string;
	createdAt: string;
	resolvedAt: string;
	isScheduled: boolean;
	isResolved: boolean;
	impact: string;
	entityName: string;
	entityCode: string;
}

export interface SandboxState {
	balances: Record<string, number>;
	rechargeBalances: Record<string, number>;
	transfers: Array<{
		operation: string;
		transferId: string;
		amount: number;
		status: string;
		account: string;
		[key: string]: unknown;
	}>;
	/** transfers.length */
	count: number;
	usedAuthCodes: string[];
	/** Requests being answered right now. */
	inFlight: number;
	maxInFlight: number;
	/** Chaos faults injected since the last reset, by kind. */
	faultsInjected: Partial<Record<ChaosKind, number>>;
}

export interface Sandbox {
	baseUrl: string;
	verificationUrl: string;
	port: number;
	requests(): ReceivedRequest[];
	/** How many requests the log holds, without copying them. */
	requestCount(): number;
	clearRequests(): void;
	reset(): void;
	configure(change: {
		httpStyle?: HttpStyle;
		faults?: FaultRule[];
		latencyMs?: number;
		latencyJitterMs?: number;
		internalDuplicates?: 'refuse' | 'book';
		timezone?: string;
		chaos?: ChaosSetting | null;
	}): void;
	state(): SandboxState;
	/** The dashboard's CSV export of the transfers booked (also GET /__sandbox/dashboard.csv). */
	dashboardCsv(): string;
	/** An incident created now, open unless said otherwise (also POST /__sandbox/incidents). */
	openIncident(fields?: Partial<Incident>): Incident;
	addIncident(fields?: Partial<Incident>): Incident;
	/** Resolves open incidents now by id, or by entityCode and mode (also POST /__sandbox/incidents/resolve). */
	resolveIncidents(which: { id: number } | { entityCode: string; mode: string }): Incident[];
	resolveIncident(id: number): Incident;
	/** Sets a paylink's fields now, or creates it (also POST /__sandbox/paylinks). */
	setPaylink(fields: { paylinkId: string; paylinkStatus?: string; paylinkLink?: string }): {
		paylinkId: string;
		paylinkStatus: string;
		referenceId: number;
		paylinkLink: string;
	};
	/** A user's consent to a one-click flow started with `verificationId`: a fresh single-use auth code whose token carries it (also POST /__sandbox/oauth/consent). */
	consent(fields: { verificationId: string }): { authCode: string; verificationId: string };
	close(): Promise<void>;
}

export interface TriggerRow {
	id: string;
	operation:
		| 'cardTransfer'
		| 'standardTransfer'
		| 'internalTransfer'
		| 'getBeneficiary'
		| 'getIncidents'
		| 'getPaylinkStatus'
		| 'generateToken';
	subCode: string;
	status: 'SUCCESS' | 'PENDING' | 'ERROR';
	message: string;
	request: {
		method: string;
		path: string;
		query?: Record<string, string>;
		body?: Record<string, unknown>;
		token?: string | null;
		headers?: Record<string, string>;
	};
}

export declare function startSandbox(options?: SandboxOptions): Promise<Sandbox>;
export declare const triggers: TriggerRow[];
export declare const seed: {
	credentials: { accessToken: string; clientId: string; clientSecret: string; apiVersion: string };
	tokens: Record<
		| 'expired'
		| 'apisDisabled'
		| 'ipRestricted'
		| 'lowBalance'
		| 'accountLimit'
		| 'limited'
		| 'internalNotConfigured',
		string
	>;
	beneficiaries: Record<
		| 'verified'
		| 'verified2'
		| 'newlyAdded'
		| 'modeNotAllowed'
		| 'blocked'
		| 'limitReached'
		| 'badBankAccount'
		| 'badIfsc'
		| 'bankFails'
		| 'walletFails'
		| 'scheduled'
		| 'awaitingConfirmation'
		| 'pendingAtBank'
		| 'noBankResponse'
		| 'accepted'
		| 'hdfcBank'
		| 'iciciBank',
		string
	>;
	unknownBeneId: string;
	cards: Record<'success1' | 'success2' | 'fail1' | 'fail2' | 'pending' | 'nameChecked', string>;
	paymentInstruments: Record<string, string | string[]>;
	rechargeAccounts: Record<'configured' | 'notConfigured' | 'unknown', string>;
	paylinks: Record<'active' | 'paid' | 'expired' | 'unknown', string>;
	existingTransferId: string;
	authCodes: string[];
	failingEntityCode: string;
	incidentBanks: Record<
		'openScheduledImpsAtHdfc' | 'openRtgsAtYesb' | 'resolvedNeftAtIcic',
		{ incidentId: number; entityCode: string; mode: string; beneId: string }
	>;
	modeWithMinimum100: string;
	modeNotEnabled: string;
};

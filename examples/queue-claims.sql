-- The claims table of the queue-mode template (examples/queue-claim-payout.json, docs/queue-claims.md):
-- one row per Transfer ID. Its primary key is the claim: of any number of executions, on any number
-- of n8n workers, exactly one inserts a Transfer ID, and only that one pays it. The row keeps the
-- payout's values, so that a delivery with other values under the same Transfer ID is refused, never
-- answered "paid". Run it once, in n8n's own Postgres (a schema of its own) or any other Postgres;
-- running it again changes nothing (and adds what a table made by an earlier version of this file lacks).
CREATE SCHEMA IF NOT EXISTS payouts;

CREATE TABLE IF NOT EXISTS payouts.claims (
	transfer_id      text PRIMARY KEY,       -- the Transfer ID the payout is sent with
	event_id         text NOT NULL,          -- the event it came from, as the sender gave it
	amount           numeric(14, 2) NOT NULL,
	recharge_account text,                   -- the account topped up (empty in rows claimed before this column)
	claimed_at       timestamptz NOT NULL DEFAULT now(),
	-- The Payouts node's answer (SUCCESS, PENDING, ALREADY_SUBMITTED, UNKNOWN, ALREADY_EXISTS, or ERROR
	-- where its Transfer ID can never pay), or the dashboard's word an operator writes to settle a
	-- claim in doubt (SUCCESS or PENDING: paid; FAILED, ERROR, REJECTED or NOT_FOUND: did not pay);
	-- empty while in flight. A claim whose outcome moved nothing is deleted (given back).
	status           text,
	answered_at      timestamptz
);

ALTER TABLE payouts.claims ADD COLUMN IF NOT EXISTS recharge_account text;

-- The day's claims, summed under the daily cap at every claim (and the retention's old ones).
CREATE INDEX IF NOT EXISTS claims_claimed_at ON payouts.claims (claimed_at);
-- Claims in doubt, found every 15 minutes by the template's check: only these rows are indexed.
CREATE INDEX IF NOT EXISTS claims_in_doubt ON payouts.claims (claimed_at)
	WHERE status IS NULL OR status IN ('UNKNOWN', 'ALREADY_EXISTS');

-- The claims table of the queue-mode template (examples/queue-claim-payout.json, docs/queue-claims.md):
-- one row per Transfer ID. Its primary key is the claim: of any number of executions, on any number
-- of n8n workers, exactly one inserts a Transfer ID (INSERT ... ON CONFLICT DO NOTHING), and only that
-- one pays it. The row keeps the payout's values, so that a delivery with other values under the same
-- Transfer ID is refused, never answered "paid". Run it once, in n8n's own Postgres (a schema of its
-- own) or any other Postgres; running it again changes nothing (and adds the column a table made by
-- an earlier version of this file lacks).
CREATE SCHEMA IF NOT EXISTS payouts;

CREATE TABLE IF NOT EXISTS payouts.claims (
	transfer_id      text PRIMARY KEY,       -- the Transfer ID the payout is sent with
	event_id         text NOT NULL,          -- the event it came from, as the sender gave it
	amount           numeric(14, 2) NOT NULL,
	recharge_account text,                   -- the account topped up (empty in rows claimed before this column)
	claimed_at       timestamptz NOT NULL DEFAULT now(),
	status           text,                   -- the Payouts node's answer: SUCCESS, PENDING, UNKNOWN, ALREADY_EXISTS; empty while in flight
	answered_at      timestamptz
);

ALTER TABLE payouts.claims ADD COLUMN IF NOT EXISTS recharge_account text;

-- +goose Up
-- Every payment taken at the box office (card terminal or cash), by the reference it was taken
-- under: a reference is recorded once, for one payment (an edit's or a sale's), so a reused or
-- borrowed one is refused at the counter; and a booking's payments taken here are known, so a
-- refund gives them back at the counter, never through the online payment provider.
CREATE TABLE box_office_payments (
	reference_key  TEXT PRIMARY KEY,          -- the reference, trimmed and lower-case
	reference      TEXT NOT NULL,             -- as the terminal printed it (or ours, for cash)
	tender         TEXT NOT NULL,             -- 'terminal' or 'cash'
	amount_cents   BIGINT NOT NULL,
	currency       TEXT NOT NULL,
	cinema_id      TEXT NOT NULL,
	booking_number BIGINT NOT NULL DEFAULT 0, -- 0 until a sale's booking is known
	owner          TEXT NOT NULL,             -- what it pays for: a ledger idempotency key, or sale:<order>
	actor          TEXT NOT NULL,             -- the staff member who took it
	created_at     BIGINT NOT NULL            -- unix milliseconds
);
CREATE INDEX box_office_payments_booking_idx ON box_office_payments (cinema_id, booking_number);

-- The box office's payments recorded before this table, from the ledger.
INSERT INTO box_office_payments (reference_key, reference, tender, amount_cents, currency, cinema_id, booking_number, owner, actor, created_at)
SELECT lower(trim(provider_reference)), provider_reference,
	CASE WHEN card_type = 'Cash' THEN 'cash' ELSE 'terminal' END,
	amount_cents, currency, cinema_id, booking_number, idempotency_key, actor, created_at
FROM ledger_entries
WHERE kind = 'payment' AND actor <> '' AND provider_reference <> ''
ON CONFLICT (reference_key) DO NOTHING;

-- +goose Down
DROP TABLE box_office_payments;

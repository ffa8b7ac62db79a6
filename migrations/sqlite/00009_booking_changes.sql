-- +goose Up
-- What to tell the customer when a ledger entry settles: a JSON notice written at the entry's
-- creation (who, in which language, what the change does) and turned into an outbox message in
-- the same transaction as the step that applies or reverses the entry. Opaque to the ledger.
ALTER TABLE ledger_entries ADD COLUMN notice TEXT NOT NULL DEFAULT '';

-- Booking changes made through this service (edits, swaps): the tickets each one replaced, so a
-- booking page can show them as no longer valid. Written in the same transaction as the
-- customer's message about the change.
CREATE TABLE booking_changes (
	id             TEXT PRIMARY KEY,
	cinema_id      TEXT NOT NULL,
	booking_number BIGINT NOT NULL,
	kind           TEXT NOT NULL,            -- edit | swap
	replaced       TEXT NOT NULL DEFAULT '', -- JSON list of the tickets it replaced
	created_at     BIGINT NOT NULL           -- unix milliseconds
);
CREATE INDEX booking_changes_booking_idx ON booking_changes (cinema_id, booking_number);

-- +goose Down
DROP TABLE booking_changes;
ALTER TABLE ledger_entries DROP COLUMN notice;

-- +goose Up
-- Every view of a booking asks whether this site sold it on a card reader (its sale entries by
-- cinema and booking number): without an index that reads the whole ledger, which only grows.
CREATE INDEX ledger_entries_booking_idx ON ledger_entries (cinema_id, booking_number);

-- +goose Down
DROP INDEX ledger_entries_booking_idx;

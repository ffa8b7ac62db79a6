-- +goose Up
-- by_hand: money taken or given back by hand at the box office (cash, a standalone card terminal
-- whose reference was typed): never through the payment provider. Until now every entry with a
-- tender was such money; a card-reader payment has a tender and goes through the provider.
-- reader_id: the provider's card reader a card-present payment was taken on.
ALTER TABLE ledger_entries ADD COLUMN by_hand INTEGER NOT NULL DEFAULT 0;
ALTER TABLE ledger_entries ADD COLUMN reader_id TEXT NOT NULL DEFAULT '';
UPDATE ledger_entries SET by_hand = 1 WHERE tender <> '';

-- +goose Down
ALTER TABLE ledger_entries DROP COLUMN reader_id;
ALTER TABLE ledger_entries DROP COLUMN by_hand;

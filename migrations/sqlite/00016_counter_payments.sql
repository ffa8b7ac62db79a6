-- +goose Up
-- Payments taken at the box office (card terminal or cash): the staff member who took them and
-- the tender category complete-edit records ('' for the provider's payments: the deployment's
-- default).
ALTER TABLE ledger_entries ADD COLUMN actor TEXT NOT NULL DEFAULT '';
ALTER TABLE ledger_entries ADD COLUMN tender TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE ledger_entries DROP COLUMN tender;
ALTER TABLE ledger_entries DROP COLUMN actor;

-- +goose Up
-- Refunds across several payments: a refund split over a booking's payments is one ledger entry
-- per part, each with its own idempotency key and provider refund. The parts of one refund share
-- refund_group (empty for an entry that stands alone) and are numbered by refund_part from 1,
-- newest payment first; complete-edit is called once for the whole group.
ALTER TABLE ledger_entries ADD COLUMN refund_group TEXT NOT NULL DEFAULT '';
ALTER TABLE ledger_entries ADD COLUMN refund_part INTEGER NOT NULL DEFAULT 0;
CREATE INDEX ledger_entries_group_idx ON ledger_entries (refund_group);

-- +goose Down
DROP INDEX ledger_entries_group_idx;
ALTER TABLE ledger_entries DROP COLUMN refund_part;
ALTER TABLE ledger_entries DROP COLUMN refund_group;

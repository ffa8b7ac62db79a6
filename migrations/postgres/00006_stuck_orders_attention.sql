-- +goose Up
-- Stuck orders are resolved, not forgotten. A redirect payment whose order never completes is
-- checked for up to -order-watch-for (24 h) and then given up: the order is cancelled upstream
-- and the record says when, why, and whether the cancellation was accepted.
ALTER TABLE checkout_payments ADD COLUMN given_up_at BIGINT NOT NULL DEFAULT 0;         -- unix milliseconds; 0: not given up
ALTER TABLE checkout_payments ADD COLUMN give_up_reason TEXT NOT NULL DEFAULT '';
ALTER TABLE checkout_payments ADD COLUMN order_cancelled INTEGER NOT NULL DEFAULT 0;   -- 1: CancelOrder accepted (seats released)

-- Staff's "Needs attention" list (/staff/attention): every action taken on an item (a stuck
-- order, a ledger entry waiting for review or a refund that keeps failing), with who and when.
-- kind: checkout | ledger; ref: the checkout record id or the ledger entry id; action: retry | resolve.
CREATE TABLE attention_actions (
	id             BIGSERIAL PRIMARY KEY,
	kind           TEXT NOT NULL,
	ref            TEXT NOT NULL,
	action         TEXT NOT NULL,
	note           TEXT NOT NULL DEFAULT '',
	staff_username TEXT NOT NULL,
	at             BIGINT NOT NULL -- unix milliseconds
);
CREATE INDEX attention_actions_item_idx ON attention_actions (kind, ref);

-- Items marked resolved (with a note) leave the list: one row per item.
CREATE TABLE attention_resolved (
	kind           TEXT NOT NULL,
	ref            TEXT NOT NULL,
	action_id      BIGINT NOT NULL,
	staff_username TEXT NOT NULL,
	resolved_at    BIGINT NOT NULL, -- unix milliseconds
	PRIMARY KEY (kind, ref)
);

-- +goose Down
DROP TABLE attention_resolved;
DROP TABLE attention_actions;
ALTER TABLE checkout_payments DROP COLUMN order_cancelled;
ALTER TABLE checkout_payments DROP COLUMN give_up_reason;
ALTER TABLE checkout_payments DROP COLUMN given_up_at;

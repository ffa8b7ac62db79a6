-- +goose Up
-- The payment ledger: one row per payment or refund the BFF asks the provider for, written
-- before and after every step so a crash or a failed upstream call loses nothing.
CREATE TABLE ledger_entries (
	id                  TEXT PRIMARY KEY,
	kind                TEXT NOT NULL,            -- payment | refund
	state               TEXT NOT NULL,
	idempotency_key     TEXT NOT NULL UNIQUE,
	amount_cents        BIGINT NOT NULL,
	currency            TEXT NOT NULL,
	cinema_id           TEXT NOT NULL,
	booking_id          TEXT NOT NULL,
	booking_number      BIGINT NOT NULL,
	edit_session_id     TEXT NOT NULL,            -- the edit's userSessionId
	provider_payment_id TEXT NOT NULL DEFAULT '', -- payment taken (payment) or refunded against (refund)
	provider_reference  TEXT NOT NULL DEFAULT '', -- what complete-edit reports
	refund_id           TEXT NOT NULL DEFAULT '', -- provider refund id (refunds; reversal of a payment)
	card_masked         TEXT NOT NULL DEFAULT '',
	card_type           TEXT NOT NULL DEFAULT '',
	hosted_url          TEXT NOT NULL DEFAULT '',
	last_error          TEXT NOT NULL DEFAULT '',
	attempts            BIGINT NOT NULL DEFAULT 0,
	created_at          BIGINT NOT NULL,         -- unix milliseconds
	updated_at          BIGINT NOT NULL
);
CREATE INDEX ledger_entries_state_idx ON ledger_entries (state);
CREATE INDEX ledger_entries_edit_idx ON ledger_entries (edit_session_id);

CREATE TABLE ledger_events (
	id         BIGSERIAL PRIMARY KEY,
	entry_id   TEXT NOT NULL REFERENCES ledger_entries(id),
	from_state TEXT NOT NULL,
	to_state   TEXT NOT NULL,
	note       TEXT NOT NULL DEFAULT '',
	at         BIGINT NOT NULL
);
CREATE INDEX ledger_events_entry_idx ON ledger_events (entry_id);

-- +goose Down
DROP TABLE ledger_events;
DROP TABLE ledger_entries;

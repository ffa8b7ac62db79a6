-- +goose Up
-- The e-mail outbox: a message to send is written in the same transaction as the change that
-- causes it (a ledger step, a booking event), then senders on any replica claim and deliver it
-- once. Payload is the caller's JSON, opaque to the outbox; message_id is the RFC 5322
-- Message-ID, fixed at enqueue so every retry of a message carries the same one.
CREATE TABLE mail_outbox (
	id          TEXT PRIMARY KEY,
	dedupe_key  TEXT NOT NULL UNIQUE,              -- a second enqueue with the same key does nothing
	kind        TEXT NOT NULL,                     -- what the mail is about (booking_confirmed, ...)
	recipient   TEXT NOT NULL,
	lang        TEXT NOT NULL DEFAULT '',
	payload     TEXT NOT NULL DEFAULT '{}',
	state       TEXT NOT NULL CHECK (state IN ('pending', 'sending', 'sent', 'undeliverable')),
	attempts    INTEGER NOT NULL DEFAULT 0,        -- claims so far
	last_error  TEXT NOT NULL DEFAULT '',
	next_at     INTEGER NOT NULL,                  -- unix milliseconds: due from then (pending)
	lease_until INTEGER NOT NULL DEFAULT 0,        -- a claim (sending) older than this was a crash
	claimed_by  TEXT NOT NULL DEFAULT '',          -- replica and claim token of the latest claim
	message_id  TEXT NOT NULL,
	created_at  INTEGER NOT NULL,
	sent_at     INTEGER NOT NULL DEFAULT 0,        -- 0 until sent
	updated_at  INTEGER NOT NULL
);
CREATE INDEX mail_outbox_due_idx ON mail_outbox (state, next_at);
CREATE INDEX mail_outbox_created_idx ON mail_outbox (created_at);

-- +goose Down
DROP TABLE mail_outbox;

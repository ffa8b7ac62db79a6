-- +goose Up
-- The staff audit trail: one row per staff action (look-up, edit, payment, refund, swap,
-- approval, sign-in and sign-out, device enrolment, Needs-attention actions), never changed.
CREATE TABLE audit_log (
	id             BIGSERIAL PRIMARY KEY,
	at             BIGINT NOT NULL,            -- unix milliseconds
	actor          TEXT NOT NULL,              -- staff username
	device         TEXT NOT NULL DEFAULT '',   -- the enrolled device (name), or the device id
	action         TEXT NOT NULL,
	cinema_id      TEXT NOT NULL DEFAULT '',
	booking_number BIGINT NOT NULL DEFAULT 0,
	amount_cents   BIGINT NOT NULL DEFAULT 0,
	currency       TEXT NOT NULL DEFAULT '',
	reason         TEXT NOT NULL DEFAULT '',
	detail         TEXT NOT NULL DEFAULT ''
);
CREATE INDEX audit_log_at_idx ON audit_log (at);
CREATE INDEX audit_log_actor_idx ON audit_log (actor, at);
CREATE INDEX audit_log_booking_idx ON audit_log (booking_number, at);

-- +goose Down
DROP TABLE audit_log;

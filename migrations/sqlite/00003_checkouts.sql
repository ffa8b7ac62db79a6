-- +goose Up
-- Redirect payments of the checkout flow: one row per payment start, written before the
-- browser is sent to the provider. The row id is our unguessable reference in the ReturnUrl;
-- the token the provider puts on the return is compared with expected_token. At most one
-- row per order may be starting or awaiting payment (the partial unique index), so a double
-- click, a refresh or a second tab can never start a second payment.
CREATE TABLE checkout_payments (
	id              TEXT PRIMARY KEY,
	user_session_id TEXT NOT NULL,
	cinema_id       TEXT NOT NULL,
	session_id      TEXT NOT NULL,
	customer_name   TEXT NOT NULL,
	customer_email  TEXT NOT NULL,
	state           TEXT NOT NULL,            -- starting | awaiting | completed | declined | cancelled | start_failed
	amount_cents    INTEGER NOT NULL,
	currency        TEXT NOT NULL,
	redirect_url    TEXT NOT NULL DEFAULT '',
	expected_token  TEXT NOT NULL DEFAULT '', -- OrderWebPaymentData.Token as read after the start
	verified_token  TEXT NOT NULL DEFAULT '', -- the token that came back and matched
	booking_number  INTEGER NOT NULL DEFAULT 0,
	summary         TEXT NOT NULL DEFAULT '', -- JSON snapshot of the order at the start (film, seats, amounts)
	last_error      TEXT NOT NULL DEFAULT '',
	created_at      INTEGER NOT NULL,         -- unix milliseconds
	returned_at     INTEGER NOT NULL DEFAULT 0,
	completed_at    INTEGER NOT NULL DEFAULT 0,
	updated_at      INTEGER NOT NULL
);
CREATE UNIQUE INDEX checkout_payments_active_idx ON checkout_payments(user_session_id) WHERE state IN ('starting', 'awaiting');
CREATE INDEX checkout_payments_order_idx ON checkout_payments(user_session_id);
CREATE INDEX checkout_payments_state_idx ON checkout_payments(state);

-- +goose Down
DROP TABLE checkout_payments;

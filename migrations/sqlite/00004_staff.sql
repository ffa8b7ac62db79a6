-- +goose Up
-- Box-office staff who may look bookings up by number alone.
CREATE TABLE staff_accounts (
	username      TEXT PRIMARY KEY,
	name          TEXT NOT NULL,
	password_hash TEXT NOT NULL,
	created_at    BIGINT NOT NULL -- unix milliseconds
);

-- +goose Down
DROP TABLE staff_accounts;

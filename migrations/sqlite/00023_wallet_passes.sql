-- +goose Up
-- Apple Wallet passes that follow their booking and the devices registered for them
-- through the PassKit web service. The pass's authentication token is derived from a secret the
-- database never sees; only its SHA-256 is kept, so a copy of the database cannot register
-- devices or fetch passes.
CREATE TABLE wallet_passes (
	pass_type_id    TEXT NOT NULL,
	serial_number   TEXT NOT NULL,
	cinema_id       TEXT NOT NULL,
	booking_number  INTEGER NOT NULL,
	auth_token_hash TEXT NOT NULL,              -- hex SHA-256 of the authenticationToken
	update_tag      INTEGER NOT NULL,           -- wallet_pass_clock's value at the last change
	updated_at      INTEGER NOT NULL,           -- unix milliseconds, whole seconds apart (Last-Modified)
	voided          INTEGER NOT NULL DEFAULT 0,
	created_at      INTEGER NOT NULL,
	PRIMARY KEY (pass_type_id, serial_number)
);
-- One pass per booking and pass type: Ensure is idempotent under concurrent calls.
CREATE UNIQUE INDEX wallet_passes_booking_idx ON wallet_passes (cinema_id, booking_number, pass_type_id);

-- A single-row counter: every change takes the next value as its update tag, so the tags a
-- device is given only ever grow, in commit order.
CREATE TABLE wallet_pass_clock (
	id  INTEGER PRIMARY KEY CHECK (id = 1),
	tag INTEGER NOT NULL
);
INSERT INTO wallet_pass_clock (id, tag) VALUES (1, 0);

CREATE TABLE wallet_registrations (
	device_library_id TEXT NOT NULL,
	pass_type_id      TEXT NOT NULL,
	serial_number     TEXT NOT NULL,
	push_token        TEXT NOT NULL,
	created_at        INTEGER NOT NULL,
	PRIMARY KEY (device_library_id, pass_type_id, serial_number),
	FOREIGN KEY (pass_type_id, serial_number) REFERENCES wallet_passes (pass_type_id, serial_number) ON DELETE CASCADE
);
CREATE INDEX wallet_registrations_pass_idx ON wallet_registrations (pass_type_id, serial_number);
CREATE INDEX wallet_registrations_token_idx ON wallet_registrations (push_token);

-- +goose Down
DROP TABLE wallet_registrations;
DROP TABLE wallet_pass_clock;
DROP TABLE wallet_passes;

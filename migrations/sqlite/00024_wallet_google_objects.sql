-- +goose Up
-- The Google Wallet event ticket objects handed out in save links, one per ticket, so that
-- after a booking changes each can be patched to the ticket as it is now, or made inactive
-- when its ticket is gone. Google keeps the objects; this is only which ids were issued.
CREATE TABLE wallet_google_objects (
	object_id      TEXT PRIMARY KEY,             -- issuer id + "." + the ticket's serial
	cinema_id      TEXT NOT NULL,
	booking_number INTEGER NOT NULL,
	ticket_line    INTEGER NOT NULL,               -- the ticket's line in the booking
	active         INTEGER NOT NULL DEFAULT 1,
	created_at     INTEGER NOT NULL              -- unix milliseconds
);
CREATE INDEX wallet_google_objects_booking_idx ON wallet_google_objects (cinema_id, booking_number);

-- +goose Down
DROP TABLE wallet_google_objects;

-- +goose Up
-- Tickets collected (printed) at a kiosk or the box office: one row per collection, so a second
-- collection can say when and where the tickets were printed before. The upstream is told too
-- (MarkBookingCollected); this is our own record of it.
CREATE TABLE ticket_collections (
	id             TEXT PRIMARY KEY,
	cinema_id      TEXT NOT NULL,
	booking_number BIGINT NOT NULL,
	device_id      TEXT NOT NULL DEFAULT '', -- the device that printed them
	device_name    TEXT NOT NULL DEFAULT '', -- its enrolment's name ("Lobby kiosk left")
	actor          TEXT NOT NULL DEFAULT '', -- the signed-in staff member, '' at a kiosk
	collected_at   BIGINT NOT NULL           -- unix milliseconds
);
CREATE INDEX ticket_collections_booking_idx ON ticket_collections (cinema_id, booking_number, collected_at);

-- +goose Down
DROP TABLE ticket_collections;

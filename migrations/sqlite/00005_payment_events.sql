-- +goose Up
-- Payment provider webhook events, one row per event id: a replica records an event before it
-- acts on it, so an event delivered twice (or to two replicas) is acted on once.
CREATE TABLE payment_events (
	event_id     TEXT PRIMARY KEY,
	event_type   TEXT NOT NULL,
	received_at  BIGINT NOT NULL, -- unix milliseconds
	processed_at BIGINT           -- unix milliseconds; NULL while being processed
);

-- +goose Down
DROP TABLE payment_events;

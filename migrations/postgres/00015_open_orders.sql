-- +goose Up
-- Seat hoarding limits: every purchase order a visit opens upstream, with the client it came
-- from, so that all replicas count the open orders of one client address alike. An order counts
-- while ended_at is 0 and expires_at is ahead: a visit that crashed (or was never ended) stops
-- counting when its hold would have run out upstream.
CREATE TABLE open_orders (
	user_session_id TEXT PRIMARY KEY,
	client_key      TEXT NOT NULL,             -- a hash of the client address (c.RealIP())
	seats           INTEGER NOT NULL,
	created_at      BIGINT NOT NULL,           -- unix milliseconds
	expires_at      BIGINT NOT NULL,           -- when the hold runs out if nothing ends it sooner
	ended_at        BIGINT NOT NULL DEFAULT 0, -- 0: still open
	end_reason      TEXT NOT NULL DEFAULT ''   -- completed | cancelled | expired | given_up | replaced | ended
);
CREATE INDEX open_orders_client_idx ON open_orders (client_key, ended_at, expires_at);
CREATE INDEX open_orders_expires_idx ON open_orders (expires_at);

-- One row per client, written first in the transaction that admits an order: two admissions for
-- one client take turns (a row lock in PostgreSQL, the write lock in SQLite), so the count of
-- the second sees the first's order.
CREATE TABLE open_order_clients (
	client_key TEXT PRIMARY KEY,
	touched_at BIGINT NOT NULL -- unix milliseconds
);

-- +goose Down
DROP TABLE open_order_clients;
DROP TABLE open_orders;

-- +goose Up
-- The booking fee per ticket that the ticketing system last charged at each cinema, learned
-- from the orders the service opened. The ticketing API quotes fees only on an order, and the
-- ticket step's total must include them on every replica and after a restart, so the fee is
-- kept here rather than in one process's memory.
CREATE TABLE fee_quotes (
	cinema_id  TEXT PRIMARY KEY,
	fee_cents  BIGINT NOT NULL,  -- per ticket
	currency   TEXT NOT NULL,    -- ISO 4217
	learned_at BIGINT NOT NULL   -- unix milliseconds, when this fee was first seen (it changed)
);

-- +goose Down
DROP TABLE fee_quotes;

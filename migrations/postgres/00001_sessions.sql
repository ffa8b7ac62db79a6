-- +goose Up
-- Server-side visit sessions (scs pgxstore layout).
CREATE TABLE sessions (
	token  TEXT PRIMARY KEY,
	data   BYTEA NOT NULL,
	expiry TIMESTAMPTZ NOT NULL
);
CREATE INDEX sessions_expiry_idx ON sessions (expiry);

-- +goose Down
DROP TABLE sessions;

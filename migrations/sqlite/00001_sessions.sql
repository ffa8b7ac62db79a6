-- +goose Up
-- Server-side visit sessions (scs sqlite3store layout).
CREATE TABLE sessions (
	token  TEXT PRIMARY KEY,
	data   BLOB NOT NULL,
	expiry REAL NOT NULL
);
CREATE INDEX sessions_expiry_idx ON sessions(expiry);

-- +goose Down
DROP TABLE sessions;

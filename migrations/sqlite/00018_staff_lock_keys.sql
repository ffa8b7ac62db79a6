-- +goose Up
-- Lock-outs that cannot be turned against staff. Failed sign-ins count per typed
-- username and client (its IPv4 address or IPv6 /64), so no client locks an account for
-- anybody else; wrong approval PINs count per supervisor, from every client together (the PIN
-- is the secret guessed), apart from the supervisor's sign-in. Each lock of a key lasts twice
-- as long as the one before (strikes), up to a day. staff_lockouts, keyed by username alone,
-- goes, and any lock in it ends.
CREATE TABLE staff_locks (
	lock_key     TEXT PRIMARY KEY,          -- 'signin <username> <client>' or 'pin <username>'
	username     TEXT NOT NULL,             -- as typed (normalized): the accounts page and Unlock
	kind         TEXT NOT NULL CHECK (kind IN ('signin', 'pin')),
	failures     INTEGER NOT NULL DEFAULT 0,
	strikes      INTEGER NOT NULL DEFAULT 0, -- locks so far; forgotten a day after the last ended
	locked_until BIGINT NOT NULL DEFAULT 0,  -- unix milliseconds; 0: never locked
	updated_at   BIGINT NOT NULL             -- unix milliseconds of the last counted attempt
);
CREATE INDEX staff_locks_username_idx ON staff_locks (username);
CREATE INDEX staff_locks_updated_idx ON staff_locks (updated_at);
DROP TABLE staff_lockouts;

-- The number of digits of a supervisor's PIN, written when the PIN is set (its hash cannot
-- tell). 0: set before this was recorded, learnt at the PIN's next approval. New PINs have 6-8
-- digits; a shorter one made earlier still approves, and its owner is asked for a new one.
ALTER TABLE staff_accounts ADD COLUMN pin_length INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE staff_accounts DROP COLUMN pin_length;
DROP TABLE staff_locks;
CREATE TABLE staff_lockouts (
	username     TEXT PRIMARY KEY,
	failures     INTEGER NOT NULL DEFAULT 0,
	locked_until BIGINT NOT NULL DEFAULT 0,
	updated_at   BIGINT NOT NULL
);
CREATE INDEX staff_lockouts_updated_idx ON staff_lockouts (updated_at);

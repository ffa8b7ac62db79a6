-- +goose Up
-- Staff roles and sign-in security. A clerk works the counter; a supervisor may also approve
-- (with a PIN), end sessions and unlock accounts. session_epoch is written into each staff
-- sign-in; raising it ends every sign-in of the account on every replica at its next request.
ALTER TABLE staff_accounts ADD COLUMN role TEXT NOT NULL DEFAULT 'clerk' CHECK (role IN ('clerk', 'supervisor'));
ALTER TABLE staff_accounts ADD COLUMN pin_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE staff_accounts ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0;
ALTER TABLE staff_accounts ADD COLUMN session_epoch BIGINT NOT NULL DEFAULT 0;

-- Failed sign-ins and PIN approvals per typed username (known or not, so a lock-out does not
-- tell which usernames exist): 5 within 15 minutes lock the name for 15 minutes.
CREATE TABLE staff_lockouts (
	username     TEXT PRIMARY KEY,
	failures     INTEGER NOT NULL DEFAULT 0,
	locked_until BIGINT NOT NULL DEFAULT 0, -- unix milliseconds; 0: not locked
	updated_at   BIGINT NOT NULL            -- unix milliseconds of the last counted attempt
);
CREATE INDEX staff_lockouts_updated_idx ON staff_lockouts (updated_at);

-- Rate limits shared by every replica (internal/ratelimit): one row per key, the generic cell
-- rate algorithm's theoretical arrival time in unix milliseconds. A row whose tat has passed is
-- a full allowance and may be deleted.
CREATE TABLE rate_limits (
	bucket TEXT PRIMARY KEY,
	tat    BIGINT NOT NULL
);
CREATE INDEX rate_limits_tat_idx ON rate_limits (tat);

-- +goose Down
DROP TABLE rate_limits;
DROP TABLE staff_lockouts;
ALTER TABLE staff_accounts DROP COLUMN session_epoch;
ALTER TABLE staff_accounts DROP COLUMN disabled;
ALTER TABLE staff_accounts DROP COLUMN pin_hash;
ALTER TABLE staff_accounts DROP COLUMN role;

-- +goose Up
-- Counter and kiosk terminals, enrolled by a supervisor. The device cookie names a row here; the
-- mode is read from the row on each request, so a revoked row (revoked_at > 0) makes the browser
-- a customer device again. device_id is the cookie's device reference the row was made for.
CREATE TABLE device_enrolments (
	id          BIGSERIAL PRIMARY KEY,
	device_id   TEXT NOT NULL,
	name        TEXT NOT NULL,              -- typed by the supervisor, e.g. "Counter 2"
	mode        TEXT NOT NULL,              -- counter | kiosk
	enrolled_by TEXT NOT NULL,              -- staff username
	enrolled_at BIGINT NOT NULL,            -- unix milliseconds
	revoked_at  BIGINT NOT NULL DEFAULT 0,  -- unix milliseconds; 0: live
	revoked_by  TEXT NOT NULL DEFAULT ''
);
CREATE INDEX device_enrolments_device_idx ON device_enrolments (device_id, revoked_at);

-- +goose Down
DROP TABLE device_enrolments;

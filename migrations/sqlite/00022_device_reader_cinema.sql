-- +goose Up
-- A counter or kiosk takes cards on its own card reader (the provider's reader id), and a kiosk
-- stands in one cinema: both are set when a supervisor enrols the device.
ALTER TABLE device_enrolments ADD COLUMN reader_id TEXT NOT NULL DEFAULT '';
ALTER TABLE device_enrolments ADD COLUMN cinema_id TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE device_enrolments DROP COLUMN cinema_id;
ALTER TABLE device_enrolments DROP COLUMN reader_id;

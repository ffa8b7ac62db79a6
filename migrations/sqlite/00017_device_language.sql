-- +goose Up
-- The default language of a counter or kiosk ("de", "en"), chosen by the supervisor who enrols
-- it and editable while it is live: a kiosk greets each new guest in it. '': the site's default.
ALTER TABLE device_enrolments ADD COLUMN language TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE device_enrolments DROP COLUMN language;

-- +goose Up
-- A card reader takes payments for one terminal at a time. Enrolling a terminal with a reader
-- another live enrolment has moves it: that enrolment keeps which reader it lost, to which
-- terminal, when and by whom, so its device can say so at its next payment.
ALTER TABLE device_enrolments ADD COLUMN reader_moved_id TEXT NOT NULL DEFAULT '';
ALTER TABLE device_enrolments ADD COLUMN reader_moved_to TEXT NOT NULL DEFAULT '';
ALTER TABLE device_enrolments ADD COLUMN reader_moved_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE device_enrolments ADD COLUMN reader_moved_by TEXT NOT NULL DEFAULT '';

-- Readers already shared stay with the newest live enrolment; the older ones lose them.
UPDATE device_enrolments SET
	reader_moved_id = reader_id,
	reader_moved_to = (SELECT n.name FROM device_enrolments n
		WHERE n.reader_id = device_enrolments.reader_id AND n.revoked_at = 0 AND n.id > device_enrolments.id
		ORDER BY n.id DESC LIMIT 1),
	reader_moved_at = (SELECT MAX(n.enrolled_at) FROM device_enrolments n
		WHERE n.reader_id = device_enrolments.reader_id AND n.revoked_at = 0 AND n.id > device_enrolments.id),
	reader_moved_by = (SELECT n.enrolled_by FROM device_enrolments n
		WHERE n.reader_id = device_enrolments.reader_id AND n.revoked_at = 0 AND n.id > device_enrolments.id
		ORDER BY n.id DESC LIMIT 1),
	reader_id = ''
WHERE revoked_at = 0 AND reader_id <> '' AND EXISTS (SELECT 1 FROM device_enrolments n
	WHERE n.reader_id = device_enrolments.reader_id AND n.revoked_at = 0 AND n.id > device_enrolments.id);

-- Two supervisors enrolling two terminals with one reader at the same moment cannot both win.
CREATE UNIQUE INDEX device_enrolments_reader_idx ON device_enrolments (reader_id) WHERE revoked_at = 0 AND reader_id <> '';

-- +goose Down
DROP INDEX device_enrolments_reader_idx;
ALTER TABLE device_enrolments DROP COLUMN reader_moved_by;
ALTER TABLE device_enrolments DROP COLUMN reader_moved_at;
ALTER TABLE device_enrolments DROP COLUMN reader_moved_to;
ALTER TABLE device_enrolments DROP COLUMN reader_moved_id;

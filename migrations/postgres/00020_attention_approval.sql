-- +goose Up
-- Marking an item that concerns money resolved needs a supervisor: the one who did it, or the
-- one who approved a clerk's resolve with their PIN.
ALTER TABLE attention_actions ADD COLUMN approved_by TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE attention_actions DROP COLUMN approved_by;

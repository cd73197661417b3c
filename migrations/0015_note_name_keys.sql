-- A note's name keys, made by the Worker when it syncs the note (worker/store/notes.py,
-- shared/knowledge/names.py): the stems of its title, file name and each alias, as the
-- standing's identity check compares them with a query. Recall reads them with the note
-- instead of sanitising every recalled note's names again. NULL for a note synced before
-- this migration until it is synced again: its keys are then made from its fields.

ALTER TABLE vault_notes ADD COLUMN name_keys TEXT;

-- Knowledge model (docs/design.md): a note's role, a known status, and typed relations.
--
-- Role: `vault_notes.role` holds a note's frontmatter `role:` (canonical | evidence) as
-- the hub sends it (hub schema 3); without one, the note's type decides when it is read
-- (shared/knowledge.py holds the rule in one place, so no type list is written here).
--
-- Status: only draft | stable | deprecated | stale are statuses; the Worker stores
-- anything else as NULL from now on, and the rows written before are normalised here.
-- (`status` is no FTS column: the vault_notes_au trigger does not fire for it.)
--
-- Relations: the hub sends each note's relations with it, as JSON in
-- `vault_notes.relations` ([{"target": path, "type", "scope", "linked"}]). Triggers
-- materialise them into `note_relations`, an adjacency table keyed by the declaring note
-- (its rid: vault and path) and the target's (vault, path), the way 0005 materialises
-- sections: the sync batch needs no statement per relation (D1 allows 1,000 queries per
-- invocation) and an edge never outlives the note that declares it. A target is resolved
-- when read, by joining (vid, target_path) to vault_notes: an edge to a page that does not
-- exist (yet, or any more: deleted, renamed) is simply not followed, and comes back by
-- itself when a note appears at that path. Notes synced before this migration have no
-- relations until the hub sends them again (a hub of parser version 3 re-sends every
-- note once).

ALTER TABLE vault_notes ADD COLUMN role TEXT CHECK (role IN ('canonical', 'evidence'));
ALTER TABLE vault_notes ADD COLUMN relations TEXT NOT NULL DEFAULT '[]';

UPDATE vault_notes
SET status = CASE WHEN lower(trim(status)) IN ('draft', 'stable', 'deprecated', 'stale')
                  THEN lower(trim(status)) END
WHERE status IS NOT NULL;

CREATE TABLE note_relations (
    note_rid     INTEGER NOT NULL REFERENCES vault_notes (rid) ON DELETE CASCADE,
    ord          INTEGER NOT NULL,
    vid          INTEGER NOT NULL,  -- the declaring note's vault: targets are in the same one
    target_path  TEXT NOT NULL,
    type         TEXT NOT NULL,  -- shared/relations.py; an unknown type is kept, inert
    scope        TEXT,  -- applies_under only
    linked       INTEGER NOT NULL,  -- 1 when the body links the target: only then effective
    PRIMARY KEY (note_rid, ord)
);

-- "Which notes point at this one": recall follows conflict edges either direction.
CREATE INDEX note_relations_by_target ON note_relations (vid, target_path);

CREATE TRIGGER vault_notes_ai_relations AFTER INSERT ON vault_notes BEGIN
    INSERT INTO note_relations (note_rid, ord, vid, target_path, type, scope, linked)
    SELECT new.rid, j.key, new.vid, json_extract(j.value, '$.target'),
           json_extract(j.value, '$.type'), json_extract(j.value, '$.scope'),
           coalesce(json_extract(j.value, '$.linked'), 0)
    FROM json_each(new.relations) AS j;
END;

CREATE TRIGGER vault_notes_au_relations AFTER UPDATE OF relations ON vault_notes
WHEN old.relations IS NOT new.relations
BEGIN
    DELETE FROM note_relations WHERE note_rid = new.rid;
    INSERT INTO note_relations (note_rid, ord, vid, target_path, type, scope, linked)
    SELECT new.rid, j.key, new.vid, json_extract(j.value, '$.target'),
           json_extract(j.value, '$.type'), json_extract(j.value, '$.scope'),
           coalesce(json_extract(j.value, '$.linked'), 0)
    FROM json_each(new.relations) AS j;
END;

CREATE TRIGGER vault_notes_ad_relations AFTER DELETE ON vault_notes BEGIN
    DELETE FROM note_relations WHERE note_rid = old.rid;
END;

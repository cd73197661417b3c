-- Sections: notes are searched, embedded and linked by heading-level section.
--
-- A note carries its sections as spans of its body (`vault_notes.sections`, JSON made by
-- the hub's Markdown parser: [{"s": start, "e": end, "h": heading, "p": "A › B",
-- "x": digest}], offsets in characters). Triggers materialise them into `note_sections`
-- whenever a note's text or sections change, so the sync batch needs no extra statement
-- per section (D1 allows 1,000 queries per invocation) and a section can never outlive or
-- predate its note. A note without spans ('[]', every note before this migration, or a
-- hub that sends none) is one section: its whole body.
--
-- Each section row repeats its note's title, file name, aliases, tags, folder and
-- properties, so one FTS row holds everything that can match and a title match still
-- ranks its note first. vault_notes_fts is dropped: the sections index covers it, and
-- corpus_stats' 'notes' row now counts sections, the documents of that index.

ALTER TABLE vault_notes ADD COLUMN sections TEXT NOT NULL DEFAULT '[]';

CREATE TABLE note_sections (
    rid           INTEGER PRIMARY KEY,
    note_rid      INTEGER NOT NULL REFERENCES vault_notes (rid) ON DELETE CASCADE,
    ord           INTEGER NOT NULL,
    heading       TEXT NOT NULL DEFAULT '',
    heading_path  TEXT NOT NULL DEFAULT '',
    -- 'n:<vid>:<path>#<digest of the section's text>': a section whose text is unchanged
    -- keeps its vector (worker/semantic/units.py).
    unit_id       TEXT NOT NULL,
    title         TEXT NOT NULL,
    name          TEXT NOT NULL,
    aliases       TEXT NOT NULL DEFAULT '',
    tags          TEXT NOT NULL DEFAULT '',
    folder        TEXT NOT NULL DEFAULT '',
    properties    TEXT NOT NULL DEFAULT '',
    body          TEXT NOT NULL,
    UNIQUE (note_rid, ord)
);

CREATE INDEX note_sections_by_unit ON note_sections (unit_id);

CREATE VIRTUAL TABLE note_sections_fts USING fts5 (
    title,
    name,
    aliases,
    tags,
    folder,
    properties,
    heading,
    body,
    content = 'note_sections',
    content_rowid = 'rid',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE VIRTUAL TABLE note_sections_vocab USING fts5vocab (note_sections_fts, 'row');

CREATE TRIGGER note_sections_ai AFTER INSERT ON note_sections BEGIN
    INSERT INTO note_sections_fts (rowid, title, name, aliases, tags, folder, properties,
                                   heading, body)
    VALUES (new.rid, new.title, new.name, new.aliases, new.tags, new.folder,
            new.properties, new.heading_path, new.body);
    UPDATE corpus_stats SET docs = docs + 1 WHERE corpus = 'notes';
END;

CREATE TRIGGER note_sections_ad AFTER DELETE ON note_sections BEGIN
    INSERT INTO note_sections_fts (note_sections_fts, rowid, title, name, aliases, tags,
                                   folder, properties, heading, body)
    VALUES ('delete', old.rid, old.title, old.name, old.aliases, old.tags, old.folder,
            old.properties, old.heading_path, old.body);
    UPDATE corpus_stats SET docs = docs - 1 WHERE corpus = 'notes';
END;

UPDATE corpus_stats SET docs = 0 WHERE corpus = 'notes';

DROP TRIGGER vault_notes_ai;
DROP TRIGGER vault_notes_ad;
DROP TRIGGER vault_notes_au;
DROP TABLE vault_notes_vocab;
DROP TABLE vault_notes_fts;

-- The vault counters of 0002 (1099511627776 = 2^40), and the sections.
CREATE TRIGGER vault_notes_ai AFTER INSERT ON vault_notes BEGIN
    UPDATE vaults SET notes = notes + 1,
                      checksum = (checksum + coalesce(new.digest, 0)) % 1099511627776
    WHERE vid = new.vid;
    INSERT INTO note_sections (note_rid, ord, heading, heading_path, unit_id, title, name,
                               aliases, tags, folder, properties, body)
    SELECT new.rid, j.key, coalesce(json_extract(j.value, '$.h'), ''),
           coalesce(json_extract(j.value, '$.p'), ''),
           'n:' || new.vid || ':' || new.path || '#'
               || coalesce(json_extract(j.value, '$.x'), new.content_hash || '.' || j.key),
           new.title, new.name, new.aliases, new.tags, new.folder, new.properties,
           substr(new.body, json_extract(j.value, '$.s') + 1,
                  json_extract(j.value, '$.e') - json_extract(j.value, '$.s'))
    FROM json_each(CASE WHEN new.sections = '[]'
                        THEN json_array(json_object('s', 0, 'e', length(new.body)))
                        ELSE new.sections END) AS j;
END;

CREATE TRIGGER vault_notes_ad AFTER DELETE ON vault_notes BEGIN
    UPDATE vaults SET notes = notes - 1,
                      checksum = (checksum + 1099511627776 - coalesce(old.digest, 0))
                                 % 1099511627776
    WHERE vid = old.vid;
    DELETE FROM note_sections WHERE note_rid = old.rid;
END;

-- A re-sent note whose text and sections are the same (a new seq or mtime) keeps its
-- sections, their FTS entries and their vectors.
CREATE TRIGGER vault_notes_au AFTER UPDATE ON vault_notes
WHEN old.title IS NOT new.title OR old.name IS NOT new.name OR old.aliases IS NOT new.aliases
  OR old.tags IS NOT new.tags OR old.folder IS NOT new.folder
  OR old.properties IS NOT new.properties OR old.body IS NOT new.body
  OR old.sections IS NOT new.sections
BEGIN
    DELETE FROM note_sections WHERE note_rid = new.rid;
    INSERT INTO note_sections (note_rid, ord, heading, heading_path, unit_id, title, name,
                               aliases, tags, folder, properties, body)
    SELECT new.rid, j.key, coalesce(json_extract(j.value, '$.h'), ''),
           coalesce(json_extract(j.value, '$.p'), ''),
           'n:' || new.vid || ':' || new.path || '#'
               || coalesce(json_extract(j.value, '$.x'), new.content_hash || '.' || j.key),
           new.title, new.name, new.aliases, new.tags, new.folder, new.properties,
           substr(new.body, json_extract(j.value, '$.s') + 1,
                  json_extract(j.value, '$.e') - json_extract(j.value, '$.s'))
    FROM json_each(CASE WHEN new.sections = '[]'
                        THEN json_array(json_object('s', 0, 'e', length(new.body)))
                        ELSE new.sections END) AS j;
END;

-- Every note so far is one section: its whole body.
INSERT INTO note_sections (note_rid, ord, heading, heading_path, unit_id, title, name,
                           aliases, tags, folder, properties, body)
SELECT rid, 0, '', '', 'n:' || vid || ':' || path || '#' || content_hash || '.0', title,
       name, aliases, tags, folder, properties, body
FROM vault_notes;

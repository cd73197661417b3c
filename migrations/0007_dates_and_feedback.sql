-- Time-aware recall and the owner's feedback on sources.
--
-- Note dates. A note is dated by every date it states: a date in its file name (daily
-- notes), frontmatter `date`, `created`, `updated`, `modified`; a note that states none is
-- dated by its file time. `vault_notes.dates` holds them as the Worker derived them at sync
-- (shared/note_dates.py), a JSON array of {"d": day} and {"t": ms}:
--   d  a day of the owner's calendar (days since 1970-01-01) for a date without a time of
--      day — "2026-10-02" is that day wherever the owner lives;
--   t  a UTC instant in milliseconds for a date with a time zone (and file times).
-- Triggers materialise them into `note_dates`, indexed both ways, so a query's span of
-- days (shared/owner_time.TimeWindow) filters notes before FTS5's LIMIT. A note's rows go
-- with it (ON DELETE CASCADE).

ALTER TABLE vault_notes ADD COLUMN dates TEXT NOT NULL DEFAULT '[]';

CREATE TABLE note_dates (
    note_rid  INTEGER NOT NULL REFERENCES vault_notes (rid) ON DELETE CASCADE,
    day       INTEGER,
    at        INTEGER,
    CHECK ((day IS NULL) != (at IS NULL))
);

CREATE INDEX note_dates_by_note ON note_dates (note_rid);
CREATE INDEX note_dates_by_day ON note_dates (day, note_rid) WHERE day IS NOT NULL;
CREATE INDEX note_dates_by_time ON note_dates (at, note_rid) WHERE at IS NOT NULL;

-- Every note so far is dated by its note_date (the hub's date in the file name at noon
-- UTC, else `updated`/`date`, else the file time); a hub of parser version 3 sends every
-- note again once, with the dates it states.
UPDATE vault_notes SET dates = json_array(json_object('t', note_date));

INSERT INTO note_dates (note_rid, at) SELECT rid, note_date FROM vault_notes;

CREATE TRIGGER note_dates_ai AFTER INSERT ON vault_notes BEGIN
    INSERT INTO note_dates (note_rid, day, at)
    SELECT new.rid, json_extract(j.value, '$.d'), json_extract(j.value, '$.t')
    FROM json_each(new.dates) AS j;
END;

CREATE TRIGGER note_dates_au AFTER UPDATE OF dates ON vault_notes
WHEN old.dates IS NOT new.dates
BEGIN
    DELETE FROM note_dates WHERE note_rid = new.rid;
    INSERT INTO note_dates (note_rid, day, at)
    SELECT new.rid, json_extract(j.value, '$.d'), json_extract(j.value, '$.t')
    FROM json_each(new.dates) AS j;
END;

-- Messages are dated by when they were written: conversation units by their first
-- message's time.
CREATE INDEX conversation_units_by_time ON conversation_units (created_at);

-- Feedback: the owner's 👍/👎 on source [n] of one of Mallory's answers. The query is kept
-- only as a hash of its normalised form (shared/feedback.py), never as text. The judged
-- document is the note or message the source is, by row: when it is deleted (a sync
-- deletes the note, the owner forgets the message) its feedback goes with it, so nothing
-- can ever boost a deleted document. Forgetting the answer forgets its judgments too.
CREATE TABLE recall_feedback (
    rid              INTEGER PRIMARY KEY,
    message_rid      INTEGER NOT NULL REFERENCES messages (rid) ON DELETE CASCADE,
    n                INTEGER NOT NULL CHECK (n >= 1),
    query_hash       TEXT NOT NULL,
    judgment         TEXT NOT NULL CHECK (judgment IN ('relevant', 'irrelevant')),
    note_rid         INTEGER REFERENCES vault_notes (rid) ON DELETE CASCADE,
    doc_message_rid  INTEGER REFERENCES messages (rid) ON DELETE CASCADE,
    created_at       INTEGER NOT NULL,
    CHECK ((note_rid IS NULL) != (doc_message_rid IS NULL)),
    UNIQUE (message_rid, n)
);

CREATE INDEX recall_feedback_by_note ON recall_feedback (note_rid) WHERE note_rid IS NOT NULL;
CREATE INDEX recall_feedback_by_message ON recall_feedback (doc_message_rid)
    WHERE doc_message_rid IS NOT NULL;
CREATE INDEX recall_feedback_by_query ON recall_feedback (query_hash, judgment);

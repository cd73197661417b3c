-- Mallory Recall, 0002: several vaults, sync ordering by sequence, drift checks, withdrawal.
--
-- Notes were keyed by path alone; two vaults holding `Home/Plants.md` overwrote each
-- other. From here on a note is keyed by (vault, path), where the vault is a row of
-- `vaults` whose `uuid` the hub keeps in the vault folder itself (`.mallory/vault.json`).
--
-- Existing data is kept: every vault name found in vault_notes becomes a *legacy* vault
-- (uuid NULL) that the first hub sync carrying an id and the same name adopts
-- (worker/store/vaults.py). vault_notes is rebuilt (SQLite cannot drop its UNIQUE (path))
-- with every row's `rid`, so the external-content FTS index, whose rowids are those rids,
-- stays valid without a rebuild; its triggers are recreated.
--
-- Ordering: an upsert or delete carries the sync sequence (`seq`) of the hub run that
-- sent it, handed out by the Worker per vault (vaults.seq). A write applies when its seq
-- is at least the seq stored for that path (note row or tombstone), so a later run always
-- wins and a replayed older batch never does, whatever the files' mtimes. Tombstones of
-- 0001 ordered by mtime and named no vault; batches without a vault id and seq are refused
-- from now on, so nothing they guarded against can arrive: they are dropped.

-- D1 enforces foreign keys in every transaction; its documented way to rebuild tables in a
-- migration is to defer the checks to the commit, where the rebuilt tables are complete.
PRAGMA defer_foreign_keys = on;

-- A random id of this database, created once: a hub that finds another id than the one it
-- recorded is talking to another (or a reset) Worker and reconciles.
CREATE TABLE worker_identity (
    singleton   INTEGER PRIMARY KEY CHECK (singleton = 1),
    id          TEXT NOT NULL,
    created_at  INTEGER NOT NULL
);

INSERT INTO worker_identity (singleton, id, created_at)
VALUES (1, lower(hex(randomblob(16))), CAST(strftime('%s', 'now') AS INTEGER) * 1000);

CREATE TABLE vaults (
    vid              INTEGER PRIMARY KEY,
    -- The hub's id of the vault (a UUID); NULL for a legacy vault not adopted yet.
    uuid             TEXT UNIQUE,
    -- What links and /status call it (`mallory-hub --vault-name`); not unique.
    name             TEXT NOT NULL,
    created_at       INTEGER NOT NULL,
    -- The last sync sequence handed out (POST /vault/heartbeat).
    seq              INTEGER NOT NULL DEFAULT 0,
    -- Kept by the vault_notes triggers: how many notes, and the sum modulo 2^40 of each
    -- note's digest (shared/vault_digest.py), an order-independent checksum of
    -- (path, content hash) the hub compares with its own state on every run.
    notes            INTEGER NOT NULL DEFAULT 0,
    checksum         INTEGER NOT NULL DEFAULT 0,
    last_sync_at     INTEGER,  -- the last batch applied
    last_contact_at  INTEGER,  -- the last hub contact, no-op runs included
    rejected         INTEGER NOT NULL DEFAULT 0  -- pages the hub could not send, last run
);

CREATE INDEX vaults_by_name ON vaults (name);

INSERT INTO vaults (uuid, name, created_at, last_sync_at, last_contact_at)
SELECT NULL, vault, min(synced_at), max(synced_at), max(synced_at)
FROM vault_notes GROUP BY vault ORDER BY vault;

DROP TRIGGER vault_notes_ai;
DROP TRIGGER vault_notes_ad;
DROP TRIGGER vault_notes_au;

CREATE TABLE vault_notes_0002 (
    rid           INTEGER PRIMARY KEY,
    vid           INTEGER NOT NULL REFERENCES vaults (vid),
    path          TEXT NOT NULL,
    title         TEXT NOT NULL,
    name          TEXT NOT NULL,
    aliases       TEXT NOT NULL DEFAULT '',
    tags          TEXT NOT NULL DEFAULT '',
    folder        TEXT NOT NULL DEFAULT '',
    properties    TEXT NOT NULL DEFAULT '',
    body          TEXT NOT NULL,
    note_type     TEXT,
    status        TEXT,
    mtime         INTEGER NOT NULL,
    note_date     INTEGER NOT NULL,
    content_hash  TEXT NOT NULL,
    synced_at     INTEGER NOT NULL,
    -- The sync sequence of the run that wrote this version (0: written before 0002).
    seq           INTEGER NOT NULL DEFAULT 0,
    -- shared/vault_digest.note_digest(path, content_hash); NULL until the Worker computes
    -- it for a row written before 0002 (SQLite has no SHA-256).
    digest        INTEGER,
    UNIQUE (vid, path)
);

INSERT INTO vault_notes_0002 (rid, vid, path, title, name, aliases, tags, folder, properties,
                              body, note_type, status, mtime, note_date, content_hash,
                              synced_at)
SELECT n.rid, v.vid, n.path, n.title, n.name, n.aliases, n.tags, n.folder, n.properties,
       n.body, n.note_type, n.status, n.mtime, n.note_date, n.content_hash, n.synced_at
FROM vault_notes AS n JOIN vaults AS v ON v.name = n.vault;

DROP TABLE vault_notes;

ALTER TABLE vault_notes_0002 RENAME TO vault_notes;

CREATE INDEX vault_notes_by_hash ON vault_notes (vid, content_hash);
CREATE INDEX vault_notes_digest_missing ON vault_notes (vid) WHERE digest IS NULL;

UPDATE vaults SET notes = (SELECT count(*) FROM vault_notes WHERE vault_notes.vid = vaults.vid);

-- FTS and counters. The FTS update only runs when an indexed column changed (a re-sent
-- note with a new seq or mtime keeps its index entries). 1099511627776 = 2^40.
CREATE TRIGGER vault_notes_ai AFTER INSERT ON vault_notes BEGIN
    INSERT INTO vault_notes_fts (rowid, title, name, aliases, tags, folder, properties, body)
    VALUES (new.rid, new.title, new.name, new.aliases, new.tags, new.folder, new.properties,
            new.body);
    UPDATE corpus_stats SET docs = docs + 1 WHERE corpus = 'notes';
    UPDATE vaults SET notes = notes + 1,
                      checksum = (checksum + coalesce(new.digest, 0)) % 1099511627776
    WHERE vid = new.vid;
END;

CREATE TRIGGER vault_notes_ad AFTER DELETE ON vault_notes BEGIN
    INSERT INTO vault_notes_fts (vault_notes_fts, rowid, title, name, aliases, tags, folder, properties, body)
    VALUES ('delete', old.rid, old.title, old.name, old.aliases, old.tags, old.folder,
            old.properties, old.body);
    UPDATE corpus_stats SET docs = docs - 1 WHERE corpus = 'notes';
    UPDATE vaults SET notes = notes - 1,
                      checksum = (checksum + 1099511627776 - coalesce(old.digest, 0))
                                 % 1099511627776
    WHERE vid = old.vid;
END;

CREATE TRIGGER vault_notes_au AFTER UPDATE ON vault_notes
WHEN old.title IS NOT new.title OR old.name IS NOT new.name OR old.aliases IS NOT new.aliases
  OR old.tags IS NOT new.tags OR old.folder IS NOT new.folder
  OR old.properties IS NOT new.properties OR old.body IS NOT new.body
BEGIN
    INSERT INTO vault_notes_fts (vault_notes_fts, rowid, title, name, aliases, tags, folder, properties, body)
    VALUES ('delete', old.rid, old.title, old.name, old.aliases, old.tags, old.folder,
            old.properties, old.body);
    INSERT INTO vault_notes_fts (rowid, title, name, aliases, tags, folder, properties, body)
    VALUES (new.rid, new.title, new.name, new.aliases, new.tags, new.folder, new.properties,
            new.body);
END;

CREATE TRIGGER vault_notes_au_digest AFTER UPDATE OF digest ON vault_notes
WHEN old.digest IS NOT new.digest
BEGIN
    UPDATE vaults SET checksum = (checksum + 1099511627776 - coalesce(old.digest, 0)
                                  + coalesce(new.digest, 0)) % 1099511627776
    WHERE vid = new.vid;
END;

DROP TABLE vault_tombstones;

-- A deleted path remembers the sequence of the run that deleted it: an upsert from an
-- earlier run (a delayed retry) cannot resurrect it; any later run's upsert can.
CREATE TABLE vault_tombstones (
    vid         INTEGER NOT NULL REFERENCES vaults (vid),
    path        TEXT NOT NULL,
    seq         INTEGER NOT NULL,
    deleted_at  INTEGER NOT NULL,
    PRIMARY KEY (vid, path)
);

ALTER TABLE vault_sync_batches ADD COLUMN vid INTEGER REFERENCES vaults (vid);

-- Withdrawal: an assistant answer records the notes it cited (with the excerpt it was
-- shown). Deleting a cited note, or editing it so that the excerpt no longer appears,
-- marks the answer withdrawn in the same D1 batch: it stays in the history and is never
-- recalled again.
ALTER TABLE messages ADD COLUMN withdrawn_at INTEGER;

CREATE INDEX messages_withdrawn ON messages (rid) WHERE withdrawn_at IS NOT NULL;

CREATE TABLE message_citations (
    message_rid   INTEGER NOT NULL REFERENCES messages (rid) ON DELETE CASCADE,
    vid           INTEGER NOT NULL REFERENCES vaults (vid),
    path          TEXT NOT NULL,
    content_hash  TEXT NOT NULL,  -- the cited version
    excerpt       TEXT NOT NULL,  -- what the answer was shown (Source.snippet)
    PRIMARY KEY (message_rid, vid, path)
);

CREATE INDEX message_citations_by_note ON message_citations (vid, path);

-- Answers stored before 0002 cited notes by path (unique before 0002) in their sources.
INSERT INTO message_citations (message_rid, vid, path, content_hash, excerpt)
SELECT m.rid, n.vid, n.path, n.content_hash,
       coalesce(min(json_extract(s.value, '$.snippet')), '')
FROM messages AS m,
     json_each(CASE WHEN json_valid(m.sources) THEN m.sources ELSE '[]' END) AS s
JOIN vault_notes AS n ON n.path = json_extract(s.value, '$.id')
WHERE m.role = 'assistant' AND json_extract(s.value, '$.kind') = 'note'
GROUP BY m.rid, n.vid, n.path;

-- ... and those citing a note that is already gone are withdrawn now.
UPDATE messages SET withdrawn_at = CAST(strftime('%s', 'now') AS INTEGER) * 1000
WHERE role = 'assistant' AND EXISTS (
    SELECT 1
    FROM json_each(CASE WHEN json_valid(messages.sources) THEN messages.sources
                        ELSE '[]' END) AS s
    WHERE json_extract(s.value, '$.kind') = 'note'
      AND NOT EXISTS (SELECT 1 FROM vault_notes AS n
                      WHERE n.path = json_extract(s.value, '$.id')));

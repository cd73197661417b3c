-- Mallory Recall, initial schema.
--
-- Timestamps are INTEGER milliseconds since the Unix epoch (UTC): D1 integers are exact up
-- to 2^53 and Pyodide turns whole REALs into ints, so integers round-trip on every runtime.
--
-- Every table that feeds an FTS index has an INTEGER PRIMARY KEY (`rid`) used as the FTS
-- rowid: an implicit rowid can be renumbered by VACUUM, which would silently break the
-- mapping between an external-content FTS table and its content table.
--
-- Tokenizer: porter over unicode61 with remove_diacritics 2. Porter folds English
-- inflections ("enabling" ~ "enable", "notes" ~ "note"), which chat text needs because
-- people rarely type a note's exact word forms; unicode61 splits on every non-letter,
-- non-digit code point, so identifiers such as `snake_case` or `pg:pull` are indexed as
-- adjacent tokens and the query side matches them as phrases; remove_diacritics 2 makes
-- "café" and "cafe" the same term (2 also handles combining marks that 1 misses).

CREATE TABLE conversations (
    id          TEXT PRIMARY KEY,
    title       TEXT NOT NULL DEFAULT '',
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);

CREATE INDEX conversations_by_update ON conversations (updated_at DESC, id);

CREATE TABLE messages (
    rid              INTEGER PRIMARY KEY,
    id               TEXT NOT NULL UNIQUE,
    conversation_id  TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    seq              INTEGER NOT NULL,
    role             TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
    content          TEXT NOT NULL,
    sources          TEXT NOT NULL DEFAULT '[]',
    -- Raw description of where the message came from (client, channel...), kept verbatim
    -- for later classification. Never interpreted by recall.
    context          TEXT,
    created_at       INTEGER NOT NULL,
    UNIQUE (conversation_id, seq)
);

CREATE INDEX messages_by_created ON messages (created_at);

CREATE VIRTUAL TABLE messages_fts USING fts5 (
    content,
    content = 'messages',
    content_rowid = 'rid',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE VIRTUAL TABLE messages_vocab USING fts5vocab (messages_fts, 'row');

CREATE TABLE vault_notes (
    rid           INTEGER PRIMARY KEY,
    path          TEXT NOT NULL UNIQUE,
    vault         TEXT NOT NULL,
    title         TEXT NOT NULL,
    -- The file name without folder and extension: a second, always-present title.
    name          TEXT NOT NULL,
    aliases       TEXT NOT NULL DEFAULT '',
    tags          TEXT NOT NULL DEFAULT '',
    folder        TEXT NOT NULL DEFAULT '',
    -- Other frontmatter properties as "key: value" lines (author, description, project...).
    properties    TEXT NOT NULL DEFAULT '',
    body          TEXT NOT NULL,
    note_type     TEXT,
    status        TEXT,
    mtime         INTEGER NOT NULL,
    note_date     INTEGER NOT NULL,
    content_hash  TEXT NOT NULL,
    synced_at     INTEGER NOT NULL
);

CREATE VIRTUAL TABLE vault_notes_fts USING fts5 (
    title,
    name,
    aliases,
    tags,
    folder,
    properties,
    body,
    content = 'vault_notes',
    content_rowid = 'rid',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE VIRTUAL TABLE vault_notes_vocab USING fts5vocab (vault_notes_fts, 'row');

-- Document counts per corpus, kept by the triggers below, so ranking can compute the same
-- IDF as FTS5's bm25() without a COUNT(*) scan on every query.
CREATE TABLE corpus_stats (
    corpus  TEXT PRIMARY KEY CHECK (corpus IN ('messages', 'notes')),
    docs    INTEGER NOT NULL DEFAULT 0
);

INSERT INTO corpus_stats (corpus, docs) VALUES ('messages', 0), ('notes', 0);

-- FTS sync triggers, named <table>_ai/_ad/_au as sqlite-utils does. Upserts must use
-- INSERT ... ON CONFLICT DO UPDATE (which fires _au); INSERT OR REPLACE would skip _ad.
CREATE TRIGGER messages_ai AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts (rowid, content) VALUES (new.rid, new.content);
    UPDATE corpus_stats SET docs = docs + 1 WHERE corpus = 'messages';
END;

CREATE TRIGGER messages_ad AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', old.rid, old.content);
    UPDATE corpus_stats SET docs = docs - 1 WHERE corpus = 'messages';
END;

CREATE TRIGGER messages_au AFTER UPDATE OF content ON messages BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', old.rid, old.content);
    INSERT INTO messages_fts (rowid, content) VALUES (new.rid, new.content);
END;

CREATE TRIGGER vault_notes_ai AFTER INSERT ON vault_notes BEGIN
    INSERT INTO vault_notes_fts (rowid, title, name, aliases, tags, folder, properties, body)
    VALUES (new.rid, new.title, new.name, new.aliases, new.tags, new.folder, new.properties,
            new.body);
    UPDATE corpus_stats SET docs = docs + 1 WHERE corpus = 'notes';
END;

CREATE TRIGGER vault_notes_ad AFTER DELETE ON vault_notes BEGIN
    INSERT INTO vault_notes_fts (vault_notes_fts, rowid, title, name, aliases, tags, folder, properties, body)
    VALUES ('delete', old.rid, old.title, old.name, old.aliases, old.tags, old.folder,
            old.properties, old.body);
    UPDATE corpus_stats SET docs = docs - 1 WHERE corpus = 'notes';
END;

CREATE TRIGGER vault_notes_au AFTER UPDATE ON vault_notes BEGIN
    INSERT INTO vault_notes_fts (vault_notes_fts, rowid, title, name, aliases, tags, folder, properties, body)
    VALUES ('delete', old.rid, old.title, old.name, old.aliases, old.tags, old.folder,
            old.properties, old.body);
    INSERT INTO vault_notes_fts (rowid, title, name, aliases, tags, folder, properties, body)
    VALUES (new.rid, new.title, new.name, new.aliases, new.tags, new.folder, new.properties,
            new.body);
END;

-- A deleted path remembers the time of its deletion, so that a stale upsert (a retried
-- old batch) can never resurrect it.
CREATE TABLE vault_tombstones (
    path        TEXT PRIMARY KEY,
    deleted_at  INTEGER NOT NULL
);

-- Batch ids already applied: replaying a batch is a no-op.
CREATE TABLE vault_sync_batches (
    batch_id    TEXT PRIMARY KEY,
    applied_at  INTEGER NOT NULL,
    upserts     INTEGER NOT NULL,
    deletes     INTEGER NOT NULL
);

CREATE INDEX vault_sync_batches_by_time ON vault_sync_batches (applied_at);

-- Saved memories and forgotten ids (README, "Saved memories").
--
-- A saved memory is a short fact the owner approved, stored as an owner message of the
-- one conversation 'saved-memories' (worker/store/memories.py): it is indexed, embedded,
-- recalled, deep-linked and forgotten as any message is, and ranks as a stable canonical
-- note (worker/corpora/conversations.py). This table says which messages are saved
-- memories and which message each was saved from. Forgetting the memory's message deletes its row;
-- forgetting the source keeps the memory.
CREATE TABLE saved_memories (
    message_id         TEXT PRIMARY KEY REFERENCES messages (id) ON DELETE CASCADE,
    source_message_id  TEXT REFERENCES messages (id) ON DELETE SET NULL,
    created_at         INTEGER NOT NULL
);

CREATE INDEX saved_memories_by_source ON saved_memories (source_message_id);

-- Every message id forgotten (DELETE /api/messages, /api/conversations, a saved memory
-- deleted or edited): an import of an export or file holding it again skips it, so a
-- forget stays a forget (worker/store/archive.py).
CREATE TABLE forgotten_messages (
    id            TEXT PRIMARY KEY,
    forgotten_at  INTEGER NOT NULL
);

CREATE TRIGGER messages_forgotten AFTER DELETE ON messages BEGIN
    INSERT OR IGNORE INTO forgotten_messages (id, forgotten_at)
    VALUES (old.id, CAST(strftime('%s', 'now') AS INTEGER) * 1000);
END;

-- Memory pause and incognito conversations (README, "Memory pause and incognito chats").
--
-- An incognito conversation is kept in the owner's history but never becomes memory: its
-- messages get no conversation units, so nothing of it reaches the FTS index, the vector
-- bookkeeping (vector_units is filled from units only) or any recall path. The flag is
-- chosen when the conversation starts and never changes, so no unit of it ever existed.
ALTER TABLE conversations ADD COLUMN incognito INTEGER NOT NULL DEFAULT 0
    CHECK (incognito IN (0, 1));

-- The global pause: one row while memory is paused (since `paused_at`), none otherwise.
-- While paused, no message is indexed; resuming indexes what was written meanwhile
-- (worker/store/pause.py).
CREATE TABLE memory_pause (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    paused_at  INTEGER NOT NULL
);

-- Every writer of conversation_units (a chat turn, an import, a forget re-indexing the
-- partner of a deleted message, a withdrawal) goes through this: a unit of an incognito
-- conversation, or any unit while memory is paused, is skipped, the rest of the
-- statement goes on. The predicate is worker/store/pause.py's UNIT_NOT_STORED.
CREATE TRIGGER conversation_units_not_stored BEFORE INSERT ON conversation_units
WHEN EXISTS (SELECT 1 FROM memory_pause)
  OR EXISTS (SELECT 1 FROM conversations AS c WHERE c.id = new.conversation_id
                                                AND c.incognito = 1)
BEGIN
    SELECT RAISE(IGNORE);
END;

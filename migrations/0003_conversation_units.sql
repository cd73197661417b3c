-- Conversation recall works on question-and-answer units: the owner's message
-- with Mallory's reply, long turns split into parts. "How did you say I should clean X?"
-- then matches the unit whose question holds "clean X" and whose answer holds the method,
-- instead of ranking the owner's own question above the reply.
--
-- Units are derived data, written by worker/store/chats.py in the same D1 batch as the
-- message they come from. This migration builds them for existing messages without
-- splitting long turns (FTS ranks a long unit fine; only its snippet is less focused).
--
-- messages_fts is dropped: the units index holds every message's text (a question in
-- `question`, a reply in `answer`), so indexing messages twice would double the write
-- cost for nothing. corpus_stats' 'messages' row now counts units, the documents of the
-- conversation index, which is what FTS5's IDF (and so our relevance ceiling) counts.

CREATE TABLE conversation_units (
    rid              INTEGER PRIMARY KEY,
    id               TEXT NOT NULL UNIQUE,  -- '<answer id or question id>:<part>'
    conversation_id  TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    question_id      TEXT,  -- the owner's message; NULL when Mallory spoke first
    answer_id        TEXT,  -- Mallory's reply; NULL until there is one
    part             INTEGER NOT NULL DEFAULT 0,
    seq              INTEGER NOT NULL,  -- seq of the unit's first message
    question         TEXT NOT NULL DEFAULT '',
    answer           TEXT NOT NULL DEFAULT '',
    created_at       INTEGER NOT NULL
);

CREATE INDEX conversation_units_by_question ON conversation_units (question_id);
CREATE INDEX conversation_units_by_answer ON conversation_units (answer_id);
CREATE INDEX conversation_units_by_conversation ON conversation_units (conversation_id, seq);

CREATE VIRTUAL TABLE conversation_units_fts USING fts5 (
    question,
    answer,
    content = 'conversation_units',
    content_rowid = 'rid',
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE VIRTUAL TABLE conversation_units_vocab USING fts5vocab (conversation_units_fts, 'row');

DROP TRIGGER messages_ai;
DROP TRIGGER messages_ad;
DROP TRIGGER messages_au;
DROP TABLE messages_vocab;
DROP TABLE messages_fts;

CREATE TRIGGER conversation_units_ai AFTER INSERT ON conversation_units BEGIN
    INSERT INTO conversation_units_fts (rowid, question, answer)
    VALUES (new.rid, new.question, new.answer);
    UPDATE corpus_stats SET docs = docs + 1 WHERE corpus = 'messages';
END;

CREATE TRIGGER conversation_units_ad AFTER DELETE ON conversation_units BEGIN
    INSERT INTO conversation_units_fts (conversation_units_fts, rowid, question, answer)
    VALUES ('delete', old.rid, old.question, old.answer);
    UPDATE corpus_stats SET docs = docs - 1 WHERE corpus = 'messages';
END;

CREATE TRIGGER conversation_units_au AFTER UPDATE ON conversation_units BEGIN
    INSERT INTO conversation_units_fts (conversation_units_fts, rowid, question, answer)
    VALUES ('delete', old.rid, old.question, old.answer);
    INSERT INTO conversation_units_fts (rowid, question, answer)
    VALUES (new.rid, new.question, new.answer);
END;

UPDATE corpus_stats SET docs = 0 WHERE corpus = 'messages';

-- Each owner message with the reply that directly follows it (a reply withdrawn by 0002,
-- for quoting a note since deleted, is left out: its text must not be recalled).
INSERT INTO conversation_units (id, conversation_id, question_id, answer_id, part, seq,
                                question, answer, created_at)
SELECT coalesce(a.id, q.id) || ':0', q.conversation_id, q.id, a.id, 0, q.seq,
       q.content, coalesce(a.content, ''), q.created_at
FROM messages AS q
LEFT JOIN messages AS a
  ON a.conversation_id = q.conversation_id AND a.seq = q.seq + 1 AND a.role = 'assistant'
 AND a.withdrawn_at IS NULL
WHERE q.role = 'user';

-- Replies with no owner message right before them.
INSERT INTO conversation_units (id, conversation_id, question_id, answer_id, part, seq,
                                question, answer, created_at)
SELECT a.id || ':0', a.conversation_id, NULL, a.id, 0, a.seq, '', a.content, a.created_at
FROM messages AS a
LEFT JOIN messages AS q
  ON q.conversation_id = a.conversation_id AND q.seq = a.seq - 1 AND q.role = 'user'
WHERE a.role = 'assistant' AND q.id IS NULL AND a.withdrawn_at IS NULL;

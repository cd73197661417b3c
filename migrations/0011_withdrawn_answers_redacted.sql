-- A withdrawn answer keeps its place in its conversation but loses its words
-- (worker/store/withdrawn.py): an answer may repeat what it was shown in words of its own,
-- so its text and Sources go, and its note citations, whose excerpts hold the note's text.
-- Withdrawal also follows quotes now: an answer that quoted a withdrawn answer is
-- withdrawn too, to any depth. This migration does both for answers withdrawn before it.

UPDATE messages SET withdrawn_at = CAST(strftime('%s', 'now') AS INTEGER) * 1000
WHERE withdrawn_at IS NULL AND rid IN (
    WITH RECURSIVE gone (rid) AS (
        SELECT rid FROM messages WHERE withdrawn_at IS NOT NULL
        UNION
        SELECT q.message_rid FROM message_quotes AS q JOIN gone ON q.quoted_rid = gone.rid)
    SELECT rid FROM gone);

-- Withdrawn replies leave the conversation index; the owner messages they answered are
-- indexed alone (one part of at most 1,500 characters, shared/text/chunking.MAX_UNIT_CHARS,
-- as worker/store/units.INDEX_UNANSWERED_SQL does).
DELETE FROM conversation_units
WHERE answer_id IN (SELECT id FROM messages WHERE withdrawn_at IS NOT NULL
                                             AND role = 'assistant');

INSERT INTO conversation_units (id, conversation_id, question_id, answer_id, part, seq,
                                question, answer, created_at)
SELECT q.id || ':0', q.conversation_id, q.id, NULL, 0, q.seq, substr(q.content, 1, 1500), '',
       q.created_at
FROM messages AS a
JOIN messages AS q
  ON q.conversation_id = a.conversation_id AND q.seq = a.seq - 1 AND q.role = 'user'
WHERE a.withdrawn_at IS NOT NULL AND a.role = 'assistant'
  AND NOT EXISTS (SELECT 1 FROM conversation_units AS u WHERE u.question_id = q.id);

UPDATE messages SET content = '', sources = '[]'
WHERE withdrawn_at IS NOT NULL AND role = 'assistant' AND (content != '' OR sources != '[]');

DELETE FROM message_citations
WHERE message_rid IN (SELECT rid FROM messages WHERE withdrawn_at IS NOT NULL);

-- A delete only adds a tombstone to a new FTS5 segment; merging every segment into one
-- takes the deleted text out of the index's shadow tables.
INSERT INTO conversation_units_fts (conversation_units_fts) VALUES ('optimize');
INSERT INTO note_sections_fts (note_sections_fts) VALUES ('optimize');

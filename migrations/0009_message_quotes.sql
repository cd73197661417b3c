-- Which past messages each of Mallory's answers was shown (forget, README
-- "HTTP API"). An answer quotes what automatic recall injected, cited or not, so forgetting a
-- message (DELETE /api/messages/{id}, /api/conversations/{id}) withdraws every answer that
-- was given with it injected, the way deleting a note withdraws the answers shown it
-- (message_citations, 0002). A row goes with either message (cascade): the withdrawal
-- runs in the forget's own D1 batch before the delete.

CREATE TABLE message_quotes (
    message_rid  INTEGER NOT NULL REFERENCES messages (rid) ON DELETE CASCADE,  -- the answer
    quoted_rid   INTEGER NOT NULL REFERENCES messages (rid) ON DELETE CASCADE,
    PRIMARY KEY (message_rid, quoted_rid)
);

CREATE INDEX message_quotes_by_quoted ON message_quotes (quoted_rid);

-- Answers stored before 0009 recorded only the messages they cited, in their sources.
INSERT OR IGNORE INTO message_quotes (message_rid, quoted_rid)
SELECT m.rid, q.rid
FROM messages AS m,
     json_each(CASE WHEN json_valid(m.sources) THEN m.sources ELSE '[]' END) AS s
JOIN messages AS q ON q.id = json_extract(s.value, '$.id')
WHERE m.role = 'assistant' AND json_extract(s.value, '$.kind') = 'message';

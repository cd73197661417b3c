"""Conversation units: the owner's message with Mallory's reply, long turns in parts
(migrations/0003_conversation_units.sql). The chats store adds these statements to the
same D1 batch as the message they derive from, so a unit never outlives or predates it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from shared.block.citations import strip_citations
from shared.text.chunking import MAX_UNIT_CHARS, split_text
from worker.db import Database, Statement
from worker.offline_replies import holds_memory

# Unit ids are made in Python, never by `?part || …` in SQL: D1 may bind a JS number as
# REAL, and Miniflare's D1 then spells part 0 as "0.0" (tests/contract caught it).

# An owner message in parts, as the question of question-only units (?1 message id,
# ?2 unit id, ?3 part, ?4 text).
INSERT_QUESTION_SQL = """
INSERT INTO conversation_units (id, conversation_id, question_id, answer_id, part, seq,
                                question, answer, created_at)
SELECT ?2, conversation_id, id, NULL, ?3, seq, ?4, '', created_at
FROM messages WHERE id = ?1
"""
# A reply replaces the question-only units of the owner message right before it.
DROP_UNANSWERED_SQL = """
DELETE FROM conversation_units
WHERE answer_id IS NULL AND question_id = (
    SELECT q.id FROM messages AS a
    JOIN messages AS q ON q.conversation_id = a.conversation_id AND q.seq = a.seq - 1
    WHERE a.id = ?1 AND q.role = 'user')
"""
# One part of a reply, with the start of the owner message it answers (?1 reply id,
# ?2 unit id, ?3 part, ?4 text, ?5 characters of the question kept).
INSERT_ANSWER_SQL = """
INSERT INTO conversation_units (id, conversation_id, question_id, answer_id, part, seq,
                                question, answer, created_at)
SELECT ?2, a.conversation_id, q.id, a.id, ?3, coalesce(q.seq, a.seq),
       coalesce(substr(q.content, 1, ?5), ''), ?4, coalesce(q.created_at, a.created_at)
FROM messages AS a
LEFT JOIN messages AS q
  ON q.conversation_id = a.conversation_id AND q.seq = a.seq - 1 AND q.role = 'user'
WHERE a.id = ?1
"""


DELETE_UNITS_OF_SQL = "DELETE FROM conversation_units WHERE question_id = ?1 OR answer_id = ?1"
# Replies withdrawn at ?1 (they quoted a note since deleted or changed: worker/store/
# citations.py) leave the index; the owner messages they answered are indexed alone (one
# part of at most ?2 characters; the unit id's ':0' is a literal, never a bound number).
DROP_WITHDRAWN_SQL = """
DELETE FROM conversation_units
WHERE answer_id IN (SELECT id FROM messages WHERE withdrawn_at = ?1 AND role = 'assistant')
"""
INDEX_UNANSWERED_SQL = """
INSERT INTO conversation_units (id, conversation_id, question_id, answer_id, part, seq,
                                question, answer, created_at)
SELECT q.id || ':0', q.conversation_id, q.id, NULL, 0, q.seq, substr(q.content, 1, ?2), '',
       q.created_at
FROM messages AS a
JOIN messages AS q
  ON q.conversation_id = a.conversation_id AND q.seq = a.seq - 1 AND q.role = 'user'
WHERE a.withdrawn_at = ?1 AND a.role = 'assistant'
  AND NOT EXISTS (SELECT 1 FROM conversation_units AS u WHERE u.question_id = q.id)
"""


def unit_id(message_id: str, part: int) -> str:
    return f"{message_id}:{part}"


def unit_statements(db: Database, message_id: str, role: str, content: str
                    ) -> list[Statement]:
    """The statements that index a just-inserted message as conversation units (none for
    a reply in the offline responder's words alone: worker/offline_replies.py)."""
    if role == "user":
        return [db.prepare(INSERT_QUESTION_SQL).bind(message_id, unit_id(message_id, part),
                                                     part, text)
                for part, text in enumerate(split_text(content) or [""])]
    if not holds_memory(content):
        return []
    parts = split_text(strip_citations(content)) or [""]
    return [db.prepare(DROP_UNANSWERED_SQL).bind(message_id),
            *(db.prepare(INSERT_ANSWER_SQL).bind(message_id, unit_id(message_id, part), part,
                                                 text, MAX_UNIT_CHARS)
              for part, text in enumerate(parts))]


def withdrawn_unit_statements(db: Database, withdrawn_at: int) -> list[Statement]:
    """After answers were withdrawn at `withdrawn_at` (later in the same batch)."""
    return [db.prepare(DROP_WITHDRAWN_SQL).bind(withdrawn_at),
            db.prepare(INDEX_UNANSWERED_SQL).bind(withdrawn_at, MAX_UNIT_CHARS)]


def forget_unit_statements(db: Database, message_id: str,
                           partner: Mapping[str, Any] | None) -> list[Statement]:
    """After a message is deleted (these run later in the same batch): drop its units,
    and index its partner (the owner message it answered, or the reply to it) alone."""
    statements = [db.prepare(DELETE_UNITS_OF_SQL).bind(message_id)]
    if partner is not None:
        statements.append(db.prepare(DELETE_UNITS_OF_SQL).bind(str(partner["id"])))
        statements += unit_statements(db, str(partner["id"]), str(partner["role"]),
                                      str(partner["content"]))
    return statements

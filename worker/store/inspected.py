"""The reads of the retrieval inspector (README, "Why these memories"): what an answer was
given, as stored with it (message_citations, message_quotes: migrations/0001, 0009), the
question it answered, and where a named note or message stands (deleted, withdrawn, its
units) with its best-matching unit for a query.

Only reads: the inspector changes nothing stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from worker.corpora.base import TEXT_CHARS, weights_sql
from worker.db import Database
from worker.db.port import Value

# The owner's message an answer replies to (the message just before it), and the answer
# that replies to an owner's message (just after it). ?1 the message id.
PAIR_SQL = """
SELECT m.id, m.role, m.content, m.created_at, m.conversation_id, m.context,
       m.withdrawn_at, p.id AS other_id, p.role AS other_role, p.content AS other_content,
       p.created_at AS other_created_at, p.context AS other_context,
       p.withdrawn_at AS other_withdrawn_at
FROM messages AS m
LEFT JOIN messages AS p ON p.conversation_id = m.conversation_id
  AND p.seq = CASE m.role WHEN 'assistant' THEN m.seq - 1 ELSE m.seq + 1 END
WHERE m.id = ?1
"""
# What automatic recall gave an answer (?1 its id): the notes, with the excerpt it was
# shown, and the past messages it quoted (the hits and the replies shown with them).
INJECTED_SQL = """
SELECT 'note' AS kind, c.path AS id, v.name AS vault, c.excerpt AS excerpt
FROM messages AS m JOIN message_citations AS c ON c.message_rid = m.rid
JOIN vaults AS v ON v.vid = c.vid
WHERE m.id = ?1
UNION ALL
SELECT 'message', q.id, NULL, NULL
FROM messages AS m JOIN message_quotes AS x ON x.message_rid = m.rid
JOIN messages AS q ON q.rid = x.quoted_rid
WHERE m.id = ?1
"""
# A note by vault name and path: whether it is stored, how many sections index it, and
# when it was deleted (vault_tombstones) if it is not. ?1 the vault's name, ?2 the path.
NOTE_STATE_SQL = """
SELECT v.vid, n.rid AS note_rid, n.title,
       (SELECT count(*) FROM note_sections AS s WHERE s.note_rid = n.rid) AS units,
       (SELECT t.deleted_at FROM vault_tombstones AS t
        WHERE t.vid = v.vid AND t.path = ?2) AS deleted_at
FROM vaults AS v LEFT JOIN vault_notes AS n ON n.vid = v.vid AND n.path = ?2
WHERE v.name = ?1
"""
# A message by id: its conversation, whether it was withdrawn, how many conversation
# units hold it. ?1 the id.
MESSAGE_STATE_SQL = """
SELECT m.id, m.role, m.conversation_id, m.created_at, m.withdrawn_at, c.title, c.incognito,
       (SELECT count(*) FROM conversation_units AS u
        WHERE u.question_id = m.id OR u.answer_id = m.id) AS units
FROM messages AS m JOIN conversations AS c ON c.id = m.conversation_id
WHERE m.id = ?1
"""


def note_probe_sql(columns: Mapping[str, float]) -> str:
    """The named note's best unit for a query: ?1 the MATCH expression, ?2 the note's rid.
    Its bm25(), its rank among every section the query matches (1 = best), and how many
    those are."""
    weights = weights_sql(columns)
    return f"""
WITH scored AS (
    SELECT rowid AS rid, bm25(note_sections_fts, {weights}) AS bm25
    FROM note_sections_fts WHERE note_sections_fts MATCH ?1)
SELECT s.rid, s.heading, substr(s.body, 1, {TEXT_CHARS}) AS text, x.bm25,
       (SELECT count(*) FROM scored AS o WHERE o.bm25 < x.bm25) + 1 AS lexical_rank,
       (SELECT count(*) FROM scored) AS matching
FROM scored AS x JOIN note_sections AS s ON s.rid = x.rid
WHERE s.note_rid = ?2
ORDER BY x.bm25 LIMIT 1
"""


def message_probe_sql(columns: Mapping[str, float]) -> str:
    """The same for a message: its best conversation unit (?2 the message id)."""
    weights = weights_sql(columns)
    return f"""
WITH scored AS (
    SELECT rowid AS rid, bm25(conversation_units_fts, {weights}) AS bm25
    FROM conversation_units_fts WHERE conversation_units_fts MATCH ?1)
SELECT u.rid, '' AS heading,
       substr(u.question || char(10) || u.answer, 1, {TEXT_CHARS}) AS text, x.bm25,
       (SELECT count(*) FROM scored AS o WHERE o.bm25 < x.bm25) + 1 AS lexical_rank,
       (SELECT count(*) FROM scored) AS matching
FROM scored AS x JOIN conversation_units AS u ON u.rid = x.rid
WHERE u.question_id = ?2 OR u.answer_id = ?2
ORDER BY x.bm25 LIMIT 1
"""


@dataclass(frozen=True)
class Injected:
    kind: str  # "note" or "message"
    id: str  # a note's path, a message's id
    vault: str | None  # notes: the vault's name


async def pair(db: Database, message_id: str) -> dict[str, Any] | None:
    return await db.prepare(PAIR_SQL).bind(message_id).first()


async def injected(db: Database, answer_id: str) -> list[Injected]:
    rows = (await db.prepare(INJECTED_SQL).bind(answer_id).all()).results
    return [Injected(str(r["kind"]), str(r["id"]), r["vault"]) for r in rows]


async def note_state(db: Database, vault: str, path: str) -> dict[str, Any] | None:
    return await db.prepare(NOTE_STATE_SQL).bind(vault, path).first()


async def message_state(db: Database, message_id: str) -> dict[str, Any] | None:
    return await db.prepare(MESSAGE_STATE_SQL).bind(message_id).first()


async def probe(db: Database, sql: str, match: str, target: Value
                ) -> dict[str, Any] | None:
    """The target's best unit for a MATCH expression (`note_probe_sql`,
    `message_probe_sql`), or None when no unit of it matches."""
    if not match:
        return None
    return await db.prepare(sql).bind(match, target).first()

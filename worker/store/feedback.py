"""The feedback store (migrations/0007): recording the owner's judgment of a source, and
reading judgments back for export (ranking reads them per corpus: worker/recall/feedback.py).

A judgment names an answer and a source number; the store resolves it to the document the
source is — a note by the citation the answer recorded (worker/store/citations.py), a
message by its id — and to the owner's question the answer replied to, whose text is
hashed (shared/rank/feedback.py) and never stored. Anything that does not resolve is refused
before a row is written; a repeated judgment of the same source replaces the earlier one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from shared.api.errors import Conflict, InvalidPayload, NotFound
from shared.api.wire import Source
from shared.rank.feedback import Judgment, query_hash
from worker.db import ConstraintError, Database

# The judged answer, its sources and the owner's message it replied to.
ANSWER_SQL = """
SELECT m.rid, m.role, m.sources, m.withdrawn_at, q.content AS question
FROM messages AS m
LEFT JOIN messages AS q ON q.conversation_id = m.conversation_id AND q.seq = m.seq - 1
                       AND q.role = 'user'
WHERE m.id = ?1
"""
# The note an answer cited at a path (?1 the answer's rid, ?2 the source's path).
CITED_NOTE_SQL = """
SELECT n.rid FROM message_citations AS c
JOIN vault_notes AS n ON n.vid = c.vid AND n.path = c.path
WHERE c.message_rid = ?1 AND c.path = ?2
"""
LIVE_MESSAGE_SQL = "SELECT rid FROM messages WHERE id = ?1 AND withdrawn_at IS NULL"
RECORD_SQL = """
INSERT INTO recall_feedback (message_rid, n, query_hash, judgment, note_rid, doc_message_rid,
                             created_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
ON CONFLICT (message_rid, n) DO UPDATE SET
    query_hash = excluded.query_hash, judgment = excluded.judgment,
    note_rid = excluded.note_rid, doc_message_rid = excluded.doc_message_rid,
    created_at = excluded.created_at
"""
# What an export needs (local/feedback_export.py): each judgment with the owner's question
# it was made for, and the judged document as a set names it.
EXPORT_SQL = """
SELECT f.rid, f.n, f.judgment, f.created_at, f.query_hash, a.id AS answer_id,
       q.id AS question_id, q.content AS question,
       n.path AS note_path, v.name AS vault, d.id AS message_id
FROM recall_feedback AS f
JOIN messages AS a ON a.rid = f.message_rid
LEFT JOIN messages AS q ON q.conversation_id = a.conversation_id AND q.seq = a.seq - 1
                       AND q.role = 'user'
LEFT JOIN vault_notes AS n ON n.rid = f.note_rid
LEFT JOIN vaults AS v ON v.vid = n.vid
LEFT JOIN messages AS d ON d.rid = f.doc_message_rid
ORDER BY f.created_at, f.rid
"""


@dataclass(frozen=True)
class Recorded:
    message_id: str
    n: int
    judgment: Judgment
    source: Source  # the judged source, as the footer shows it
    created_at: int


def _source(sources_json: str, message_id: str, n: int) -> Source:
    sources = [Source.model_validate(s) for s in json.loads(sources_json or "[]")]
    for source in sources:
        if source.n == n:
            return source
    listed = ", ".join(f"[{s.n}]" for s in sources)
    raise InvalidPayload(
        f"message {message_id!r} has no source [{n}]: "
        + (f"its sources are {listed}" if listed else "it cites no source"),
        [{"field": "n", "message": f"no source [{n}] under this answer"}])


async def _document(db: Database, answer_rid: int, source: Source) -> tuple[Any, Any]:
    """(note rid, message rid) of the document a source is; 409 when it is gone."""
    if source.kind == "note":
        row = await db.prepare(CITED_NOTE_SQL).bind(answer_rid, source.id).first()
        if row is None:
            raise Conflict(f"source [{source.n}] ({source.label!r}) is no longer in the vault: "
                           "its note was deleted or moved since; nothing was recorded",
                           code="source_gone")
        return row["rid"], None
    row = await db.prepare(LIVE_MESSAGE_SQL).bind(source.id).first()
    if row is None:
        raise Conflict(f"source [{source.n}] was forgotten or withdrawn; nothing was recorded",
                       code="source_gone")
    return None, row["rid"]


async def record(db: Database, message_id: str, n: int, judgment: Judgment,
                 now_ms: int) -> Recorded:
    answer = await db.prepare(ANSWER_SQL).bind(message_id).first()
    if answer is None:
        raise NotFound(f"no message with id {message_id!r}; it may have been deleted")
    if answer["role"] != "assistant":
        raise InvalidPayload(f"message {message_id!r} is the owner's; only Mallory's answers "
                             "have sources to judge",
                             [{"field": "message_id", "message": "not an answer of Mallory's"}])
    if answer["withdrawn_at"] is not None:
        raise Conflict(f"answer {message_id!r} was withdrawn (something it was given has "
                       "since been forgotten) and its sources went with it; nothing was "
                       "recorded", code="answer_withdrawn")
    source = _source(answer["sources"], message_id, n)
    if answer["question"] is None:
        raise Conflict("the question this answer replied to was forgotten, and feedback is "
                       "kept per question; nothing was recorded", code="question_gone")
    note_rid, message_rid = await _document(db, int(answer["rid"]), source)
    try:
        await db.prepare(RECORD_SQL).bind(answer["rid"], n, query_hash(answer["question"]),
                                          judgment, note_rid, message_rid, now_ms).run()
    except ConstraintError:  # the document went between the read and the write
        raise Conflict(f"source [{n}] was deleted just now; nothing was recorded",
                       code="source_gone") from None
    return Recorded(message_id, n, judgment, source, now_ms)


async def export_rows(db: Database) -> list[dict[str, Any]]:
    return (await db.prepare(EXPORT_SQL).all()).results

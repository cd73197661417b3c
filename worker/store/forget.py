"""Forgetting: a message or a whole conversation deleted for good (DELETE /api/messages/{id},
/api/conversations/{id}), in one D1 batch each: the rows, their conversation units (whose
triggers take the text out of the FTS index), their vector rows, the stored citations of
them in the Sources of the messages that stay, and the answers given with them in view
withdrawn and redacted (worker/store/withdrawn.py): those that were shown them by recall
(worker/store/quotes.py), the reply to a forgotten owner message (the message was its
prompt), and every answer that quoted a withdrawn one, to any depth.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from shared.api.errors import NotFound
from shared.block.citations import shorten
from worker.db import Database, Result
from worker.store import quotes
from worker.store.chats import TITLE_CHARS, get_message
from worker.store.units import forget_unit_statements
from worker.store.withdrawn import after_withdrawal, follow_quotes_statement


def uncite_sql(forgotten: str, survivors: str) -> str:
    """Remove the citations of the messages in `forgotten` from the stored Sources of the
    messages that stay (`survivors`), so no footer shows forgotten text. Both are fixed SQL
    over ?1. Only `sources` changes, which the FTS triggers (AFTER UPDATE OF content)
    ignore."""
    cites = ("json_extract(s.value, '$.kind') = 'message' "
             f"AND json_extract(s.value, '$.id') IN {forgotten}")
    return f"""
UPDATE messages SET sources = (
    SELECT json_group_array(json(s.value)) FROM json_each(messages.sources) AS s
    WHERE NOT ({cites}))
WHERE {survivors} AND instr(sources, '"message"') > 0
  AND EXISTS (SELECT 1 FROM json_each(messages.sources) AS s WHERE {cites})
RETURNING id
"""


UNCITE_MESSAGE_SQL = uncite_sql("(?1)", "id != ?1")
UNCITE_CONVERSATION_SQL = uncite_sql("(SELECT id FROM messages WHERE conversation_id = ?1)",
                                     "conversation_id != ?1")
# A conversation is titled after its first message; forgetting that message (?3 is its
# seq) blanks the title unless the owner has renamed the conversation since.
UNTITLE_CONVERSATION_SQL = """
UPDATE conversations SET title = '' WHERE id = ?1 AND title = ?2
  AND NOT EXISTS (SELECT 1 FROM messages WHERE conversation_id = ?1 AND seq < ?3)
"""
DELETE_MESSAGE_SQL = "DELETE FROM messages WHERE id = ?1 RETURNING id"
# The owner message a forgotten reply answered (?1 conversation, ?2 the reply's seq): its
# conversation units are rebuilt without the reply.
QUESTION_OF_SQL = """
SELECT id, role, content FROM messages
WHERE conversation_id = ?1 AND seq = ?2 - 1 AND role = 'user'
"""
# The reply to a forgotten owner message (?2 conversation, ?3 the message's seq, ?4 its
# role) is withdrawn at ?1: it was written with that message as its prompt.
WITHDRAW_REPLY_SQL = """
UPDATE messages SET withdrawn_at = ?1
WHERE ?4 = 'user' AND conversation_id = ?2 AND seq = ?3 + 1 AND role = 'assistant'
  AND withdrawn_at IS NULL
RETURNING id
"""
COUNT_MESSAGES_SQL = "SELECT count(*) AS n FROM messages WHERE conversation_id = ?1"
# The vector bookkeeping of the units a forget removes or rebuilds (worker/recall/vector_corpora.py
# resolves vector hits through these rows): gone in the same batch, so no vector made from
# forgotten text resolves again, and a partner's rebuilt unit (same id, new text) is
# embedded afresh. ?1 and ?2: the forgotten message and its partner (or '').
DROP_MESSAGE_VECTORS_SQL = """
DELETE FROM vector_units WHERE unit_id IN (
    SELECT id FROM conversation_units
    WHERE question_id IN (?1, ?2) OR answer_id IN (?1, ?2))
RETURNING vector_id, unit_id
"""
DROP_CONVERSATION_VECTORS_SQL = """
DELETE FROM vector_units WHERE unit_id IN (
    SELECT id FROM conversation_units WHERE conversation_id = ?1)
RETURNING vector_id, unit_id
"""
DELETE_CONVERSATION_SQL = "DELETE FROM conversations WHERE id = ?1 RETURNING id"

@dataclass(frozen=True)
class Forgotten:
    """What a delete removed: the messages, the stored citations of them, the answers
    withdrawn with them, and the vector ids to drop from the index (their D1 rows are
    already gone)."""

    conversation_id: str
    messages: int
    citations: int
    withdrawn_ids: tuple[str, ...] = ()  # the answers withdrawn (and redacted)
    vector_ids: tuple[str, ...] = ()

    @property
    def withdrawn(self) -> int:
        return len(self.withdrawn_ids)


def _vector_ids(rows: Sequence[dict[str, Any]], rebuilt_prefix: str | None) -> tuple[str, ...]:
    """The dropped vectors to delete from the index: not those of a rebuilt unit (same id),
    which the indexer's upsert overwrites."""
    return tuple(str(r["vector_id"]) for r in rows
                 if not (rebuilt_prefix and str(r["unit_id"]).startswith(rebuilt_prefix)))


def _ids(*results: Result) -> tuple[str, ...]:
    return tuple(dict.fromkeys(str(r["id"]) for result in results for r in result.results))


async def delete_message(db: Database, message_id: str, now_ms: int) -> Forgotten:
    """Delete one message, its conversation units (and so its FTS entries and vector rows)
    and every stored citation of it, and withdraw the answers given with it in view, in
    one batch. A forgotten reply's question is indexed again alone."""
    message, _ = await get_message(db, message_id)  # 404s
    partner = None
    if message.role == "assistant":
        partner = await db.prepare(QUESTION_OF_SQL).bind(message.conversation_id,
                                                         message.seq).first()
    partner_id = str(partner["id"]) if partner is not None else ""
    results = await db.batch([
        db.prepare(UNCITE_MESSAGE_SQL).bind(message_id),
        db.prepare(UNTITLE_CONVERSATION_SQL).bind(
            message.conversation_id, shorten(message.content, TITLE_CHARS), message.seq),
        quotes.forget_message_statement(db, message_id, now_ms),
        db.prepare(WITHDRAW_REPLY_SQL).bind(now_ms, message.conversation_id, message.seq,
                                            message.role),
        db.prepare(DROP_MESSAGE_VECTORS_SQL).bind(message_id, partner_id),
        db.prepare(DELETE_MESSAGE_SQL).bind(message_id),
        follow_quotes_statement(db, now_ms),
        *forget_unit_statements(db, message_id, partner),
        *after_withdrawal(db, now_ms),
    ])
    if not results[5].results:  # deleted meanwhile by another request
        raise NotFound(f"no message with id {message_id!r}; it may have been deleted")
    return Forgotten(message.conversation_id, 1, len(results[0].results),
                     _ids(results[2], results[3], results[6]),
                     _vector_ids(results[4].results, f"{partner_id}:" if partner_id else None))


async def delete_conversation(db: Database, conversation_id: str, now_ms: int) -> Forgotten:
    """Delete a conversation with all its messages (the FK cascade fires the FTS triggers),
    their vector rows and every citation of them stored elsewhere, and withdraw the answers
    elsewhere that quoted them, in one batch."""
    results = await db.batch([
        db.prepare(COUNT_MESSAGES_SQL).bind(conversation_id),
        db.prepare(UNCITE_CONVERSATION_SQL).bind(conversation_id),
        quotes.forget_conversation_statement(db, conversation_id, now_ms),
        db.prepare(DROP_CONVERSATION_VECTORS_SQL).bind(conversation_id),
        db.prepare(DELETE_CONVERSATION_SQL).bind(conversation_id),
        follow_quotes_statement(db, now_ms),
        *after_withdrawal(db, now_ms),
    ])
    if not results[4].results:
        raise NotFound(f"no conversation with id {conversation_id!r}; "
                       "it may have been deleted")
    return Forgotten(conversation_id, int(results[0].results[0]["n"]), len(results[1].results),
                     _ids(results[2], results[5]), _vector_ids(results[3].results, None))

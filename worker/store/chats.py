"""The chat store: conversations and their messages.

A message's position in its conversation is `seq` (1, 2, ...), assigned inside the
INSERT itself so that two writers can never take the same number. History pages are
newest-first, and the cursor is the `seq` of the last message a page returned.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from shared.api.errors import NotFound
from shared.api.limits import MAX_SAFE_INTEGER
from shared.api.wire import Source
from shared.block.citations import moved_to, shorten, with_vault
from shared.rank.candidate import Role
from shared.rank.echoes import Shown
from shared.rank.feedback import Judgment
from worker.corpora.conversations import SAVED_MEMORIES_ID
from worker.db import Database, Statement
from worker.db.port import Row
from worker.store.units import unit_statements

TITLE_CHARS = 80
# The conversation that holds the owner's saved memories (SAVED_MEMORIES_ID, named where
# they are ranked: worker/corpora/conversations.py) is not listed with the others; the
# Memory page shows it.
SAVED_MEMORIES_TITLE = "Saved memories"

INSERT_CONVERSATION_SQL = """
INSERT INTO conversations (id, title, created_at, updated_at, incognito)
VALUES (?1, ?2, ?3, ?3, ?4)
"""
TOUCH_CONVERSATION_SQL = """
UPDATE conversations SET updated_at = max(updated_at, ?2) WHERE id = ?1
"""
GET_CONVERSATION_SQL = """
SELECT id, title, created_at, updated_at, incognito FROM conversations WHERE id = ?
"""
INSERT_MESSAGE_SQL = """
INSERT INTO messages (id, conversation_id, seq, role, content, sources, context, created_at)
VALUES (?1, ?2,
        (SELECT coalesce(max(seq), 0) + 1 FROM messages WHERE conversation_id = ?2),
        ?3, ?4, ?5, ?6, ?7)
RETURNING id, conversation_id, seq, role, content, sources, created_at
"""
LIST_CONVERSATIONS_SQL = """
SELECT c.id, c.title, c.created_at, c.updated_at, c.incognito,
       (SELECT count(*) FROM messages WHERE conversation_id = c.id) AS message_count
FROM conversations AS c
WHERE (?1 IS NULL OR c.updated_at < ?1 OR (c.updated_at = ?1 AND c.id < ?2))
  AND c.id != ?4
ORDER BY c.updated_at DESC, c.id DESC
LIMIT ?3
"""
# The owner's judgments of an answer's sources ({"n": "relevant"|"irrelevant"}: 0007).
JUDGMENTS_OF = """(SELECT json_group_object(f.n, f.judgment) FROM recall_feedback AS f
        WHERE f.message_rid = {0}.rid) AS judgments"""
# The vault each note an answer was shown lives in now, as [[path, vault name], ...]
# (message_citations, 0002): stored links follow a vault's rename (`Message.from_row`).
# Each cited note as [the path its source names, its path now, its vault's name now].
CITED_NOTES_OF = """(SELECT json_group_array(json_array(coalesce(c.cited_path, c.path), c.path,
                                                  v.name))
        FROM message_citations AS c JOIN vaults AS v ON v.vid = c.vid
        WHERE c.message_rid = {0}.rid) AS cited_notes"""
PAGE_MESSAGES_SQL = f"""
SELECT id, conversation_id, seq, role, content, sources, created_at, withdrawn_at,
       {JUDGMENTS_OF.format("messages")}, {CITED_NOTES_OF.format("messages")}
FROM messages
WHERE conversation_id = ?1 AND seq < ?2
ORDER BY seq DESC
LIMIT ?3
"""
GET_MESSAGE_SQL = f"""
SELECT m.id, m.conversation_id, m.seq, m.role, m.content, m.sources, m.created_at,
       m.withdrawn_at, {JUDGMENTS_OF.format("m")}, {CITED_NOTES_OF.format("m")},
       (SELECT count(*) FROM messages AS n
         WHERE n.conversation_id = m.conversation_id AND n.seq > m.seq) AS newer
FROM messages AS m WHERE m.id = ?
"""

# The assistant message that directly follows each given owner's message, unless it was
# withdrawn (it quoted a note since deleted or changed: worker/store/citations.py).
REPLIES_SQL = """
SELECT q.id AS question_id, a.content AS reply
FROM messages AS q
JOIN messages AS a ON a.conversation_id = q.conversation_id AND a.seq = q.seq + 1
WHERE q.id IN (SELECT value FROM json_each(?)) AND a.role = 'assistant'
  AND a.withdrawn_at IS NULL
"""


# The messages within reach of each given one (?1: JSON [[hit, message id, reach], ...]),
# withdrawn answers left out, with the seq of the message they are around (`anchor`).
TURNS_AROUND_SQL = """
SELECT json_extract(j.value, '$[0]') AS hit, n.id, n.role, n.content, n.seq,
       m.seq AS anchor
FROM json_each(?1) AS j
JOIN messages AS m ON m.id = json_extract(j.value, '$[1]')
JOIN messages AS n ON n.conversation_id = m.conversation_id
  AND n.seq BETWEEN m.seq - json_extract(j.value, '$[2]')
                AND m.seq + json_extract(j.value, '$[2]')
WHERE n.withdrawn_at IS NULL
"""


# What each given answer (?1: JSON ids) was shown: the notes it was given (their group,
# vid:path, and the excerpt) and the past messages it quoted (their text).
SHOWN_TO_SQL = """
SELECT m.id AS answer_id, c.vid || ':' || c.path AS note, NULL AS quoted,
       NULL AS quoted_in, c.excerpt AS text
FROM messages AS m JOIN message_citations AS c ON c.message_rid = m.rid
WHERE m.id IN (SELECT value FROM json_each(?1))
UNION ALL
SELECT m.id, NULL, q.id, q.conversation_id, q.content
FROM messages AS m
JOIN message_quotes AS x ON x.message_rid = m.rid
JOIN messages AS q ON q.rid = x.quoted_rid
WHERE m.id IN (SELECT value FROM json_each(?1))
"""


RENAME_CONVERSATION_SQL = """
UPDATE conversations SET title = ?2 WHERE id = ?1
RETURNING id, title, created_at, updated_at
"""


def new_id() -> str:
    # Called inside request handlers only: Workers forbid entropy at import time.
    return str(uuid.uuid4())


def _current_notes(sources: list[Source], cited: list[list[str]]) -> list[Source]:
    """Note links rebuilt for where the note is now: its vault's current name, and its
    path after a move (`cited`: CITED_NOTES_OF's rows). A path shown from two vaults at
    once keeps its stored link: the path alone cannot say which vault it named."""
    now: dict[str, set[tuple[str, str]]] = {}
    for named, path, vault in cited:
        now.setdefault(named, set()).add((path, vault))
    out = []
    for s in sources:
        where = now.get(s.id, set()) if s.kind == "note" else set()
        if len(where) != 1:
            out.append(s)
            continue
        [(path, vault)] = where
        out.append(s.model_copy(update={"href": with_vault(s.href, vault)}) if path == s.id
                   else s.model_copy(update={"id": path,
                                             "href": moved_to(s.href, vault, s.id, path)}))
    return out


@dataclass(frozen=True)
class Message:
    id: str
    conversation_id: str
    seq: int
    role: Role
    content: str
    sources: list[Source]
    created_at: int
    judgments: dict[str, Judgment] = field(default_factory=dict)  # source number → judgment
    # Withdrawn (worker/store/withdrawn.py): its text and Sources are gone.
    withdrawn: bool = False

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Message:
        sources = _current_notes([Source.model_validate(s)
                                   for s in json.loads(row["sources"] or "[]")],
                                  json.loads(row.get("cited_notes") or "[]"))
        return cls(id=row["id"], conversation_id=row["conversation_id"], seq=int(row["seq"]),
                   role=row["role"], content=row["content"], sources=sources,
                   created_at=int(row["created_at"]),
                   judgments=json.loads(row.get("judgments") or "{}"),
                   withdrawn=row.get("withdrawn_at") is not None)


async def get_conversation(db: Database, conversation_id: str) -> dict[str, Any]:
    row = await db.prepare(GET_CONVERSATION_SQL).bind(conversation_id).first()
    if row is None:
        raise NotFound(f"no conversation with id {conversation_id!r}")
    return row


async def create_conversation(db: Database, first_text: str, now_ms: int,
                              conversation_id: str | None = None, *,
                              incognito: bool = False) -> str:
    conversation_id = conversation_id or new_id()
    await db.prepare(INSERT_CONVERSATION_SQL).bind(
        conversation_id, shorten(first_text, TITLE_CHARS), now_ms, int(incognito)).run()
    return conversation_id


async def append_message(db: Database, conversation_id: str, role: str, content: str,
                         created_at: int, *, message_id: str | None = None,
                         sources: list[Source] | None = None, context: str | None = None,
                         new_conversation: bool = False, incognito: bool = False,
                         after: Sequence[Statement] = (), indexed: bool = True) -> Message:
    """Store one message, bump its conversation and index it as conversation units, all in
    one batch; with `new_conversation` the conversation is created in the same batch
    (titled after this message, `incognito` or not), so a failure never leaves an empty
    conversation behind. Units of an incognito conversation, and any while memory is
    paused, are never written (worker/store/pause.py).
    `after`: statements of the same batch that depend on the message (its citations).
    `indexed` False: no units of its own (an imported withdrawn answer, which has no text;
    the owner's message before it stays indexed alone, as after a withdrawal)."""
    message_id = message_id or new_id()
    sources_json = json.dumps([s.model_dump() for s in sources or []])
    statements = [
        db.prepare(INSERT_MESSAGE_SQL).bind(message_id, conversation_id, role, content,
                                            sources_json, context, created_at),
        db.prepare(TOUCH_CONVERSATION_SQL).bind(conversation_id, created_at),
        *(unit_statements(db, message_id, role, content) if indexed else []),
    ]
    if new_conversation:
        statements.insert(0, db.prepare(INSERT_CONVERSATION_SQL).bind(
            conversation_id, shorten(content, TITLE_CHARS), created_at, int(incognito)))
    results = await db.batch([*statements, *after])
    return Message.from_row(results[1 if new_conversation else 0].results[0])


async def list_conversations(db: Database, limit: int, before: tuple[int, str] | None
                             ) -> list[dict[str, Any]]:
    updated, conv_id = before if before else (None, "")
    return (await db.prepare(LIST_CONVERSATIONS_SQL).bind(updated, conv_id, limit,
                                                          SAVED_MEMORIES_ID).all()).results


async def page_messages(db: Database, conversation_id: str, before_seq: int | None,
                        limit: int) -> list[Message]:
    await get_conversation(db, conversation_id)
    before = before_seq if before_seq is not None else MAX_SAFE_INTEGER
    rows = (await db.prepare(PAGE_MESSAGES_SQL).bind(conversation_id, before, limit).all()).results
    return [Message.from_row(r) for r in rows]


async def get_message(db: Database, message_id: str) -> tuple[Message, int]:
    """The message and how many newer messages its conversation holds."""
    row = await db.prepare(GET_MESSAGE_SQL).bind(message_id).first()
    if row is None:
        raise NotFound(f"no message with id {message_id!r}; it may have been deleted")
    return Message.from_row(row), int(row["newer"])


def replies_statement(db: Database, message_ids: Sequence[str]) -> Statement:
    """Mallory's reply to each of the given owner messages, where there is one
    (`replies_from` reads its rows); a statement, for a caller that batches it."""
    return db.prepare(REPLIES_SQL).bind(json.dumps(list(message_ids)))


def replies_from(rows: Sequence[Row]) -> dict[str, str]:
    """Owner message id → Mallory's reply, from `replies_statement`'s rows."""
    return {str(r["question_id"]): str(r["reply"]) for r in rows}


def turns_around_statement(db: Database, wanted: Sequence[tuple[str, str, int]]
                           ) -> Statement:
    """The messages within `reach` turns of each (hit, message id, reach): rows of (hit,
    id, role, content, seq, anchor: the seq of the message they are around)."""
    return db.prepare(TURNS_AROUND_SQL).bind(json.dumps(list(wanted)))


def shown_to_statement(db: Database, answer_ids: Sequence[str]) -> Statement:
    """The statement `shown_to` runs, for a caller that batches it with others."""
    return db.prepare(SHOWN_TO_SQL).bind(json.dumps(list(answer_ids)))


async def shown_to(db: Database, answer_ids: Sequence[str]) -> dict[str, Shown]:
    """What each answer was shown (answers shown nothing are absent)."""
    return shown_from((await shown_to_statement(db, answer_ids).all()).results)


def shown_from(rows: Sequence[Row]) -> dict[str, Shown]:
    """`shown_to`'s answer, from its statement's rows."""
    notes: dict[str, set[str]] = {}
    quoted: dict[str, set[str]] = {}
    quoted_in: dict[str, set[str]] = {}
    texts: dict[str, list[str]] = {}
    for r in rows:
        key = str(r["answer_id"])
        texts.setdefault(key, []).append(str(r["text"] or ""))
        if r["note"] is not None:
            notes.setdefault(key, set()).add(str(r["note"]))
        if r["quoted"] is not None:
            quoted.setdefault(key, set()).add(str(r["quoted"]))
            quoted_in.setdefault(key, set()).add(str(r["quoted_in"]))
    return {k: Shown(frozenset(notes.get(k, ())), tuple(v), frozenset(quoted.get(k, ())),
                     frozenset(quoted_in.get(k, ())))
            for k, v in texts.items()}


async def rename_conversation(db: Database, conversation_id: str, title: str
                              ) -> dict[str, Any]:
    row = await db.prepare(RENAME_CONVERSATION_SQL).bind(conversation_id, title).first()
    if row is None:
        raise NotFound(f"no conversation with id {conversation_id!r}")
    return row

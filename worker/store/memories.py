"""Saved memories (migrations/0013): short facts the owner approved, each with the
message it was saved from.

A saved memory is an owner message of the conversation chats.SAVED_MEMORIES_ID, so it is
indexed, embedded, recalled and deep-linked as any message is (it ranks as a stable
canonical note: worker/corpora/conversations.py). Deleting one is forgetting its message
(worker/store/forget.py): the same batch, the same withdrawals. An edit forgets the old
fact (answers given with it in view are withdrawn) and saves the new one in its place.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from shared.api.errors import NotFound
from worker.db import Database
from worker.store import chats, forget
from worker.store.forget import Forgotten

ENSURE_CONVERSATION_SQL = """
INSERT INTO conversations (id, title, created_at, updated_at, incognito)
VALUES (?1, ?2, ?3, ?3, 0)
ON CONFLICT (id) DO NOTHING
"""
SAVE_SQL = """
INSERT INTO saved_memories (message_id, source_message_id, created_at)
VALUES (?1, (SELECT id FROM messages WHERE id = ?2), ?3)
"""
MEMORY_COLUMNS = """
SELECT s.message_id AS id, m.content AS fact, s.source_message_id, s.created_at,
       src.conversation_id AS source_conversation_id
FROM saved_memories AS s JOIN messages AS m ON m.id = s.message_id
LEFT JOIN messages AS src ON src.id = s.source_message_id"""
LIST_SQL = f"{MEMORY_COLUMNS}\nORDER BY s.created_at DESC, s.message_id"
GET_SQL = f"{MEMORY_COLUMNS}\nWHERE s.message_id = ?1"
SOURCE_SQL = "SELECT id FROM messages WHERE id = ?1"
# The messages the given saved memories (?1, a JSON array of their ids) were saved from.
SAVED_FROM_SQL = """
SELECT source_message_id AS id FROM saved_memories
WHERE message_id IN (SELECT value FROM json_each(?1)) AND source_message_id IS NOT NULL
"""


@dataclass(frozen=True)
class Memory:
    id: str  # its message's id
    fact: str
    source_message_id: str | None  # None: saved directly, or its source was forgotten
    source_conversation_id: str | None
    created_at: int

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Memory:
        return cls(id=str(row["id"]), fact=str(row["fact"]),
                   source_message_id=row.get("source_message_id"),
                   source_conversation_id=row.get("source_conversation_id"),
                   created_at=int(row["created_at"]))

# Which of the given messages (?1, a JSON array of ids) a saved memory was saved from.
SAVED_SOURCES_SQL = """
SELECT DISTINCT source_message_id AS id FROM saved_memories
WHERE source_message_id IN (SELECT value FROM json_each(?1))
"""


async def saved_from(db: Database, memory_ids: list[str]) -> set[str]:
    """The ids of the messages these saved memories were saved from."""
    rows = (await db.prepare(SAVED_FROM_SQL).bind(json.dumps(memory_ids)).all()).results
    return {str(r["id"]) for r in rows}


async def saved_sources(db: Database, message_ids: list[str]) -> set[str]:
    """Which of these messages a saved memory was saved from."""
    rows = (await db.prepare(SAVED_SOURCES_SQL).bind(json.dumps(message_ids)).all()).results
    return {str(r["id"]) for r in rows}


async def list_memories(db: Database) -> list[Memory]:
    return [Memory.from_row(r) for r in (await db.prepare(LIST_SQL).all()).results]


async def get_memory(db: Database, memory_id: str) -> Memory:
    row = await db.prepare(GET_SQL).bind(memory_id).first()
    if row is None:
        raise NotFound(f"no saved memory with id {memory_id!r}; it may have been deleted")
    return Memory.from_row(row)


async def save(db: Database, fact: str, source_message_id: str | None, now_ms: int) -> Memory:
    """Save an approved fact (`source_message_id`: the message it came from; 404 when it
    names none)."""
    if source_message_id is not None and \
            await db.prepare(SOURCE_SQL).bind(source_message_id).first() is None:
        raise NotFound(f"no message with id {source_message_id!r} to save a memory from; "
                       "it may have been deleted")
    await db.prepare(ENSURE_CONVERSATION_SQL).bind(
        chats.SAVED_MEMORIES_ID, chats.SAVED_MEMORIES_TITLE, now_ms).run()
    memory_id = chats.new_id()
    await chats.append_message(
        db, chats.SAVED_MEMORIES_ID, "user", fact, now_ms, message_id=memory_id,
        after=[db.prepare(SAVE_SQL).bind(memory_id, source_message_id, now_ms)])
    return await get_memory(db, memory_id)


async def delete(db: Database, memory_id: str, now_ms: int) -> Forgotten:
    await get_memory(db, memory_id)  # 404s: only a saved memory goes this way
    return await forget.delete_message(db, memory_id, now_ms)


async def edit(db: Database, memory_id: str, fact: str, now_ms: int
               ) -> tuple[Memory, Forgotten]:
    """The new fact saved in the old one's place (a new id), the old one forgotten."""
    old = await get_memory(db, memory_id)
    gone = await forget.delete_message(db, memory_id, now_ms)
    return await save(db, fact, old.source_message_id, now_ms), gone

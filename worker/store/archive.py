"""Import and export of conversations (README, "Import and export").

Import stores each new turn through the chat store (`chats.append_message`), so an
imported message is indexed as conversation units, recalled and deep-linked like one
written here. Ids are content-addressed (shared/archive/records.py): a turn already
stored is skipped, so importing the same file twice adds nothing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from shared.archive.records import ImportedConversation
from worker.db import Database
from worker.store import chats
from worker.store import feedback as feedback_store

INSERT_IMPORTED_CONVERSATION_SQL = """
INSERT INTO conversations (id, title, created_at, updated_at, incognito)
VALUES (?1, ?2, ?3, ?4, ?5)
ON CONFLICT (id) DO NOTHING
"""
PRESENT_MESSAGES_SQL = "SELECT id FROM messages WHERE id IN (SELECT value FROM json_each(?1))"
EXPORT_CONVERSATIONS_SQL = """
SELECT id, title, created_at, updated_at, incognito FROM conversations
ORDER BY created_at, id
"""
EXPORT_MESSAGES_SQL = f"""
SELECT id, conversation_id, seq, role, content, sources, created_at,
       {chats.JUDGMENTS_OF.format("messages")}, {chats.NOTE_VAULTS_OF.format("messages")}
FROM messages ORDER BY conversation_id, seq
"""


@dataclass(frozen=True)
class Imported:
    conversations: int  # conversations that gained at least one message
    added: int  # messages stored now
    present: int  # messages that were already stored (a re-import)


async def import_conversations(db: Database, conversations: Sequence[ImportedConversation]
                               ) -> Imported:
    touched = added = present = 0
    for conv in conversations:
        ids = [m.id for m in conv.messages]
        rows = (await db.prepare(PRESENT_MESSAGES_SQL).bind(json.dumps(ids)).all()).results
        stored = {str(r["id"]) for r in rows}
        present += len(stored)
        new = [m for m in conv.messages if m.id not in stored]
        if not new:
            continue
        await db.prepare(INSERT_IMPORTED_CONVERSATION_SQL).bind(
            conv.id, conv.title, conv.created_at, conv.updated_at, int(conv.incognito)).run()
        for message in new:
            await chats.append_message(db, conv.id, message.role, message.content,
                                       message.created_at, message_id=message.id,
                                       sources=list(message.sources))
        touched += 1
        added += len(new)
    return Imported(conversations=touched, added=added, present=present)


async def export_rows(db: Database) -> tuple[list[dict[str, Any]], list[chats.Message],
                                             list[dict[str, Any]]]:
    """Every conversation, every message (with its sources and judgments) and every
    judgment of a source, oldest first."""
    conversations = (await db.prepare(EXPORT_CONVERSATIONS_SQL).all()).results
    messages = [chats.Message.from_row(r)
                for r in (await db.prepare(EXPORT_MESSAGES_SQL).all()).results]
    return conversations, messages, await feedback_store.export_rows(db)

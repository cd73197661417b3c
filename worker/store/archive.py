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

from shared.archive.records import (
    ImportedConversation,
    ImportedJudgment,
    ImportedMemory,
    ImportedQuote,
)
from worker.db import Database
from worker.store import chats
from worker.store import feedback as feedback_store

INSERT_IMPORTED_CONVERSATION_SQL = """
INSERT INTO conversations (id, title, created_at, updated_at, incognito)
VALUES (?1, ?2, ?3, ?4, ?5)
ON CONFLICT (id) DO NOTHING
"""
# An imported withdrawn answer (?1), just inserted with no text: withdrawn as of when it was
# written, the earliest it can have been (the export does not say when). It is stored with
# no unit of its own (chats.append_message's `indexed`), as a withdrawal leaves it.
MARK_WITHDRAWN_SQL = """
UPDATE messages SET withdrawn_at = created_at WHERE id = ?1 AND role = 'assistant'
"""
PRESENT_MESSAGES_SQL = """
SELECT id, 0 AS forgotten FROM messages WHERE id IN (SELECT value FROM json_each(?1))
UNION ALL
SELECT id, 1 FROM forgotten_messages WHERE id IN (SELECT value FROM json_each(?1))
"""
# The saved memories of an export (?1 JSON [{id, source_message_id, created_at}]) whose
# messages are stored in the saved-memories conversation (?2) now.
RESTORE_MEMORIES_SQL = """
INSERT INTO saved_memories (message_id, source_message_id, created_at)
SELECT m.id, src.id, json_extract(j.value, '$.created_at')
FROM json_each(?1) AS j
JOIN messages AS m ON m.id = json_extract(j.value, '$.id') AND m.conversation_id = ?2
LEFT JOIN messages AS src ON src.id = json_extract(j.value, '$.source_message_id')
WHERE true
ON CONFLICT (message_id) DO NOTHING
RETURNING message_id
"""
# The owner's judgments of an export (?1 JSON, as worker/store/feedback.py records them)
# whose answer and judged document are stored: a note by its vault's name and path, a
# message by its id. A judgment already stored for that source is kept.
RESTORE_FEEDBACK_SQL = """
INSERT INTO recall_feedback (message_rid, n, query_hash, judgment, note_rid, doc_message_rid,
                             created_at)
SELECT a.rid, json_extract(j.value, '$.n'), json_extract(j.value, '$.query_hash'),
       json_extract(j.value, '$.judgment'), n.rid, d.rid,
       json_extract(j.value, '$.created_at')
FROM json_each(?1) AS j
JOIN messages AS a ON a.id = json_extract(j.value, '$.answer_id') AND a.role = 'assistant'
                  AND a.withdrawn_at IS NULL
LEFT JOIN vaults AS v ON v.name = json_extract(j.value, '$.vault')
LEFT JOIN vault_notes AS n ON n.vid = v.vid AND n.path = json_extract(j.value, '$.path')
LEFT JOIN messages AS d ON d.id = json_extract(j.value, '$.message_id')
                       AND d.withdrawn_at IS NULL
WHERE (n.rid IS NULL) != (d.rid IS NULL)
ON CONFLICT (message_rid, n) DO NOTHING
RETURNING rid
"""
EXPORT_CONVERSATIONS_SQL = """
SELECT id, title, created_at, updated_at, incognito FROM conversations
ORDER BY created_at, id
"""
EXPORT_MESSAGES_SQL = f"""
SELECT id, conversation_id, seq, role, content, sources, created_at, withdrawn_at,
       {chats.JUDGMENTS_OF.format("messages")}, {chats.CITED_NOTES_OF.format("messages")}
FROM messages ORDER BY conversation_id, seq
"""


@dataclass(frozen=True)
class Imported:
    conversations: int  # conversations that gained at least one message
    added: int  # messages stored now
    present: int  # messages that were already stored (a re-import)
    forgotten: int = 0  # messages the owner forgot since: never brought back


async def import_conversations(db: Database, conversations: Sequence[ImportedConversation]
                               ) -> Imported:
    touched = added = present = forgotten = 0
    for conv in conversations:
        ids = [m.id for m in conv.messages]
        rows = (await db.prepare(PRESENT_MESSAGES_SQL).bind(json.dumps(ids)).all()).results
        stored = {str(r["id"]) for r in rows}
        gone = sum(1 for r in rows if r["forgotten"])
        present, forgotten = present + len(stored) - gone, forgotten + gone
        new = [m for m in conv.messages if m.id not in stored]
        if not new:
            continue
        await db.prepare(INSERT_IMPORTED_CONVERSATION_SQL).bind(
            conv.id, conv.title, conv.created_at, conv.updated_at, int(conv.incognito)).run()
        for message in new:
            await chats.append_message(
                db, conv.id, message.role, message.content, message.created_at,
                message_id=message.id, sources=list(message.sources),
                after=[db.prepare(MARK_WITHDRAWN_SQL).bind(message.id)]
                if message.withdrawn else (), indexed=not message.withdrawn)
        touched += 1
        added += len(new)
    return Imported(conversations=touched, added=added, present=present, forgotten=forgotten)


# What each answer was shown of the past messages (message_quotes), by id.
EXPORT_QUOTES_SQL = """
SELECT m.id AS answer_id, q.id AS quoted_id
FROM message_quotes AS x
JOIN messages AS m ON m.rid = x.message_rid
JOIN messages AS q ON q.rid = x.quoted_rid
ORDER BY m.id, q.id
"""
# ?1: [{answer_id, quoted_id}, ...]; a pair whose messages are not both stored is skipped.
RESTORE_QUOTES_SQL = """
INSERT OR IGNORE INTO message_quotes (message_rid, quoted_rid)
SELECT m.rid, q.rid FROM json_each(?1) AS j
JOIN messages AS m ON m.id = json_extract(j.value, '$.answer_id')
JOIN messages AS q ON q.id = json_extract(j.value, '$.quoted_id')
RETURNING message_rid
"""


EXPORT_FORGOTTEN_SQL = "SELECT id FROM forgotten_messages ORDER BY id"
# ?1: message ids forgotten where the export was made; one stored here is left as it is.
RESTORE_FORGOTTEN_SQL = """
INSERT OR IGNORE INTO forgotten_messages (id, forgotten_at)
SELECT j.value, ?2 FROM json_each(?1) AS j
WHERE NOT EXISTS (SELECT 1 FROM messages AS m WHERE m.id = j.value)
RETURNING id
"""


async def export_forgotten(db: Database) -> list[str]:
    return [str(r["id"]) for r in (await db.prepare(EXPORT_FORGOTTEN_SQL).all()).results]


async def restore_forgotten(db: Database, ids: Sequence[str], now_ms: int) -> int:
    """An export's forgotten ids, before its conversations: what was forgotten there stays
    forgotten here, whatever older export is imported next."""
    if not ids:
        return 0
    done = await db.prepare(RESTORE_FORGOTTEN_SQL).bind(json.dumps(list(ids)), now_ms).all()
    return len(done.results)


@dataclass(frozen=True)
class Restored:
    feedback: int  # judgments stored now
    saved_memories: int
    quotes: int = 0  # what answers were shown, restored now


async def restore_extras(db: Database, feedback: Sequence[ImportedJudgment],
                         saved: Sequence[ImportedMemory],
                         quotes: Sequence[ImportedQuote] = ()) -> Restored:
    """A Mallory export's judgments, saved memories and quotes, once its conversations are
    in: those whose messages (and judged notes) are stored; none twice."""
    judged = json.dumps([{"answer_id": f.answer_id, "n": f.n, "judgment": f.judgment,
                          "query_hash": f.query_hash, "created_at": f.created_at,
                          "vault": f.note[0] if f.note else None,
                          "path": f.note[1] if f.note else None,
                          "message_id": f.message_id} for f in feedback])
    memories = json.dumps([{"id": m.id, "source_message_id": m.source_message_id,
                            "created_at": m.created_at} for m in saved])
    quoted = json.dumps([{"answer_id": q.answer_id, "quoted_id": q.quoted_id}
                         for q in quotes])
    done = await db.batch([db.prepare(RESTORE_FEEDBACK_SQL).bind(judged),
                           db.prepare(RESTORE_MEMORIES_SQL).bind(memories,
                                                                 chats.SAVED_MEMORIES_ID),
                           db.prepare(RESTORE_QUOTES_SQL).bind(quoted)])
    return Restored(feedback=len(done[0].results), saved_memories=len(done[1].results),
                    quotes=len(done[2].results))


async def export_quotes(db: Database) -> list[dict[str, Any]]:
    """Every (answer, past message it was shown) pair, by id."""
    return list((await db.prepare(EXPORT_QUOTES_SQL).all()).results)


async def export_rows(db: Database) -> tuple[list[dict[str, Any]], list[chats.Message],
                                             list[dict[str, Any]]]:
    """Every conversation, every message (with its sources and judgments) and every
    judgment of a source, oldest first."""
    conversations = (await db.prepare(EXPORT_CONVERSATIONS_SQL).all()).results
    messages = [chats.Message.from_row(r)
                for r in (await db.prepare(EXPORT_MESSAGES_SQL).all()).results]
    return conversations, messages, await feedback_store.export_rows(db)

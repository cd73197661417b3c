"""migrations/0013 and worker/store/memories.py on the local SQLite adapter and on real D1
in Miniflare: a saved memory is a message of the saved-memories conversation with its
row; forgetting its message deletes the row, forgetting its source keeps the memory; and
every forgotten message id is kept, so an import can refuse to bring it back."""

from __future__ import annotations

import pytest

from worker.db import Database
from worker.store import chats, forget, memories

pytestmark = pytest.mark.miniflare

FORGOTTEN_SQL = "SELECT id FROM forgotten_messages ORDER BY id"
ROWS_SQL = "SELECT message_id, source_message_id FROM saved_memories ORDER BY message_id"


async def test_saved_memories_and_forgotten_ids(port: Database) -> None:
    await chats.append_message(port, "c", "user", "Remember that the gate code is 7781", 1,
                               message_id="src", new_conversation=True)
    kept = await memories.save(port, "The gate code is 7781", "src", 2)
    other = await memories.save(port, "Anna likes tulips", None, 3)
    assert [m.id for m in await memories.list_memories(port)] == [other.id, kept.id]
    assert (kept.source_message_id, kept.source_conversation_id) == ("src", "c")
    message, _ = await chats.get_message(port, kept.id)
    assert (message.conversation_id, message.content) == (chats.SAVED_MEMORIES_ID,
                                                          "The gate code is 7781")

    await forget.delete_message(port, "src", 4)  # the source goes, the memory stays
    assert (await memories.get_memory(port, kept.id)).source_message_id is None
    gone = await memories.delete(port, other.id, 5)
    assert gone.messages == 1
    rows = (await port.prepare(ROWS_SQL).all()).results
    assert rows == [{"message_id": kept.id, "source_message_id": None}]
    forgotten = [r["id"] for r in (await port.prepare(FORGOTTEN_SQL).all()).results]
    assert forgotten == sorted(["src", other.id])
    await forget.delete_conversation(port, chats.SAVED_MEMORIES_ID, 6)  # the cascade too
    assert (await port.prepare(ROWS_SQL).all()).results == []
    assert kept.id in [r["id"] for r in (await port.prepare(FORGOTTEN_SQL).all()).results]

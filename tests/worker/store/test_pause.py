"""Pausing memory on real SQLite: what resume indexes."""

from __future__ import annotations

from local.sqlite_db import SqliteDatabase
from tests.conftest import NOW_MS
from worker.offline_replies import NOTHING_FOUND
from worker.store import chats, pause


async def units(db: SqliteDatabase) -> list[tuple[str | None, str | None]]:
    rows = (await db.prepare("SELECT question_id, answer_id FROM conversation_units "
                             "ORDER BY rowid").all()).results
    return [(r["question_id"], r["answer_id"]) for r in rows]


async def test_resume_indexes_the_owner_and_leaves_a_reply_that_is_no_memory(
        db: SqliteDatabase) -> None:
    await pause.pause(db, NOW_MS)
    await chats.append_message(db, "c", "user", "who fixes the radiator?", NOW_MS,
                               message_id="q", new_conversation=True)
    await chats.append_message(db, "c", "assistant", NOTHING_FOUND, NOW_MS + 1, message_id="a")
    await chats.append_message(db, "c", "user", "Ottavio fixes it on Thursday.", NOW_MS + 2,
                               message_id="q2")
    await chats.append_message(db, "c", "assistant", "Noted: Ottavio, Thursday.", NOW_MS + 3,
                               message_id="a2")
    assert await units(db) == []
    assert await pause.resume(db) == 3
    assert await units(db) == [("q", None), ("q2", "a2")]
    # The "found nothing" is never fetched again as a message still to index.
    assert await pause.catch_up(db) == 0

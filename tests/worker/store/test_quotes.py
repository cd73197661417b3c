"""The quotes store on real SQLite: what an answer was shown of past messages, recorded in
its own batch; an answer whose quoted message was forgotten meanwhile is withdrawn at once
and leaves the conversation index."""

from __future__ import annotations

from local.sqlite_db import SqliteDatabase
from tests.conftest import NOW_MS
from worker.store import chats, quotes


async def answer(db: SqliteDatabase, quoted: list[str], replied: list[str]) -> None:
    await chats.append_message(db, "later", "user", "where are the okapis?", NOW_MS + 5,
                               message_id="ask", new_conversation=True)
    await chats.append_message(db, "later", "assistant", "In the forest.", NOW_MS + 6,
                               message_id="answer", after=quotes.record_statements(
                                   db, "answer", quoted, replied, NOW_MS + 6))


async def quoted_ids(db: SqliteDatabase) -> list[str]:
    rows = (await db.prepare("SELECT q.id FROM message_quotes JOIN messages AS q "
                             "ON q.rid = quoted_rid ORDER BY q.id").all()).results
    return [r["id"] for r in rows]


async def test_an_answer_quotes_what_it_was_shown_with_the_attached_reply(
        db: SqliteDatabase) -> None:
    await chats.append_message(db, "zoo", "user", "okapis live in the forest", NOW_MS,
                               message_id="fact", new_conversation=True)
    await chats.append_message(db, "zoo", "assistant", "Noted: the forest.", NOW_MS + 1,
                               message_id="noted")
    await answer(db, ["fact"], ["fact"])
    assert await quoted_ids(db) == ["fact", "noted"]
    row = await db.prepare("SELECT withdrawn_at FROM messages WHERE id = 'answer'").first()
    assert row == {"withdrawn_at": None}


async def test_an_answer_quoting_a_message_gone_meanwhile_is_withdrawn(
        db: SqliteDatabase) -> None:
    await answer(db, ["forgotten-meanwhile"], [])
    row = await db.prepare("SELECT withdrawn_at FROM messages WHERE id = 'answer'").first()
    assert row == {"withdrawn_at": NOW_MS + 6}
    units = (await db.prepare("SELECT question_id, answer_id FROM conversation_units")
             .all()).results
    assert units == [{"question_id": "ask", "answer_id": None}]  # the question alone

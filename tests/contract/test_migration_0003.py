"""migrations/0003 (conversation units) on a database holding 0002-era messages, on the
local SQLite adapter and on real D1 in Miniflare: every owner message becomes a unit with
the reply that follows it, a reply with no question its own unit, a withdrawn reply is
left out; the units' FTS index and corpus count follow, and explicit search (the current
code, after every later migration) finds a reply by its words."""

from __future__ import annotations

from pathlib import Path

import pytest

from local.migrate import migrate
from tests.conftest import NOW_MS
from tests.contract.history import migrations_before
from tests.rows import one
from worker.db import Database
from worker.recall.explicit import search

pytestmark = pytest.mark.miniflare

# What the 0002-era chat store wrote (worker/store/chats.py before 0003).
CONVERSATION_0002 = ("INSERT INTO conversations (id, title, created_at, updated_at) "
                     "VALUES (?1, ?1, ?2, ?2)")
MESSAGE_0002 = """
INSERT INTO messages (id, conversation_id, seq, role, content, created_at, withdrawn_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
"""
MINUTE = 60_000
# (id, conversation, seq, role, content, withdrawn)
MESSAGES = [
    ("q1", "c1", 1, "user", "How should I clean the cast iron pan?", None),
    ("a1", "c1", 2, "assistant", "Scrub it with coarse salt, then oil it lightly.", None),
    ("q2", "c1", 3, "user", "And the kettle?", None),  # never answered
    ("a0", "c2", 1, "assistant", "Welcome back: the boiler service is on Friday.", None),
    ("q3", "c2", 2, "user", "What did the lighthouse note say?", None),
    ("a3", "c2", 3, "assistant", "It quoted a deleted note about the lantern.", NOW_MS),
]
UNITS = "SELECT id, question_id, answer_id, part, question, answer FROM conversation_units"


async def at_0002(db: Database, tmp_path: Path) -> None:
    await migrate(db, migrations_before(tmp_path, "0003"))
    for conversation in ("c1", "c2"):
        await db.prepare(CONVERSATION_0002).bind(conversation, NOW_MS - 60 * MINUTE).run()
    for i, (mid, conversation, seq, role, content, withdrawn) in enumerate(MESSAGES):
        await db.prepare(MESSAGE_0002).bind(mid, conversation, seq, role, content,
                                            NOW_MS - (30 - i) * MINUTE, withdrawn).run()


async def test_0003_turns_stored_messages_into_conversation_units(blank: Database,
                                                                  tmp_path: Path) -> None:
    await at_0002(blank, tmp_path)
    assert await migrate(blank, migrations_before(tmp_path, "0004")) == [
        "0003_conversation_units.sql"]
    units = {r["id"]: r for r in (await blank.prepare(UNITS).all()).results}
    assert {i: (u["question_id"], u["answer_id"], u["part"]) for i, u in units.items()} == {
        "a1:0": ("q1", "a1", 0),   # the question with the reply that follows it
        "q2:0": ("q2", None, 0),   # a question never answered
        "a0:0": (None, "a0", 0),   # Mallory spoke first
        "q3:0": ("q3", None, 0),   # its reply was withdrawn: its text is never recalled
    }
    assert (units["a1:0"]["question"], units["a1:0"]["answer"]) == (MESSAGES[0][4],
                                                                    MESSAGES[1][4])
    docs = (await one(blank.prepare(
        "SELECT docs FROM corpus_stats WHERE corpus = 'messages'")))["docs"]
    assert docs == 4
    found = (await blank.prepare(
        "SELECT u.id FROM conversation_units_fts AS f JOIN conversation_units AS u "
        "ON u.rid = f.rowid WHERE conversation_units_fts MATCH ? ORDER BY u.id")
        .bind("salt").all()).results
    assert [r["id"] for r in found] == ["a1:0"]
    withdrawn = (await blank.prepare(
        "SELECT rowid FROM conversation_units_fts WHERE conversation_units_fts MATCH ?")
        .bind("lantern").all()).results
    assert withdrawn == []

async def test_units_made_by_0003_are_found_by_todays_search(blank: Database,
                                                             tmp_path: Path) -> None:
    await at_0002(blank, tmp_path)
    await migrate(blank)
    result = await search(blank, "coarse salt cast iron", NOW_MS)
    assert result.hits and result.hits[0].identity.kind == "message"
    assert result.hits[0].identity.id == "a1"  # the reply holds the matched words (the /?msg= link)
    assert not [h for h in (await search(blank, "lantern", NOW_MS)).hits
                if h.identity.kind == "message"]

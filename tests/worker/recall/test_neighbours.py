"""worker/recall/neighbours.py on real SQLite: a recalled owner message brings Mallory's
reply, a conversation hit the turns around it within its reach, both in one D1 call."""

from __future__ import annotations

from local.sqlite_db import SqliteDatabase
from tests.builders import Counted, candidate
from tests.conftest import NOW_MS
from worker.recall.neighbours import NEIGHBOUR_TURNS, SHORT_UNIT_TURNS, with_turns
from worker.store import chats

LONG = "the allotment plot by the river floods every spring " * 4  # over SHORT_UNIT_CHARS


async def chat(db: SqliteDatabase, conversation: str, texts: list[str]) -> None:
    await chats.create_conversation(db, conversation, NOW_MS, conversation)
    for i, text in enumerate(texts):
        await chats.append_message(db, conversation, "user" if i % 2 == 0 else "assistant",
                                   text, NOW_MS + i, message_id=f"{conversation}{i}")


async def test_replies_and_the_turns_around_each_hit_come_in_one_call(
        db: SqliteDatabase) -> None:
    await chat(db, "s", [f"short {i}" for i in range(9)])
    await chat(db, "l", [f"{LONG}{i}" for i in range(9)])
    short = candidate("s4", kind="message", group="s", unit="us4", covers=("s4",),
                      role="user", text="short 4")
    long = candidate("l4", kind="message", group="l", unit="ul4", covers=("l4",),
                     role="user", text=f"{LONG}4")
    counted = Counted(db)
    got = {h.identity.id: h for h in await with_turns(counted, [short, long])}  # type: ignore[arg-type]
    assert len(counted.calls) == 1 and len(counted.calls[0]) == 2
    assert got["s4"].message.reply == "short 5" and got["l4"].message.reply == f"{LONG}5"
    # A short unit reaches SHORT_UNIT_TURNS turns each way, a long one NEIGHBOUR_TURNS.
    assert [t.id for t in got["s4"].message.around] == [
        f"s{i}" for i in range(4 - SHORT_UNIT_TURNS, 5 + SHORT_UNIT_TURNS) if i != 4]
    assert [t.id for t in got["l4"].message.around] == [
        f"l{i}" for i in range(4 - NEIGHBOUR_TURNS, 5 + NEIGHBOUR_TURNS) if i != 4]
    assert [t.before for t in got["l4"].message.around] == [True, False]


async def test_a_note_hit_reads_nothing(db: SqliteDatabase) -> None:
    counted = Counted(db)
    hit = candidate("Garden/Shed.md", text="the shed")
    assert await with_turns(counted, [hit]) == [hit]  # type: ignore[arg-type]
    assert counted.calls == []

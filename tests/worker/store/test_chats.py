"""The chats store on real SQLite: appending, paging, lookups, replies."""

from __future__ import annotations

import pytest

from local.sqlite_db import SqliteDatabase
from shared.api.errors import NotFound
from shared.api.wire import Source
from tests.conftest import NOW_MS
from worker.store import chats


async def test_append_numbers_messages_and_bumps_the_conversation(db: SqliteDatabase) -> None:
    first = await chats.append_message(db, "c", "user", "hello there", NOW_MS,
                                       new_conversation=True)
    second = await chats.append_message(db, "c", "assistant", "hi", NOW_MS + 5,
                                        sources=[Source(n=1, kind="note", id="a.md", label="A",
                                                        snippet="s", href="obsidian://x")])
    assert (first.seq, second.seq) == (1, 2)
    conversation = await chats.get_conversation(db, "c")
    assert conversation["title"] == "hello there"
    assert conversation["updated_at"] == NOW_MS + 5
    stored, newer = await chats.get_message(db, second.id)
    assert stored.sources[0].id == "a.md" and newer == 0


async def test_a_failed_first_message_leaves_no_empty_conversation(db: SqliteDatabase) -> None:
    await chats.append_message(db, "c", "user", "one", NOW_MS, message_id="dup",
                               new_conversation=True)
    with pytest.raises(Exception):  # noqa: B017 - the id clash is a ConstraintError
        await chats.append_message(db, "d", "user", "two", NOW_MS, message_id="dup",
                                   new_conversation=True)
    with pytest.raises(NotFound):
        await chats.get_conversation(db, "d")


async def test_pages_are_newest_first(db: SqliteDatabase) -> None:
    for i in range(5):
        await chats.append_message(db, "c", "user", f"m{i}", NOW_MS + i, message_id=f"m{i}",
                                   new_conversation=i == 0)
    page = await chats.page_messages(db, "c", None, 2)
    assert [m.id for m in page] == ["m4", "m3"]
    older = await chats.page_messages(db, "c", page[-1].seq, 10)
    assert [m.id for m in older] == ["m2", "m1", "m0"]
    with pytest.raises(NotFound):
        await chats.page_messages(db, "missing", None, 2)


async def test_replies_to_finds_the_next_assistant_message_only(db: SqliteDatabase) -> None:
    for i, (role, text) in enumerate([("user", "q1"), ("assistant", "a1"), ("user", "q2"),
                                      ("user", "q3"), ("assistant", "a3")]):
        await chats.append_message(db, "c", role, text, NOW_MS + i, message_id=text,
                                   new_conversation=i == 0)
    found = await chats.replies_statement(db, ["q1", "q2", "q3", "nope"]).all()
    assert chats.replies_from(found.results) == {"q1": "a1", "q3": "a3"}

"""The benchmark's seam to the system under test, on real SQLite: modes, and the Recall
block built exactly as the chat path builds it."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator

import pytest

from bench.system import BUILDERS, DEFAULT_MODE, MODES, ModeUnavailable, build, require
from local.migrate import migrate
from local.sqlite_db import SqliteDatabase
from tests.conftest import DAY_MS, NOW_MS, note, store_notes
from worker.recall.automatic import automatic_recall
from worker.store import chats


async def fill(db: SqliteDatabase) -> None:
    await migrate(db)
    await store_notes(
        db, note("Recipes/Sourdough.md", "Bake the sourdough at 250 degrees with steam.",
                 title="Sourdough"),
        note("Home/Car.md", "The car service is due in March.", title="Car maintenance"))
    await chats.create_conversation(db, "eyes", NOW_MS - 40 * DAY_MS, "c")
    await chats.append_message(db, "c", "user", "how do I rest my eyes from screens?",
                               NOW_MS - 40 * DAY_MS, message_id="q")
    await chats.append_message(db, "c", "assistant", "Use the 20-20-20 rule for your eyes.",
                               NOW_MS - 40 * DAY_MS + 5, message_id="a")


@pytest.fixture
def db() -> Iterator[SqliteDatabase]:
    # Synchronous: the seam's callables run their own event loop, as the benchmark does.
    database = SqliteDatabase(":memory:")
    asyncio.run(fill(database))
    yield database
    database.close()


def test_the_default_mode_is_built_and_the_others_are_refused_clearly() -> None:
    assert DEFAULT_MODE in BUILDERS and set(BUILDERS) <= set(MODES)
    for mode in set(MODES) - set(BUILDERS):
        with pytest.raises(ModeUnavailable,
                           match=f"mode {mode} is not available in this build"):
            require(mode)
    with pytest.raises(ModeUnavailable, match="unknown mode 'fast'"):
        require("fast")


def test_explicit_hits_are_doc_ids(db: SqliteDatabase) -> None:
    system = build(db, NOW_MS, "lexical")
    assert system.mode == "lexical"
    assert system.ranked("sourdough")[0] == ("note:Recipes/Sourdough.md",)
    assert system.ranked("zzzz qqqq") == []


def test_injected_hits_come_with_the_chat_paths_own_block(db: SqliteDatabase) -> None:
    text = "how should I rest my eyes from screens"
    injection = build(db, NOW_MS).injected(text)
    chat = asyncio.run(automatic_recall(db, text, NOW_MS, message_id="new",
                                        conversation_id="other"))
    # The chat path weighs statistics as if its own message were not indexed
    # (text_is_stored), so its estimate may differ in the last digit; the rest is the same.
    def unweighed(block: str) -> str:
        return re.sub(r"; confidence \d\.\d\d", "", block)

    assert unweighed(injection.block) == unweighed(chat.block)
    assert "20-20-20" in injection.block
    assert re.search(r"; confidence [01]\.\d\d\)", injection.block)
    assert re.search(r"; confidence [01]\.\d\d\)", chat.block)
    assert [sorted(h) for h in injection.hits] == [["msg:a", "msg:q"]]  # one unit
    assert injection.parents == ("message:c",)


def test_nothing_reliable_is_an_empty_injection(db: SqliteDatabase) -> None:
    injection = build(db, NOW_MS).injected("thanks, that was great")
    assert (injection.hits, injection.block, injection.parents) == ([], "", ())

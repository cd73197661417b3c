"""Withdrawal follows quotes to any depth and redacts, on real SQLite through the stores:
an answer that quoted a withdrawn answer is withdrawn too, in the same batch, however long
the chain, whether the first withdrawal came from a forgotten message or a deleted note;
and an answer that quotes one already withdrawn is withdrawn as it is stored."""

from __future__ import annotations

import json
from collections.abc import Sequence

from local.sqlite_db import SqliteDatabase
from tests.conftest import NOW_MS, note, store_notes
from tests.rows import one
from worker.store import chats, citations, forget, quotes
from worker.store.citations import Citation

NOTE = note("Home/Locker.md", "The garage locker code is 4471. The pump is on the shelf.",
            title="Locker")


async def answer(db: SqliteDatabase, name: str, quoting: list[str], at: int,
                 cited: Sequence[Citation] = ()) -> None:
    """An exchange in conversation `name`: a question, and an answer that was shown the
    messages `quoting` (and cited the notes `cited`)."""
    await chats.append_message(db, name, "user", f"question {name}", at,
                               message_id=f"q-{name}", new_conversation=True)
    await chats.append_message(
        db, name, "assistant", f"answer {name}: the code is 4471", at + 1,
        message_id=f"a-{name}", sources=[],
        after=[*citations.record_statements(db, f"a-{name}", list(cited), at + 1),
               *quotes.record_statements(db, f"a-{name}", quoting, [], at + 1)])


async def states(db: SqliteDatabase) -> dict[str, tuple[bool, str]]:
    rows = (await db.prepare("SELECT id, withdrawn_at, content FROM messages "
                             "WHERE role = 'assistant' ORDER BY id").all()).results
    return {r["id"]: (r["withdrawn_at"] is not None, r["content"]) for r in rows}


async def chain(db: SqliteDatabase, first_quotes: list[str],
                cited: Sequence[Citation] = ()) -> None:
    """a-1 quotes `first_quotes`; a-2 quotes only a-1, a-3 only a-2, a-4 only a-3; a-x
    quotes nothing."""
    await answer(db, "1", first_quotes, NOW_MS + 10, cited)
    for depth in (2, 3, 4):
        await answer(db, str(depth), [f"a-{depth - 1}"], NOW_MS + 10 * depth)
    await answer(db, "x", [], NOW_MS + 90)


async def test_forgetting_a_message_withdraws_the_whole_chain_of_quotes(
        db: SqliteDatabase) -> None:
    await chats.append_message(db, "fact", "user", "the garage locker code is 4471", NOW_MS,
                               message_id="fact", new_conversation=True)
    await chain(db, ["fact"])
    forgotten = await forget.delete_message(db, "fact", NOW_MS + 100)
    assert sorted(forgotten.withdrawn_ids) == ["a-1", "a-2", "a-3", "a-4"]
    assert await states(db) == {"a-1": (True, ""), "a-2": (True, ""), "a-3": (True, ""),
                                "a-4": (True, ""),
                                "a-x": (False, "answer x: the code is 4471")}
    units = (await db.prepare("SELECT count(*) AS n FROM conversation_units "
                              "WHERE answer_id IS NOT NULL").first())
    assert units == {"n": 1}  # only a-x's exchange is still indexed as one


async def test_deleting_a_note_withdraws_the_whole_chain_and_its_citations(
        db: SqliteDatabase) -> None:
    await store_notes(db, NOTE, batch_id="seed")
    vid = (await one(db.prepare("SELECT vid FROM vaults")))["vid"]
    await chain(db, [], [Citation(vid=vid, path=NOTE.path, excerpt="locker code is 4471")])
    result = await store_notes(db, deletes=[{"path": NOTE.path, "deleted_at": NOW_MS + 95}],
                               batch_id="gone", now_ms=NOW_MS + 100)
    assert result.withdrawn == 4
    assert [k for k, (w, text) in (await states(db)).items() if w and text == ""] == [
        "a-1", "a-2", "a-3", "a-4"]
    left = await db.prepare("SELECT count(*) AS n FROM message_citations").first()
    assert left == {"n": 0}  # their excerpts held the note's text


async def test_editing_the_quoted_fact_out_of_a_note_withdraws_the_chain(
        db: SqliteDatabase) -> None:
    await store_notes(db, NOTE, batch_id="seed")
    vid = (await one(db.prepare("SELECT vid FROM vaults")))["vid"]
    await chain(db, [], [Citation(vid=vid, path=NOTE.path, excerpt="locker code is 4471")])
    edited = note(NOTE.path, "The pump is on the shelf.", title="Locker", mtime=NOW_MS)
    result = await store_notes(db, edited, batch_id="edit", now_ms=NOW_MS + 100)
    assert result.withdrawn == 4
    assert (await states(db))["a-4"] == (True, "")


async def test_an_answer_quoting_an_answer_withdrawn_meanwhile_is_withdrawn_at_once(
        db: SqliteDatabase) -> None:
    await chats.append_message(db, "fact", "user", "the garage locker code is 4471", NOW_MS,
                               message_id="fact", new_conversation=True)
    await answer(db, "1", ["fact"], NOW_MS + 10)
    await forget.delete_message(db, "fact", NOW_MS + 20)
    # Recalled before the forget, stored after it.
    await answer(db, "late", ["a-1"], NOW_MS + 30)
    assert (await states(db))["a-late"] == (True, "")
    row = await one(db.prepare("SELECT sources FROM messages WHERE id = 'a-late'"))
    assert json.loads(row["sources"]) == []

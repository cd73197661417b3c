"""migrations/0012 and worker/store/pause.py on the local SQLite adapter and on real D1 in
Miniflare: an incognito conversation's messages get no conversation unit (so no FTS row,
no vector), any message written while memory is paused gets none until it resumes, and
resuming indexes exactly what was written meanwhile, as the chat store would have."""

from __future__ import annotations

import pytest

from worker.db import Database
from worker.store import chats, pause

pytestmark = pytest.mark.miniflare

UNITS_SQL = """
SELECT id, question_id, answer_id, question, answer FROM conversation_units ORDER BY id
"""
MATCH_SQL = ("SELECT count(*) AS n FROM conversation_units_fts "
             "WHERE conversation_units_fts MATCH ?1")


async def exchange(db: Database, conv: str, question: str, reply: str, at: int, *,
                   new: bool = True, incognito: bool = False) -> None:
    await chats.append_message(db, conv, "user", question, at, message_id=f"q-{conv}-{at}",
                               new_conversation=new, incognito=incognito)
    await chats.append_message(db, conv, "assistant", reply, at + 1,
                               message_id=f"a-{conv}-{at}")


async def units(db: Database) -> list[dict]:
    return (await db.prepare(UNITS_SQL).all()).results


async def matches(db: Database, word: str) -> int:
    return int((await db.prepare(MATCH_SQL).bind(word).first() or {})["n"])


async def test_an_incognito_conversation_is_never_indexed(port: Database) -> None:
    await exchange(port, "open", "the bike lock is blue", "Noted: blue.", 10)
    await exchange(port, "secret", "my therapist is Dr Quenby", "Noted.", 20, incognito=True)
    await chats.append_message(port, "secret", "user", "Quenby again", 30)
    assert [u["id"] for u in await units(port)] == ["a-open-10:0"]
    assert await matches(port, "quenby") == 0 and await matches(port, "blue") == 1
    conversation = await chats.get_conversation(port, "secret")
    assert conversation["incognito"] == 1
    # Resuming (or any catch-up) leaves it out too.
    assert await pause.catch_up(port) == 0
    assert await matches(port, "quenby") == 0


async def test_pause_indexes_nothing_and_resume_catches_up(port: Database) -> None:
    await chats.append_message(port, "c", "user", "where is the ladder?", 1,
                               message_id="q1", new_conversation=True)
    state = await pause.pause(port, 5)
    assert (state.paused, state.paused_at) == (True, 5)
    assert (await pause.pause(port, 9)).paused_at == 5  # a second pause keeps the first
    await chats.append_message(port, "c", "assistant", "In the shed, behind the mower.", 6,
                               message_id="a1")
    await exchange(port, "d", "the wifi password is heliotrope", "Noted.", 7)
    await exchange(port, "e", "incognito while paused: ophiuchus", "Noted.", 8,
                   incognito=True)
    # Nothing written since has a unit (the reply took its question's unit away, as it
    # always does, and wrote none in its place).
    assert await units(port) == []
    assert await matches(port, "heliotrope") == 0

    assert await pause.resume(port) == 4  # q1, a1 and d's two
    assert not (await pause.pause_state(port)).paused
    got = {u["id"]: (u["question_id"], u["answer_id"], u["question"], u["answer"])
           for u in await units(port)}
    # The reply replaced the question-only unit, as when it is written unpaused.
    assert got == {"a1:0": ("q1", "a1", "where is the ladder?",
                            "In the shed, behind the mower."),
                   "a-d-7:0": ("q-d-7", "a-d-7", "the wifi password is heliotrope",
                               "Noted.")}
    assert await matches(port, "heliotrope") == 1 and await matches(port, "ophiuchus") == 0
    assert await pause.catch_up(port) == 0  # nothing left


async def test_a_catch_up_stops_when_memory_is_paused_again(port: Database) -> None:
    await pause.pause(port, 1)
    await exchange(port, "c", "the gate code is 7781", "Noted.", 2)
    # Resumed elsewhere, paused again before this catch-up ran: nothing can be indexed,
    # and it ends instead of reading the same messages forever.
    await pause.catch_up(port)
    assert await units(port) == []

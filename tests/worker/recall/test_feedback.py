"""worker/recall/feedback.py on real SQLite: each candidate gets its documents' delta, and
a 👎 for this very question drops it from automatic recall."""

from __future__ import annotations

import pytest

from local.sqlite_db import SqliteDatabase
from shared.knowledge.standing import stand
from shared.rank.candidate import Candidate
from shared.rank.feedback import FEEDBACK_STEP, query_hash
from shared.text.sanitiser import Mode, build_query
from tests.builders import candidate
from tests.conftest import NOW_MS
from worker.recall.feedback import apply_feedback, documents
from worker.store import chats

RECORD = """
INSERT INTO recall_feedback (message_rid, n, query_hash, judgment, doc_message_rid, created_at)
SELECT a.rid, ?2, ?3, ?4, d.rid, ?5 FROM messages AS a, messages AS d
WHERE a.id = 'answer' AND d.id = ?1
"""


async def judged_chat(db: SqliteDatabase) -> None:
    await chats.create_conversation(db, "old", NOW_MS, "old")
    for i, (role, text) in enumerate([("user", "where is the spare key?"),
                                      ("assistant", "In the blue jar.")]):
        await chats.append_message(db, "old", role, text, NOW_MS + i, message_id=f"m{i}")
    await chats.create_conversation(db, "now", NOW_MS, "now")
    await chats.append_message(db, "now", "user", "the spare key?", NOW_MS + 5)
    await chats.append_message(db, "now", "assistant", "[1]", NOW_MS + 6, message_id="answer")


def unit() -> Candidate:
    return candidate("m1", kind="message", group="old", covers=("m1", "m0"))


def test_a_unit_holds_both_its_messages() -> None:
    assert documents(unit()) == ("message:m1", "message:m0")


async def test_a_judgment_of_either_message_moves_the_unit(db: SqliteDatabase) -> None:
    await judged_chat(db)
    await db.prepare(RECORD).bind("m0", 1, query_hash("the spare key?"), "relevant",
                                  NOW_MS).run()
    [found] = await apply_feedback(db, [unit()], NOW_MS)
    assert found.scores.feedback == pytest.approx(FEEDBACK_STEP)
    assert found.scores.final == unit().scores.final  # the standing multiplier carries it
    [stood] = stand([found], build_query("the spare key?", Mode.AUTOMATIC))
    assert stood.scores.final == pytest.approx(unit().scores.final * (1 + FEEDBACK_STEP))


async def test_irrelevant_for_this_question_drops_it_only_here(db: SqliteDatabase) -> None:
    await judged_chat(db)
    await db.prepare(RECORD).bind("m1", 1, query_hash("the spare key?"), "irrelevant",
                                  NOW_MS).run()
    assert await apply_feedback(db, [unit()], NOW_MS,
                                suppress_for=query_hash("The spare key")) == []
    [kept] = await apply_feedback(db, [unit()], NOW_MS,
                                  suppress_for=query_hash("the blue jar"))
    assert kept.scores.feedback == pytest.approx(-FEEDBACK_STEP)


async def test_no_judgments_no_change(db: SqliteDatabase) -> None:
    cands = [candidate("Home/Keys.md"), unit()]
    assert await apply_feedback(db, cands, NOW_MS) == cands

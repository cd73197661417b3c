"""worker/recall/lexical.py on real SQLite: the typo step's searches, what they read and
which of their hits are fuzzy."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from local.sqlite_db import SqliteDatabase
from shared.text.sanitiser import Mode, build_query
from tests.conftest import DAY_MS, NOW_MS, note, store_notes
from worker.corpora import registry
from worker.db.port import Result, Statement
from worker.recall.automatic import candidates
from worker.store import chats

TEXT = "sourdoguh starter?"  # "sourdoguh" is in no document: corrected to "sourdough"


class Batches:
    """The real database, keeping every batch sent as (SQL, parameters) pairs."""

    def __init__(self, db: SqliteDatabase) -> None:
        self.db = db
        self.sent: list[list[tuple[str, tuple]]] = []

    def prepare(self, sql: str) -> Statement:
        return self.db.prepare(sql)

    async def batch(self, statements: Sequence[Statement]) -> list[Result]:
        self.sent.append([(s.sql, tuple(s.params)) for s in statements])
        return await self.db.batch(statements)


@pytest.fixture
async def baked(db: SqliteDatabase) -> SqliteDatabase:
    await store_notes(db, note("Baking/Sourdough.md", "sourdough starter: feed it daily"),
                      note("Baking/Starter.md", "a starter jar, washed weekly"),
                      note("Baking/Bread.md", "sourdough bread with a dark crust"),
                      *(note(f"Misc/m{i}.md", f"unrelated note {i}") for i in range(5)))
    await chats.create_conversation(db, "bread", NOW_MS - DAY_MS, "c1")
    await chats.append_message(db, "c1", "user", "my sourdough loaf came out flat",
                               NOW_MS - DAY_MS, message_id="flat")
    await chats.create_conversation(db, "jar", NOW_MS - DAY_MS, "c2")
    await chats.append_message(db, "c2", "user", "the starter smells of vinegar",
                               NOW_MS - DAY_MS, message_id="vinegar")
    return db


def fuzzy(found) -> dict[tuple[str, str], bool]:
    return {(c.identity.kind, c.identity.id): c.presentation.fuzzy
            for c in found.candidates}


async def test_a_corrected_hit_the_typed_words_did_not_find_is_fuzzy(
        baked: SqliteDatabase) -> None:
    """The gated search marks fuzzy exactly what the search of every row marks: the
    corrected hits that the query as typed did not find."""
    gated, _ = await candidates(baked, TEXT, NOW_MS)
    every, _ = await candidates(baked, TEXT, NOW_MS, every_row=True)
    assert gated.lexical.corrections == every.lexical.corrections == {"sourdoguh": "sourdough"}
    marks = fuzzy(gated)
    assert marks.items() <= fuzzy(every).items()
    assert marks[("note", "Baking/Bread.md")] and marks[("message", "flat")]
    assert not marks[("note", "Baking/Sourdough.md")] and not marks[("note", "Baking/Starter.md")]
    assert not marks[("message", "vinegar")]


async def test_the_typo_step_searches_the_typed_words_once_and_reads_once(
        baked: SqliteDatabase) -> None:
    """Four batches: the typed search's ranking, the vocabulary, the corrected search's
    ranking, and one read of the whole rows of both searches' rows it builds on."""
    db = Batches(baked)
    await candidates(db, TEXT, NOW_MS)
    typed = build_query(TEXT, Mode.AUTOMATIC).match
    searches = [i for i, sent in enumerate(db.sent)
                for sql, params in sent if "MATCH ?1" in sql]
    assert len(db.sent) >= 4
    ranked = {c.ranked_sql for c in registry.corpora()}
    rows = {c.rows_sql for c in registry.corpora()}
    assert [i for i, sent in enumerate(db.sent) for sql, params in sent
            if sql in ranked and params[0] == typed] == [0, 0]
    assert sorted(set(searches)) == [0, 2]
    assert {sql for sql, _ in db.sent[3]} == rows

"""worker/recall/lexical.py on real SQLite: the typo step's searches, what they read and
which of their hits are fuzzy."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest

from local.sqlite_db import SqliteDatabase
from shared.text.sanitiser import Mode, build_query
from tests.conftest import DAY_MS, NOW_MS, note, store_notes
from worker.corpora import registry
from worker.corpora.filters import Filters
from worker.db.port import Result, Statement
from worker.recall.automatic import candidates
from worker.recall.plan import hits_key, plan
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


async def test_the_semantic_first_pass_ranks_the_rows_the_ranked_pass_does_each_whole(
        baked: SqliteDatabase) -> None:
    # Corpus.whole_ranked_sql: the ranked pass's rows, in its order, each as rows_sql reads
    # it, with `embedded` saying whether its unit holds a vector of the model bound last.
    await baked.prepare(
        "INSERT INTO vector_units (vector_id, corpus, unit_id, model, embedded_at, dimensions)"
        " SELECT 'v-' || id, 'messages', id, 'model-a', 0, 4 FROM conversation_units"
    ).run()
    query = build_query("sourdough starter", Mode.AUTOMATIC)
    ranked = {p.key: p for p in plan(query, Filters(limit=10), ranked=True)}
    whole = {p.key: p for p in plan(query, Filters(limit=10), ranked=True, model="model-a")}
    for corpus in registry.corpora():
        key = hits_key(corpus)
        assert whole[key].sql == corpus.whole_ranked_sql
        assert whole[key].params == (*ranked[key].params, "model-a")
        first = (await baked.prepare(ranked[key].sql).bind(*ranked[key].params).all()).results
        rows = (await baked.prepare(whole[key].sql).bind(*whole[key].params).all()).results
        assert [r["rid"] for r in rows] == [r["rid"] for r in first] and rows
        read = (await baked.prepare(corpus.rows_sql).bind(
            json.dumps([r["rid"] for r in first])).all()).results
        for row, bound, full in zip(rows, first, read, strict=True):
            assert bound.items() <= row.items() and full.items() <= row.items()
            assert row["embedded"] == (corpus.name == "messages")

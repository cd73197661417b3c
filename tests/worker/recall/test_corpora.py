"""Corpus records: weights pinned to the FTS column order of the migrations, rows mapped
to candidates."""

from __future__ import annotations

import pytest

from local.sqlite_db import SqliteDatabase
from worker.recall.corpora import CORPORA, MESSAGES, NOTES


@pytest.mark.parametrize("corpus", CORPORA, ids=lambda c: c.name)
async def test_weights_follow_the_fts_tables_column_order(db: SqliteDatabase, corpus) -> None:
    # bm25() takes its weights positionally: a reordered migration would silently move
    # the title's weight onto another column.
    rows = (await db.prepare(f"PRAGMA table_info({corpus.fts_table})").all()).results
    assert [r["name"] for r in rows] == list(corpus.columns)


@pytest.mark.parametrize("corpus", CORPORA, ids=lambda c: c.name)
async def test_each_corpus_has_its_vocabulary_and_stats_row(db: SqliteDatabase,
                                                            corpus) -> None:
    stats = (await db.prepare("SELECT corpus FROM corpus_stats").all()).results
    assert corpus.name in {r["corpus"] for r in stats}
    vocab = (await db.prepare(f"PRAGMA table_info({corpus.vocab_table})").all()).results
    assert [r["name"] for r in vocab][:2] == ["term", "doc"]


def test_a_note_row_becomes_a_candidate() -> None:
    row = {"path": "Home/Plants.md", "vault": "My Vault", "title": "Plants", "name": "Plants",
           "aliases": "greenery", "tags": "home", "properties": "", "note_date": 5,
           "bm25": -3.0, "text": "Water the fern."}
    cand = NOTES.to_candidate(row, 0.5, 1.1, 5)
    assert (cand.kind, cand.id, cand.group, cand.vault) == ("note", "Home/Plants.md",
                                                            "Home/Plants.md", "My Vault")
    assert cand.href == "obsidian://open?vault=My%20Vault&file=Home%2FPlants"
    assert dict(cand.fields)["aliases"] == "greenery"
    assert cand.score == pytest.approx(0.55)


def test_a_message_row_becomes_a_candidate_grouped_by_conversation() -> None:
    row = {"id": "m1", "conversation_id": "c1", "role": "user", "created_at": 9,
           "conversation_title": "", "bm25": -1.0, "text": "hello"}
    cand = MESSAGES.to_candidate(row, 0.2, 1.0, 9)
    assert (cand.kind, cand.group, cand.role, cand.label) == ("message", "c1", "user",
                                                              "Conversation")
    assert cand.href == "/?msg=m1"

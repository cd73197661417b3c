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


def test_a_note_row_becomes_a_candidate_grouped_by_vault_and_path() -> None:
    row = {"path": "Home/Plants.md", "vid": 3, "vault": "My Vault", "title": "Plants",
           "name": "Plants", "aliases": "greenery", "tags": "home", "properties": "",
           "note_date": 5, "bm25": -3.0, "text": "Water the fern."}
    cand = NOTES.to_candidate(row, 0.5, 1.1, 5)
    assert (cand.kind, cand.id, cand.group, cand.vault, cand.vid) == (
        "note", "Home/Plants.md", "3:Home/Plants.md", "My Vault", 3)
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


def test_a_past_answer_is_recalled_without_its_citation_markers() -> None:
    row = {"id": "m2", "conversation_id": "c1", "role": "assistant", "created_at": 9,
           "conversation_title": "Ferns", "bm25": -1.0,
           "text": "Water the fern weekly [1][2], and mist it [3, 4]. See arr[2] and [[5]]."}
    cand = MESSAGES.to_candidate(row, 0.2, 1.0, 9)
    assert cand.text == "Water the fern weekly, and mist it. See arr[2] and [[5]]."
    owner = MESSAGES.to_candidate({**row, "role": "user"}, 0.2, 1.0, 9)
    assert owner.text == row["text"]  # the owner's own words are quoted as typed

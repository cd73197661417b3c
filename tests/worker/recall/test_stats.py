"""Index statistics from a run: collection per corpus and the chat-time fix-up."""

from __future__ import annotations

import pytest

from shared.rank.scoring import idf
from shared.text.sanitiser import Term
from worker.recall.stats import (
    CorpusStats,
    collect,
    known_stems,
    self_match_correction,
    without_query_message,
)


def rows() -> dict:
    return {("stats", "", 0): [{"corpus": "messages", "docs": 5}, {"corpus": "notes", "docs": 9}],
            ("hits", "notes", 0): [], ("hits", "messages", 0): [],
            ("df", "messages", 0): [{"term": "wal", "doc": 3}, {"term": "rare", "doc": 1}],
            ("df", "messages", 1): [{"term": "zed", "doc": 2}],
            ("df", "notes", 0): [{"term": "wal", "doc": 4}]}


def test_collect_merges_chunks_per_corpus() -> None:
    stats = collect(rows())
    assert stats["messages"] == CorpusStats(docs=5, df={"wal": 3, "rare": 1, "zed": 2})
    assert stats["notes"] == CorpusStats(docs=9, df={"wal": 4})
    assert known_stems(stats) == {"wal": 7, "rare": 1, "zed": 2}


def test_only_searched_corpora_have_statistics() -> None:
    only_notes = {k: v for k, v in rows().items() if k[1] != "messages"}
    assert list(collect(only_notes)) == ["notes"]


def test_the_query_message_is_taken_out_of_the_statistics() -> None:
    adjusted = without_query_message(collect(rows()))
    assert adjusted["messages"] == CorpusStats(docs=4, df={"wal": 2, "zed": 1})
    assert adjusted["notes"] == CorpusStats(docs=9, df={"wal": 4})


def test_the_self_match_correction_rescales_bm25_to_the_clean_idfs() -> None:
    raw = collect(rows())["messages"]
    clean = without_query_message(collect(rows()))["messages"]
    matched = [Term(("zed",))]
    # bm25() weighed "zed" by idf(5, 2) = 0.34; the ceiling by idf(4, 1) = 0.85
    factor = self_match_correction(matched, clean, raw)
    assert factor == pytest.approx(idf(4, 1) / idf(5, 2))
    assert factor > 2.5
    assert self_match_correction([], clean, raw) == 1.0
    assert self_match_correction(matched, raw, raw) == 1.0

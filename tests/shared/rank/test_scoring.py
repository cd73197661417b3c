"""Ranking maths: FTS5's IDF, the relevance scale, recency and the merge."""

from __future__ import annotations

import math

import pytest

from shared.rank.candidate import Candidate
from shared.rank.scoring import (
    BM25_K1,
    RECENCY_HALF_LIFE_DAYS,
    RECENCY_WEIGHT,
    SMALL_INDEX_UNITS,
    forgiven_terms,
    idf,
    merge,
    query_ceiling,
    recency_boost,
    relevance,
    specificity,
)
from shared.text.sanitiser import Term
from shared.time.durations import MS_PER_DAY
from tests.builders import candidate

DAY = MS_PER_DAY
NOW = 1_000 * DAY


def scored(kind: str, id: str, rel: float, age_days: float, group: str | None = None
           ) -> Candidate:
    ts = int(NOW - age_days * DAY)
    return candidate(id, rel, kind=kind, group=group, boost=recency_boost(ts, NOW),  # type: ignore[arg-type]
                     timestamp_ms=ts, label=id, href="", text="")


def test_idf_is_fts5s_formula_with_its_floor() -> None:
    assert idf(100, 1) == pytest.approx(math.log(99.5 / 1.5))
    assert idf(100, 60) == 1e-6  # negative IDF is floored, as in fts5_aux.c
    assert idf(0, 0) == 1e-6


def test_phrase_df_is_its_rarest_token() -> None:
    phrase = Term(("pg", "pull"))
    assert query_ceiling([phrase], {"pg": 3, "pull": 40}, 100) == \
        pytest.approx((BM25_K1 + 1) * idf(100, 3))


WEDDING = [Term(("hannah",)), Term(("wedding",)), Term(("ceremony",))]


def knows(*words: str):
    return lambda term: all(t in words for t in term.tokens)


def test_a_small_index_forgives_one_word_it_has_never_seen() -> None:
    known = knows("hannah", "wedding")
    assert forgiven_terms(WEDDING, known, 4) == (Term(("ceremony",)),)
    df = {"hannah": 1, "wedding": 1}
    full = query_ceiling(WEDDING, df, 4)
    assert query_ceiling(WEDDING, df, 4, forgiven_terms(WEDDING, known, 4)) == \
        pytest.approx(full * 2 / 3)


def test_nothing_is_forgiven_in_a_large_index_a_short_query_or_an_unknown_topic() -> None:
    assert forgiven_terms(WEDDING, knows("hannah", "wedding"), SMALL_INDEX_UNITS) == ()
    assert forgiven_terms(WEDDING[:2], knows("hannah"), 4) == ()  # two terms: no allowance
    assert forgiven_terms(WEDDING, knows(), 4) == ()  # memory knows none of it
    two_unseen = [*WEDDING, Term(("date",))]
    assert forgiven_terms(two_unseen, knows("hannah", "wedding"), 4) == (Term(("ceremony",)),)
    assert forgiven_terms(WEDDING, knows("hannah", "wedding", "ceremony"), 4) == ()


def test_relevance_is_a_fraction_of_the_ceiling() -> None:
    assert relevance(-5.0, 10.0) == 0.5
    assert relevance(-50.0, 10.0) == 1.0
    assert relevance(-5.0, 0.0) == 0.0
    assert relevance(0.0, 10.0) == 0.0


def test_recency_boost_halves_every_half_life() -> None:
    assert recency_boost(NOW, NOW) == pytest.approx(1 + RECENCY_WEIGHT)
    half = NOW - int(RECENCY_HALF_LIFE_DAYS * DAY)
    assert recency_boost(half, NOW) == pytest.approx(1 + RECENCY_WEIGHT / 2)
    assert recency_boost(NOW + DAY, NOW) == pytest.approx(1 + RECENCY_WEIGHT)  # future: no bonus


def test_recency_breaks_a_bm25_tie_toward_the_newer_item() -> None:
    old, new = scored("note", "old.md", 0.6, 400), scored("note", "new.md", 0.6, 2)
    assert [c.identity.id for c in merge([old, new], 10)] == ["new.md", "old.md"]


def test_a_strong_old_note_beats_a_weak_new_one() -> None:
    strong_old = scored("note", "strong.md", 0.7, 3_000)
    weak_new = scored("message", "m1", 0.5, 0)
    assert [c.identity.id for c in merge([weak_new, strong_old], 10)] == ["strong.md", "m1"]


def test_one_hit_per_conversation_by_default() -> None:
    a = scored("message", "m1", 0.9, 1, group="c1")
    b = scored("message", "m2", 0.8, 1, group="c1")
    c = scored("message", "m3", 0.5, 1, group="c2")
    assert [h.identity.id for h in merge([a, b, c], 10)] == ["m1", "m3"]
    assert [h.identity.id for h in merge([a, b, c], 10, per_group=2)] == ["m1", "m2", "m3"]
    assert [h.identity.id for h in merge([a, b, c], 10, per_group=None)] == ["m1", "m2", "m3"]


def test_merge_is_deterministic_on_exact_ties() -> None:
    items = [scored("message", "m", 0.5, 10), scored("note", "n.md", 0.5, 10),
             scored("note", "a.md", 0.5, 10)]
    orders = {tuple(c.identity.id for c in merge(perm, 10))
              for perm in (items, items[::-1], items[1:] + items[:1])}
    assert orders == {("a.md", "n.md", "m")}


def test_merge_respects_limit() -> None:
    assert len(merge([scored("note", f"{i}.md", 0.5, i) for i in range(20)], 5)) == 5


def test_specificity_is_idf_over_the_rarest_possible() -> None:
    assert specificity(idf(1_000, 1), 1_000) == 1.0
    assert specificity(idf(1_000, 300), 1_000) < 0.2
    assert specificity(0.5, 0) == 1.0  # an empty index: everything is rare

"""The features the confidence model weighs (shared/rank/evidence.py)."""

from __future__ import annotations

import pytest

from shared.rank.evidence import FEATURES, assess, features, query_evidence
from shared.rank.scoring import idf
from shared.text.sanitiser import Mode, build_query
from tests.builders import candidate


def _f(values: tuple[float, ...], name: str) -> float:
    return values[FEATURES.index(name)]


def test_coverage_is_the_share_of_the_querys_idf_mass_the_hit_matches() -> None:
    terms = build_query("glacier hiking boots", Mode.AUTOMATIC).terms
    weights = {t.fts: idf(1_000, df) for t, df in zip(terms, (2, 50, 300), strict=True)}
    q = query_evidence(terms, {"notes": weights}, {"notes": 1_000}, [candidate("a", 0.5)])
    rare = frozenset({terms[0].fts})
    values = features(candidate("a", 0.5), q, 1, rare)
    assert _f(values, "coverage") == pytest.approx(weights[terms[0].fts] / sum(weights.values()))
    assert _f(values, "all_terms") == 0.0
    every = features(candidate("a", 0.5), q, 1, frozenset(weights))
    assert _f(every, "coverage") == pytest.approx(1.0) and _f(every, "all_terms") == 1.0
    assert _f(values, "matched_specificity") > _f(every, "matched_specificity") - 1e-9


def test_list_features_say_which_lists_hold_the_hit() -> None:
    terms = build_query("boiler", Mode.AUTOMATIC).terms
    both = candidate("b", 0.4, lexical_rank=2, vector_rank=1, cosine=0.5)
    vector_only = candidate("v", 0.0, vector_rank=3, cosine=0.3)
    q = query_evidence(terms, {}, {}, [both, vector_only])
    fb = features(both, q, 1, frozenset())
    fv = features(vector_only, q, 2, frozenset())
    assert (_f(fb, "both_lists"), _f(fb, "vector_only")) == (1.0, 0.0)
    assert (_f(fv, "both_lists"), _f(fv, "vector_only")) == (0.0, 1.0)
    assert _f(fb, "lexical_rr") == 0.5 and _f(fv, "vector_rr") == pytest.approx(1 / 3)
    assert _f(fv, "cosine_to_best") == pytest.approx(0.3 - 0.5)
    assert _f(fb, "score_to_best") == 1.0 and _f(fv, "score_to_best") == 0.0


def test_assess_weighs_only_the_first_candidates_and_matches_their_terms() -> None:
    terms = build_query("compost heap", Mode.AUTOMATIC).terms
    ranked = [candidate(f"n{i}", 0.9 - i / 10, text="the compost heap") for i in range(5)]
    weighed = assess(ranked, terms, {}, {}, False, depth=3)
    assert [a.rank for a in weighed] == [1, 2, 3]
    assert all(a.candidate.presentation.terms == frozenset(t.fts for t in terms) for a in weighed)
    assert all(len(a.features) == len(FEATURES) for a in weighed)

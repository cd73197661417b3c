"""Fusing the lexical and the vector lists: reciprocal rank (hybrid) and the score blend
(adaptive, quality)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any

import pytest

from shared.rank.candidate import Candidate, Scores
from shared.rank.fusion import RRF_K, VECTOR_WEIGHT, blend, fuse
from tests.builders import candidate


def unit(name: str, *, relevance: float = 0.0, cosine: float | None = None) -> Candidate:
    return candidate(name, relevance, timestamp_ms=0, label=name, href="", unit=name,
                     cosine=cosine, text="")


LEXICAL = [unit("title-match", relevance=0.9), unit("weak", relevance=0.2),
           unit("weaker", relevance=0.1)]
VECTOR = [unit("paraphrase", cosine=0.62), unit("weak", cosine=0.61),
          unit("other", cosine=0.605), unit("title-match", cosine=0.60),
          unit("far", cosine=0.20)]


def ranked(cands: list[Candidate]) -> list[str]:
    return [c.identity.unit for c in sorted(cands, key=lambda c: -c.scores.final)]


def test_fuse_sums_reciprocal_ranks_one_candidate_per_unit() -> None:
    fused = {c.identity.unit: c for c in fuse(LEXICAL, VECTOR)}
    assert sorted(fused) == ["far", "other", "paraphrase", "title-match", "weak", "weaker"]
    assert fused["weak"].scores.fused == pytest.approx(1 / (RRF_K + 2) + 1 / (RRF_K + 2))
    assert fused["weak"].scores.relevance == 0.2 and fused["weak"].scores.cosine == 0.61
    assert fused["paraphrase"].scores.relevance == 0.0  # vector-only
    assert fused["weaker"].scores.cosine is None and fused["weaker"].scores.vector_rank is None


def test_rank_fusion_lets_a_weak_lexical_hit_overtake_a_decisive_one() -> None:
    """Why adaptive does not use it: ranks forget that 0.9 and 0.2 are far apart."""
    assert ranked(fuse(LEXICAL, VECTOR))[0] == "weak"


def test_blend_keeps_a_decisive_lexical_match_first_and_lifts_a_paraphrase() -> None:
    order = ranked(blend(LEXICAL, VECTOR))
    assert order[0] == "title-match"
    assert order.index("paraphrase") < order.index("weaker")


def test_blend_is_a_convex_combination_of_scaled_scores() -> None:
    blended = {c.identity.unit: c.scores.fused for c in blend(LEXICAL, VECTOR)}
    cos = {"paraphrase": 1.0, "weak": 0.41 / 0.42, "title-match": 0.40 / 0.42, "far": 0.0}
    for name, lex in (("title-match", 1.0), ("weak", 0.2 / 0.9), ("paraphrase", 0.0),
                      ("far", 0.0), ("weaker", 0.1 / 0.9)):
        want = (1 - VECTOR_WEIGHT) * lex + VECTOR_WEIGHT * cos.get(name, 0.0)
        assert blended[name] == pytest.approx(want)


def test_blend_with_one_list_empty_or_flat() -> None:
    only_vector = {c.identity.unit: c.scores.fused for c in blend([], VECTOR)}
    assert only_vector["paraphrase"] == pytest.approx(VECTOR_WEIGHT)
    only_lexical = {c.identity.unit: c.scores.fused for c in blend(LEXICAL, [])}
    assert only_lexical["title-match"] == pytest.approx(1 - VECTOR_WEIGHT)
    flat = {c.identity.unit: c.scores.fused
            for c in blend([], [unit("a", cosine=0.5), unit("b", cosine=0.5)])}
    assert flat == {"a": pytest.approx(VECTOR_WEIGHT), "b": pytest.approx(VECTOR_WEIGHT)}


# What fusion writes; every other field of Scores, and every other group, is carried.
FUSED_FIELDS = {"lexical_rank", "vector_rank", "cosine", "fused"}


@pytest.mark.parametrize("merge", [fuse, blend])
def test_fusion_carries_every_field_it_does_not_write(
        merge: Callable[[list[Candidate], list[Candidate]], list[Candidate]]) -> None:
    """Fusion makes each unit in one construction (Scores.fused_as): a field added to
    Scores or Candidate must not fall back to its default on the way."""
    given: dict[str, Any] = {f.name: 0.25 + i / 100 for i, f in enumerate(fields(Scores))
                             if f.name not in FUSED_FIELDS}
    given["pending"] = True
    lexical = candidate("a", unit="a", seq=4, status="draft", fuzzy=True, **given)
    [out] = merge([lexical], [unit("a", cosine=0.5)])
    for f in fields(Scores):
        if f.name not in FUSED_FIELDS:
            assert getattr(out.scores, f.name) == getattr(lexical.scores, f.name), f.name
    assert (out.scores.lexical_rank, out.scores.vector_rank, out.scores.cosine) == (1, 1, 0.5)
    for f in fields(Candidate):
        if f.name != "scores":
            assert getattr(out, f.name) is getattr(lexical, f.name), f.name


@pytest.mark.parametrize("fused", [fuse, lambda lexical, vector, skipped=(): blend(
    lexical, vector, skipped=skipped)])
def test_rows_left_out_of_the_lexical_list_still_count_in_its_ranks(
        fused: Callable[..., list[Candidate]]) -> None:
    # What the semantic modes' bound relies on (worker/recall/fused_depth.py): the places
    # of the left-out rows give every kept unit the rank and the score the whole list gives.
    def place(c: Candidate) -> tuple[float, int, str]:
        return -c.scores.relevance * c.scores.boost, -c.identity.timestamp_ms, c.identity.unit

    whole = [candidate(f"u{i}", 0.9 - 0.1 * (i // 2), timestamp_ms=i, label="", href="",
                       unit=f"u{i}", text="", boost=1.0 + 0.01 * (i % 3)) for i in range(8)]
    vector = [unit("u6", cosine=0.7), unit("v", cosine=0.5)]
    kept, left = [whole[i] for i in (0, 3, 6)], [whole[i] for i in (1, 2, 4, 5, 7)]
    full = {c.identity.unit: c.scores for c in fused(whole, vector)}
    part = {c.identity.unit: c.scores for c in fused(kept, vector,
                                                     skipped=sorted(map(place, left)))}
    assert set(part) == {"u0", "u3", "u6", "v"}
    assert all(part[u] == full[u] for u in part)
    assert part["u6"].lexical_rank == 8  # u7, left out, scores 0.6 × 1.01 above it


@pytest.mark.parametrize("fused", [fuse, lambda lexical, vector, skipped=(), vector_skipped=():
                                   blend(lexical, vector, skipped=skipped,
                                         vector_skipped=vector_skipped)])
def test_hits_left_out_of_the_vector_list_still_count_in_its_ranks_and_scale(
        fused: Callable[..., list[Candidate]]) -> None:
    lexical = [unit("a", relevance=0.8), unit("b", relevance=0.4)]
    vector = [unit(f"v{i}", cosine=0.9 - 0.1 * i) for i in range(6)]
    kept, left = [vector[i] for i in (0, 2, 3)], [vector[i] for i in (1, 4, 5)]
    full = {c.identity.unit: c.scores for c in fused(lexical, vector)}
    keys = sorted((-(c.scores.cosine or 0.0), c.identity.unit) for c in left)
    part = {c.identity.unit: c.scores for c in fused(lexical, kept, vector_skipped=keys)}
    assert set(part) == {"a", "b", "v0", "v2", "v3"}
    assert all(part[u] == full[u] for u in part)

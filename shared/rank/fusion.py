"""Fusing the lexical and the vector lists (pure). The units are the same in both lists
(a note section, a conversation unit), keyed by `unit`.

Two rules:
- `fuse`, reciprocal-rank fusion (hybrid mode), as in Cormack, Clarke and Büttcher
  (2009): a unit scores Σ 1/(RRF_K + rank) over the lists that hold it. It ignores how
  far apart the scores are, so a vector list's weak tail outvotes a decisive lexical
  match: on mixed-vault tune, identifier nDCG@10 fell from 0.996 to 0.779.
- `blend`, a convex combination of the two scores (adaptive and quality), each min-max
  normalised over its own list, as Bruch, Gai and Ingber (2023) recommend over RRF: it
  keeps a decisive lexical match decisive and still lifts what only the vectors find.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence

from shared.rank.candidate import Candidate

# The usual constant (the paper's 60; QMD and the seed design use it too): it damps the
# difference between the very top ranks, so agreement between lists counts for more than
# being first in one.
RRF_K = 60
# blend: the vector score's share. Swept over 0.2-0.5 on the tuning data only (dev, all
# 52; mixed-vault tune, 121; the regression set, 41) with bench.capture's lists: nDCG@10
# 0.960 / 0.847 / 0.965 at 0.4, against lexical 0.929 / 0.781 / 0.969; 0.3 and 0.5 lie
# within 0.01 of it on each set (a plateau, not a peak).
VECTOR_WEIGHT = 0.4


def reciprocal(rank: int | None) -> float:
    return 0.0 if rank is None else 1.0 / (RRF_K + rank)


# A candidate's place in the lexical list, ascending.
LexicalKey = tuple[float, int, str]


def _lexical_key(c: Candidate) -> LexicalKey:
    return -c.scores.relevance * c.scores.boost, -c.identity.timestamp_ms, c.identity.unit


def _by_lexical(candidates: Sequence[Candidate]) -> list[Candidate]:
    return sorted(candidates, key=_lexical_key)


# A candidate's place in the vector list, ascending.
VectorKey = tuple[float, str]


def _vector_key(c: Candidate) -> VectorKey:
    return -(c.scores.cosine or 0.0), c.identity.unit


def _by_vector(candidates: Sequence[Candidate]) -> list[Candidate]:
    return sorted(candidates, key=_vector_key)


# How a fused unit scores: (its unit, whether it is still being embedded, its lexical rank,
# its vector rank) → the fused score.
Scorer = Callable[[str, bool, int | None, int | None], float]


def _merged(lexical: Sequence[Candidate], vector: Sequence[Candidate], score: Scorer,
            skipped: Sequence[LexicalKey] = (), vector_skipped: Sequence[VectorKey] = ()
            ) -> list[Candidate]:
    """One candidate per unit, in lexical order and then the vector-only units in vector
    order, each made once: its ranks in both lists, the cosine its best vector hit gives a
    lexical one, and `score`'s fused score. One construction per unit (Scores.fused_as),
    not a copy per step: copying candidates stage by stage cost a third of hybrid
    recall's Python (bench.latency --profile). `skipped`: the places (`_lexical_key`,
    ascending) of rows the lexical list left out, each sure to rank above or below every
    candidate it holds (worker/recall/fused_depth.py): a lexical rank counts those
    above; `vector_skipped` (`_vector_key`, ascending), the same of the vector list."""
    first: dict[str, Candidate] = {}
    lexical_ranks: dict[str, int] = {}
    vectors: dict[str, tuple[int, float | None]] = {}  # unit → its vector rank, cosine
    for rank, cand in enumerate(_by_lexical(lexical), 1):
        if cand.identity.unit not in first:
            first[cand.identity.unit] = cand
            lexical_ranks[cand.identity.unit] = rank + (
                bisect_left(skipped, _lexical_key(cand)) if skipped else 0)
    for rank, cand in enumerate(_by_vector(vector), 1):
        if vector_skipped:
            rank += bisect_left(vector_skipped, _vector_key(cand))
        unit = cand.identity.unit
        known = first.get(unit)
        if known is None:
            first[unit] = cand
            vectors[unit] = (rank, cand.scores.cosine)
        elif unit not in vectors and known.scores.vector_rank is None:
            vectors[unit] = (rank, cand.scores.cosine)
    out = []
    for unit, cand in first.items():
        s = cand.scores
        lexical_rank = lexical_ranks.get(unit, s.lexical_rank)
        vector_rank, cosine = vectors.get(unit, (s.vector_rank, s.cosine))
        out.append(cand.with_scores(s.fused_as(
            lexical_rank, vector_rank, cosine,
            score(unit, s.pending, lexical_rank, vector_rank))))
    return out


def fuse(lexical: Sequence[Candidate], vector: Sequence[Candidate],
         skipped: Sequence[LexicalKey] = (), vector_skipped: Sequence[VectorKey] = ()
         ) -> list[Candidate]:
    """One candidate per unit, carrying both ranks and the fused score. A unit the lexical
    list holds keeps its lexical fields (relevance, matched terms, spelling flag) and gains
    the cosine; a vector-only unit has relevance 0. `skipped`, `vector_skipped`: see
    `_merged`."""
    return _merged(lexical, vector, _fused_ranks, skipped, vector_skipped)


def _fused_ranks(unit: str, pending: bool, lexical_rank: int | None,
                 vector_rank: int | None) -> float:
    # A unit still being embedded (`pending`) has no vector rank to lack: its lexical
    # rank stands for both.
    return reciprocal(lexical_rank) + reciprocal(
        lexical_rank if pending and vector_rank is None else vector_rank)


def _scaled(values: dict[str, float], others: Sequence[float] = ()) -> dict[str, float]:
    """Min-max over one list: its best 1, its worst 0 (all 1 when they are equal). Over the
    list rather than against fixed bounds, so the rule holds for any embedding model (the
    cosines of MiniLM and of bge-small live in different ranges). `others`: the values of
    the list's members left out of `values`."""
    if not values:
        return {}
    every = [*values.values(), *others]
    low, high = min(every), max(every)
    if high <= low:
        return dict.fromkeys(values, 1.0)
    return {k: (v - low) / (high - low) for k, v in values.items()}


def blend(lexical: Sequence[Candidate], vector: Sequence[Candidate],
          weight: float = VECTOR_WEIGHT, skipped: Sequence[LexicalKey] = (),
          vector_skipped: Sequence[VectorKey] = ()) -> list[Candidate]:
    """One candidate per unit (as `fuse`), its fused score (1 − weight)·lexical + weight·
    vector, each side scaled over its own list; the lexical side is the BM25 relevance
    divided by the list's best (0 .. 1), so a unit one list lacks scores 0 there; a unit
    still being embedded (`pending`) scores its lexical side on both. `skipped`,
    `vector_skipped`: see `_merged` (the list's best relevance must be among `lexical`; the
    left-out hits' cosines still scale the vector side)."""
    best = max((c.scores.relevance for c in lexical), default=0.0)
    lex = {c.identity.unit: c.scores.relevance / best for c in lexical} if best > 0 else {}
    vec = _scaled({c.identity.unit: c.scores.cosine for c in vector
                   if c.scores.cosine is not None}, [-k[0] for k in vector_skipped])

    def blended(unit: str, pending: bool, lexical_rank: int | None,
                vector_rank: int | None) -> float:
        side = lex.get(unit, 0.0) if pending and unit not in vec else vec.get(unit, 0.0)
        return (1 - weight) * lex.get(unit, 0.0) + weight * side

    return _merged(lexical, vector, blended, skipped, vector_skipped)

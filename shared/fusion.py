"""Reciprocal-rank fusion of the lexical and the vector lists (pure).

Each list is ranked on its own scale (BM25 relevance × recency; cosine similarity), and
the two scales are not comparable, so the lists are fused by rank, as in Cormack, Clarke
and Büttcher (2009): a unit scores Σ 1/(RRF_K + rank) over the lists that hold it. The
units are the same in both lists (a note, a conversation unit), keyed by `unit`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from shared.candidate import Candidate

# The usual constant (the paper's 60; QMD and the seed design use it too): it damps the
# difference between the very top ranks, so agreement between lists counts for more than
# being first in one.
RRF_K = 60


def reciprocal(rank: int | None) -> float:
    return 0.0 if rank is None else 1.0 / (RRF_K + rank)


def ranked_lexical(candidates: Sequence[Candidate]) -> list[Candidate]:
    ordered = sorted(candidates, key=lambda c: (-c.relevance * c.boost, -c.timestamp_ms, c.unit))
    return [replace(c, lexical_rank=i) for i, c in enumerate(ordered, 1)]


def ranked_vector(candidates: Sequence[Candidate]) -> list[Candidate]:
    ordered = sorted(candidates, key=lambda c: (-(c.cosine or 0.0), c.unit))
    return [replace(c, vector_rank=i) for i, c in enumerate(ordered, 1)]


def fuse(lexical: Sequence[Candidate], vector: Sequence[Candidate]) -> list[Candidate]:
    """One candidate per unit, carrying both ranks and the fused score. A unit the lexical
    list holds keeps its lexical fields (relevance, matched terms, spelling flag) and gains
    the cosine; a vector-only unit has relevance 0."""
    by_unit: dict[str, Candidate] = {}
    for cand in ranked_lexical(lexical):
        by_unit.setdefault(cand.unit, cand)
    for cand in ranked_vector(vector):
        known = by_unit.get(cand.unit)
        if known is None:
            by_unit[cand.unit] = cand
        elif known.vector_rank is None:
            by_unit[cand.unit] = replace(known, cosine=cand.cosine, vector_rank=cand.vector_rank)
    return [replace(c, fused=reciprocal(c.lexical_rank) + reciprocal(c.vector_rank))
            for c in by_unit.values()]

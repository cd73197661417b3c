"""Ranking metrics (pure): nDCG@k with gain 2^grade − 1, MRR, Recall@k, Hit@k, and the
knowledge-model figures of docs/design.md (canonical first, contradiction coverage).

A hit may hold several judged documents (a conversation unit holds an owner message and
Mallory's reply). `credited` maps each hit to the best-graded document it holds that no
earlier hit was credited with (the dev set's README: "map a hit to the message ids it
contains (max grade)"); Recall@k counts every document the top k hold.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

Hit = Sequence[str]  # the documents one hit holds, its primary id first


def credited(hits: Sequence[Hit], judgments: Mapping[str, int]) -> list[str]:
    used: set[str] = set()
    result = []
    for hit in hits:
        fresh = [d for d in hit if d not in used] or list(hit[:1])
        best = max(fresh, key=lambda d: judgments.get(d, 0))
        used.update(hit)
        result.append(best)
    return result


def covered_recall_at(hits: Sequence[Hit], judgments: Mapping[str, int], k: int = 20
                      ) -> float:
    relevant = {d for d, g in judgments.items() if g >= 1}
    if not relevant:
        return 0.0
    return len(relevant & {d for hit in hits[:k] for d in hit}) / len(relevant)


def dcg(grades: Sequence[int]) -> float:
    return sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(grades))


def ndcg_at(ranked: Sequence[str], judgments: Mapping[str, int], k: int = 10) -> float:
    ideal = dcg(sorted(judgments.values(), reverse=True)[:k])
    if ideal == 0:
        return 0.0
    return dcg([judgments.get(d, 0) for d in ranked[:k]]) / ideal


def reciprocal_rank(ranked: Sequence[str], judgments: Mapping[str, int], k: int = 20) -> float:
    for i, doc in enumerate(ranked[:k]):
        if judgments.get(doc, 0) >= 1:
            return 1.0 / (i + 1)
    return 0.0


def hit_at(ranked: Sequence[str], judgments: Mapping[str, int], k: int = 3) -> float:
    """1 when a relevant document is in the top k."""
    return float(any(judgments.get(d, 0) >= 1 for d in ranked[:k]))


def recall_at(ranked: Sequence[str], judgments: Mapping[str, int], k: int = 20) -> float:
    relevant = {d for d, g in judgments.items() if g >= 1}
    if not relevant:
        return 0.0
    return len(relevant & set(ranked[:k])) / len(relevant)


def canonical_first(hits: Sequence[Hit], canonical: Sequence[str]) -> float:
    """1 when the first hit holds a canonical document (the canonical-first
    rate of docs/design.md, "Knowledge model"); 0 when there is no hit."""
    return float(bool(hits) and any(d in canonical for d in hits[0]))


def covers_all(hits: Sequence[Hit], conflict_set: Sequence[str]) -> float:
    """1 when every document of a conflict set is among the hits, shown together (the
    contradiction coverage of docs/design.md)."""
    return float(set(conflict_set) <= {d for hit in hits for d in hit})


def mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None

"""Ranking metrics (pure): nDCG@k with gain 2^grade − 1, MRR, Recall@k."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence


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


def mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None

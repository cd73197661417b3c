"""Scoring a relevance run: figures per query, then every metric of the JSON as a ratio
of their sums over a bucket of queries (all, or one category), with bootstrap intervals.

Per-query figures (absent where the query does not back them):
- answerable queries (non-empty judgments): ndcg@10, ndcg@5, mrr, recall@20, hit@3 of
  explicit search, ndcg@10_pointer (hits credited by the document they link to);
  auto_hit (1 when a relevant doc is injected), injected_relevant;
- empty queries: auto_fp (1 when anything is injected);
- answerable queries, where the system builds a block: block_hit, block_evidence of
  n_relevant (the relevant documents any line of the block shows);
- every query: n_injected; auto_waste when a Recall block was built (bench.waste);
- queries with `canonical`: canonical_first_auto (the first injected hit holds a canonical
  doc), canonical_first_explicit (the top explicit hit does);
- queries with `conflict_set`: contradiction_covered (all of it injected together);
- queries with `irrelevant` (the owner's 👎, mallory feedback export):
  auto_irrelevant_injected (1 when a hit holding one of them is injected). An empty query
  that has them is a question nobody judged an answer for, not a negative: no auto_fp.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from bench.bootstrap import draws, paired_interval, ratio_interval
from bench.evalset import Query
from bench.metrics import (
    canonical_first,
    covered_recall_at,
    covers_all,
    credited,
    hit_at,
    ndcg_at,
    reciprocal_rank,
)
from bench.system import SEARCH_DEPTH, Hit, Injection
from bench.waste import context_waste


@dataclass(frozen=True)
class Metric:
    key: str  # its name in the JSON
    figure: str  # the per-query figure summed in the numerator
    weight: str | None = None  # ... in the denominator (None: 1 per query with `figure`)


METRICS = (
    Metric("ndcg@10", "ndcg@10"),
    Metric("ndcg@5", "ndcg@5"),
    # Each hit credited with only the document it points at (its link), not the best one
    # it holds: whether a deep link opens the turn that answers.
    Metric("ndcg@10_pointer", "ndcg@10_pointer"),
    Metric("mrr", "mrr"),
    Metric("recall@20", "recall@20"),
    Metric("hit@3", "hit@3"),
    Metric("auto_hit_rate", "auto_hit"),
    Metric("auto_fpr", "auto_fp"),
    # Of everything injected into answerable queries, the share that is relevant.
    Metric("auto_precision", "injected_relevant", "n_injected"),
    Metric("auto_waste", "auto_waste"),
    # What the Recall block shows, every line of it (a hit's neighbouring turns too): 1
    # when it shows a relevant document; of all relevant documents, the share it shows.
    Metric("block_hit_rate", "block_hit"),
    Metric("block_evidence_share", "block_evidence", "n_relevant"),
    Metric("canonical_first_auto", "canonical_first_auto"),
    Metric("canonical_first_explicit", "canonical_first_explicit"),
    Metric("contradiction_coverage", "contradiction_covered"),
    # Of the queries with 👎 documents, the share that injects one: it must stay 0.
    Metric("auto_irrelevant_injected", "irrelevant_injected"),
)
# Differences system − baseline with a paired interval: the claims "A beats B" rest on.
PAIRED = ("ndcg@10", "mrr", "recall@20", "auto_hit_rate", "auto_fpr")
BY_KEY = {m.key: m for m in METRICS}


@dataclass(frozen=True)
class QueryRun:
    query: Query
    ranked: list[Hit]
    injection: Injection
    figures: dict[str, float]


def pointed(hits: Sequence[Hit]) -> list[str]:
    """The document each hit links to (its primary id), a repeat credited once."""
    seen: set[str] = set()
    out = []
    for hit in hits:
        doc = hit[0] if hit and hit[0] not in seen else ""
        seen.add(doc)
        out.append(doc)
    return out


def query_figures(q: Query, ranked: Sequence[Hit], injection: Injection) -> dict[str, float]:
    ranked = list(ranked[:SEARCH_DEPTH])
    run = credited(ranked, q.judgments)
    injected = [credited([h], q.judgments)[0] for h in injection.hits]
    figures: dict[str, float] = {"n_injected": float(len(injected))}
    if q.judgments:
        figures.update({
            "ndcg@10": ndcg_at(run, q.judgments, 10),
            "ndcg@5": ndcg_at(run, q.judgments, 5),
            "ndcg@10_pointer": ndcg_at(pointed(ranked), q.judgments, 10),
            "mrr": reciprocal_rank(run, q.judgments, SEARCH_DEPTH),
            "recall@20": covered_recall_at(ranked, q.judgments, SEARCH_DEPTH),
            "hit@3": hit_at(run, q.judgments, 3),
            "auto_hit": float(any(q.judgments.get(d, 0) >= 1 for d in injected)),
            "injected_relevant": float(sum(q.judgments.get(d, 0) >= 1 for d in injected)),
        })
        if injection.shown is not None:
            relevant = {d for d, g in q.judgments.items() if g >= 1}
            shown = relevant & set(injection.shown)
            figures.update(block_hit=float(bool(shown)), block_evidence=float(len(shown)),
                           n_relevant=float(len(relevant)))
    elif not q.irrelevant:
        figures["auto_fp"] = float(bool(injected))
    waste = context_waste(injection.block, injection.parents) if injection.block else None
    if waste is not None:
        figures["auto_waste"] = waste
    if q.canonical:
        figures["canonical_first_auto"] = canonical_first(injection.hits, q.canonical)
        figures["canonical_first_explicit"] = canonical_first(ranked, q.canonical)
    if q.conflict_set:
        figures["contradiction_covered"] = covers_all(injection.hits, q.conflict_set)
    if q.irrelevant:
        figures["irrelevant_injected"] = float(bool(
            set(q.irrelevant) & {d for hit in injection.hits for d in hit}))
    return figures


def run_queries(queries: Sequence[Query], ranked: Callable[[str], list[Hit]],
                injected: Callable[[str], Injection]) -> list[QueryRun]:
    runs = []
    for q in queries:
        hits, injection = ranked(q.query), injected(q.query)
        runs.append(QueryRun(q, hits, injection, query_figures(q, hits, injection)))
    return runs


def contributions(figures: Sequence[dict[str, float]], metric: Metric
                  ) -> tuple[list[float], list[float]]:
    """Per query, what it adds to the metric's numerator and denominator."""
    nums = [f.get(metric.figure, 0.0) for f in figures]
    dens = [(f[metric.weight] if metric.weight else 1.0) if metric.figure in f else 0.0
            for f in figures]
    return nums, dens


def ratio(nums: Sequence[float], dens: Sequence[float]) -> float | None:
    return sum(nums) / sum(dens) if sum(dens) else None


def bucket_figures(figures: Sequence[dict[str, float]], judged: int) -> dict[str, Any]:
    """Every metric of one bucket with its 95% interval; None where no query backs it."""
    rows = draws(len(figures)) if figures else None
    result: dict[str, Any] = {}
    intervals: dict[str, list[float] | None] = {}
    for metric in METRICS:
        nums, dens = contributions(figures, metric)
        result[metric.key] = ratio(nums, dens)
        interval = ratio_interval(nums, dens, rows) if rows is not None else None
        intervals[metric.key] = list(interval) if interval else None
    result.update(n_queries=len(figures), n_judged=judged, n_empty=len(figures) - judged,
                  ci=intervals)
    return result


def summarise(runs: Sequence[QueryRun]) -> dict[str, Any]:
    """The figures of all queries and, under `per_category`, of each category."""
    buckets: dict[str, list[QueryRun]] = defaultdict(list)
    for r in runs:
        buckets[r.query.category].append(r)

    def figures(rs: Sequence[QueryRun]) -> dict[str, Any]:
        return bucket_figures([r.figures for r in rs], sum(bool(r.query.judgments) for r in rs))

    result = figures(runs)
    result["per_category"] = {c: figures(rs) for c, rs in sorted(buckets.items())}
    return result


def paired(a: Sequence[QueryRun], b: Sequence[QueryRun], keys: Sequence[str] = PAIRED,
           rows: np.ndarray | None = None) -> dict[str, dict[str, Any]]:
    """metric(a) − metric(b) with its paired 95% interval; a and b ran the same queries."""
    if [r.query.id for r in a] != [r.query.id for r in b]:
        raise ValueError("a paired difference needs both runs on the same queries")
    return paired_figures([r.figures for r in a], [r.figures for r in b], keys, rows)


def paired_figures(a: Sequence[dict[str, float]], b: Sequence[dict[str, float]],
                   keys: Sequence[str] = PAIRED, rows: np.ndarray | None = None
                   ) -> dict[str, dict[str, Any]]:
    rows = draws(len(a)) if rows is None else rows
    result = {}
    for key in keys:
        ca, cb = contributions(a, BY_KEY[key]), contributions(b, BY_KEY[key])
        pa, pb = ratio(*ca), ratio(*cb)
        interval = paired_interval(ca, cb, rows)
        result[key] = {"difference": None if pa is None or pb is None else pa - pb,
                       "ci": list(interval) if interval else None}
    return result


def per_query(runs: Sequence[QueryRun]) -> list[dict[str, Any]]:
    """What each query got, for gates and later analyses on a recorded run: explicit hits
    and injected hits as the doc each is credited as (bench.metrics.credited)."""
    return [{"id": r.query.id, "category": r.query.category, "split": r.query.split,
             "judgments": r.query.judgments,
             "ranked": credited(r.ranked[:SEARCH_DEPTH], r.query.judgments),
             "injected": [credited([h], r.query.judgments)[0] for h in r.injection.hits],
             "figures": r.figures}
            for r in runs]

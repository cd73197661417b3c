"""Relevance benchmark: nDCG@10, MRR, Recall@20 for explicit search and the hit and
false-positive rates of automatic recall, overall and per category, for our system and
two baselines measured in the same run on the same documents.

    uv run python -m bench.relevance --set ../shared/eval/dev [--json PATH] [--plot PATH]

The set is loaded through the real path (the hub's parser and POST /vault/sync over HTTP
for notes, the chat store for conversations) into a fresh database. The harness knows
nothing of the queries in advance.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from bench.baselines import Bm25s, NaiveFts5, documents
from bench.evalset import Query, doc_id, load_set, read_queries
from bench.metrics import covered_recall_at, credited, hit_at, mean, ndcg_at, reciprocal_rank
from local.thread_server import running_server
from shared.recall_policy import EXPLICIT
from worker.recall.automatic import gated
from worker.recall.explicit import search

KEYS = ("ndcg@10", "ndcg@5", "mrr", "recall@20", "hit@3", "auto_hit_rate", "auto_fpr",
        "auto_precision", "n_queries")
SEARCH_DEPTH = 20


def _as_hits(docs: Sequence[str | tuple[str, ...]]) -> list[tuple[str, ...]]:
    return [d if isinstance(d, tuple) else (d,) for d in docs]


def score_queries(queries: Sequence[Query], ranked: Callable[[Query], list[Any]],
                  injected: Callable[[Query], list[Any]]) -> dict[str, Any]:
    """`ranked` and `injected` give each query's hits, as doc ids or as tuples of the doc
    ids a hit holds (bench.metrics.credited)."""
    """Metrics over all queries and per category; None where no query backs a figure."""
    buckets: dict[str, list[Query]] = defaultdict(list)
    for q in queries:
        buckets["all"].append(q)
        buckets[q.category].append(q)
    hits = {q.id: (_as_hits(ranked(q)), _as_hits(injected(q))) for q in queries}
    runs = {q.id: (credited(hits[q.id][0], q.judgments),
                   [credited([h], q.judgments)[0] for h in hits[q.id][1]]) for q in queries}

    def figures(qs: list[Query]) -> dict[str, Any]:
        judged = [q for q in qs if q.judgments]
        empty = [q for q in qs if not q.judgments]
        return {
            "ndcg@10": mean([ndcg_at(runs[q.id][0], q.judgments, 10) for q in judged]),
            "ndcg@5": mean([ndcg_at(runs[q.id][0], q.judgments, 5) for q in judged]),
            "mrr": mean([reciprocal_rank(runs[q.id][0], q.judgments, SEARCH_DEPTH)
                         for q in judged]),
            "recall@20": mean([covered_recall_at(hits[q.id][0], q.judgments, SEARCH_DEPTH)
                               for q in judged]),
            "hit@3": mean([hit_at(runs[q.id][0], q.judgments, 3) for q in judged]),
            "auto_hit_rate": mean([float(any(q.judgments.get(d, 0) >= 1
                                             for d in runs[q.id][1])) for q in judged]),
            "auto_fpr": mean([float(bool(runs[q.id][1])) for q in empty]),
            # Of everything injected into answerable queries, the share that is relevant.
            "auto_precision": mean([float(q.judgments.get(d, 0) >= 1)
                                    for q in judged for d in runs[q.id][1]]),
            "n_queries": len(qs), "n_judged": len(judged), "n_empty": len(empty),
        }

    result = figures(buckets.pop("all"))
    result["per_category"] = {c: figures(qs) for c, qs in sorted(buckets.items())}
    return result


def run(set_dir: Path, split: str = "all") -> dict[str, Any]:
    queries = read_queries(set_dir, split)
    with tempfile.TemporaryDirectory(prefix="mallory-relevance-") as tmp, \
            running_server(Path(tmp) / "eval.sqlite") as server:
        summary, now_ms = load_set(set_dir, Path(tmp), server.url, server.token, server.db)
        if summary.rejected:
            print(f"note: {len(summary.rejected)} notes rejected by the hub's validation",
                  file=sys.stderr)
        db = server.db

        def ours_ranked(q: Query) -> list[str]:
            result = asyncio.run(search(db, q.query, now_ms, limit=SEARCH_DEPTH, policy=EXPLICIT))
            return [tuple(doc_id(h.kind, d) for d in h.covers) for h in result.hits]

        def ours_injected(q: Query) -> list[str]:
            found = asyncio.run(gated(db, q.query, now_ms)).hits
            return [tuple(doc_id(h.kind, d) for d in h.covers) for h in found]

        docs = documents(db.connection)
        result = {"system": score_queries(queries, ours_ranked, ours_injected), "baselines": {}}
        for baseline in (NaiveFts5(docs), Bm25s(docs)):
            cache: dict[str, list[str]] = {}

            def ranked(q: Query, b: Any = baseline, c: dict = cache) -> list[str]:
                if q.id not in c:
                    c[q.id] = b.search(q.query, SEARCH_DEPTH)
                return c[q.id]

            result["baselines"][baseline.name] = score_queries(
                queries, ranked, lambda q, r=ranked: r(q)[:1])
        result["documents"] = {"notes": summary.sent + summary.unchanged,
                               "rejected_notes": len(summary.rejected),
                               "all": len(docs)}
        return result


def _fmt(value: Any) -> str:
    if value is None:
        return "   –  "
    return f"{value:6.3f}" if isinstance(value, float) else f"{value:6d}"


def print_table(result: dict[str, Any]) -> None:
    systems = {"mallory": result["system"], **result["baselines"]}
    print(f"documents: {result['documents']}")
    print(f"{'':14}" + "".join(f"{k:>15}" for k in KEYS))
    for name, m in systems.items():
        print(f"{name:14}" + "".join(f"{_fmt(m[k]):>15}" for k in KEYS))
    print("\nper category (mallory | fts5_naive | bm25s):")
    for cat, m in result["system"]["per_category"].items():
        cells = []
        for k in KEYS[:-1]:
            vals = [s["per_category"][cat][k] for s in systems.values()]
            if all(v is None for v in vals):
                continue
            cells.append(f"{k} " + "/".join(_fmt(v).strip() for v in vals))
        print(f"  {cat:20} n={m['n_queries']:<3} " + "  ".join(cells))


def plot(result: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    systems = {"mallory": result["system"], **result["baselines"]}
    metrics = [k for k in KEYS if k != "n_queries"]
    fig, ax = plt.subplots(figsize=(9, 4))
    width = 0.8 / len(systems)
    for i, (name, m) in enumerate(systems.items()):
        ax.bar([x + i * width for x in range(len(metrics))],
               [m[k] or 0 for k in metrics], width, label=name)
    ax.set_xticks([x + width * (len(systems) - 1) / 2 for x in range(len(metrics))], metrics)
    ax.set_ylim(0, 1)
    ax.set_title("Recall relevance on one set (auto_fpr: lower is better)")
    ax.legend(loc="lower left")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", required=True, type=Path, help="evaluation set folder")
    parser.add_argument("--json", type=Path, help="write the figures as JSON here")
    parser.add_argument("--plot", type=Path, help="write a PNG chart here")
    parser.add_argument("--split", choices=("all", "tune", "heldout"), default="all",
                        help="only the tuning or the held-out queries of a set")
    args = parser.parse_args(argv)
    if not (args.set / "queries.jsonl").is_file():
        print(f"error: {args.set} has no queries.jsonl (DESIGN.md §6)", file=sys.stderr)
        return 2
    result = run(args.set, args.split)
    print_table(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    if args.plot:
        plot(result, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())

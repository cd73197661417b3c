"""Pooling relevance runs: several `bench.relevance --json` files (e.g. one per LoCoMo
sample) as one set of queries, every metric with its 95% bootstrap interval, plus the
pointer ratio (Σ ndcg@10_pointer / Σ ndcg@10: how much of the turn-level nDCG the hits'
links keep).

    uv run python -m bench.pool RUN.json [RUN.json ...] [--per-category]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from bench.bootstrap import draws, ratio_interval
from bench.report import figure
from bench.scoring import METRICS, bucket_figures

POINTER = ("ndcg@10_pointer", "ndcg@10")


def pooled(runs: list[dict[str, Any]]) -> dict[str, Any]:
    queries = [q for run in runs for q in run["per_query"]]
    figures = [q["figures"] for q in queries]
    result = bucket_figures(figures, sum(bool(q["judgments"]) for q in queries))
    nums = [f.get(POINTER[0], 0.0) for f in figures]
    dens = [f.get(POINTER[1], 0.0) for f in figures]
    interval = ratio_interval(nums, dens, draws(len(figures))) if figures else None
    result["pointer_ratio"] = sum(nums) / sum(dens) if sum(dens) else None
    result["ci"]["pointer_ratio"] = list(interval) if interval else None
    return result


def lines(result: dict[str, Any]) -> list[str]:
    keys = [m.key for m in METRICS] + ["pointer_ratio"]
    return [f"{k:28}{figure(result[k], result['ci'].get(k))}" for k in keys
            if result.get(k) is not None]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", type=Path, help="bench.relevance --json files")
    parser.add_argument("--per-category", action="store_true")
    args = parser.parse_args(argv)
    missing = [str(p) for p in args.runs if not p.is_file()]
    if missing:
        print(f"error: no such run file: {', '.join(missing)}", file=sys.stderr)
        return 2
    runs = [json.loads(p.read_text(encoding="utf-8")) for p in args.runs]
    modes = sorted({r.get("mode", "?") for r in runs})
    result = pooled(runs)
    print(f"sets: {', '.join(r['set'] for r in runs)}  mode: {', '.join(modes)}  "
          f"queries: {result['n_queries']}")
    print("\n".join(lines(result)))
    if args.per_category:
        cats = sorted({q["category"] for r in runs for q in r["per_query"]})
        for cat in cats:
            sub = [{**r, "per_query": [q for q in r["per_query"] if q["category"] == cat]}
                   for r in runs]
            part = pooled(sub)
            print(f"\n{cat}  n={part['n_queries']}")
            print("\n".join("  " + line for line in lines(part)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

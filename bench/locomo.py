"""LoCoMo harness: conversation memory on a public benchmark, one sample's memory at a
time, its own questions and another sample's (no answer there), per category and overall
with 95% bootstrap intervals.

    uv run python -m bench.locomo --samples 0-4 --view owner|third --mode lexical|adaptive
        [--root DIR] [--json PATH] [--rebuild]

Each sample's conversations are loaded through the real path and kept under
bench-output/locomo (bench.locomo_memory); its questions go through the system's seam
(bench.system) exactly as bench.relevance asks them. Samples 0–4 may be tuned on, 5–9
are for reporting only (the LoCoMo folder's README).

Figures (a conversation unit shows two turns, so every hit is expanded into the turn ids
it holds, duplicates removed, before it is scored):
- turn_ndcg@10, turn_recall@10: explicit search's first 10 turns;
- unit_ndcg@10, unit_recall@10: its first 10 hits, each credited once (bench.metrics);
- pointer_ndcg@10: its first 10 hits, each credited only with the turn its link opens
  (bench.scoring.pointed); pointer_ratio, Σ pointer_ndcg@10 / Σ unit_ndcg@10 over a
  bucket, is how much of the hits' nDCG their links keep;
- auto_hit: automatic recall injected a turn the question rests on;
- auto_shown: a turn the question rests on is on any line of the Recall block, a hit's
  neighbouring turns included (worker/recall/neighbours.py): what the model was shown;
- auto_fpr: of the cross-sample questions, the share that got anything injected;
- hit_evidence_share, shown_evidence_share: of all the evidence turns of a bucket's
  questions, the share the injected hits hold (as auto_hit counts them) and the share on
  any line of the block (as auto_shown does).

A hit holds only the turns its block entry writes (shared/block/envelope.py: a turn the
budget leaves out is not one it covers), so every figure of automatic recall counts what
the model is shown.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench import runfile
from bench.bootstrap import draws, ratio_interval
from bench.evalset import Query
from bench.locomo_memory import (
    CACHE,
    DEFAULT_ROOT,
    NO_ANSWER,
    VIEWS,
    memory,
    questions,
    samples_arg,
)
from bench.metrics import covered_recall_at, credited, ndcg_at, recall_at
from bench.provenance import provenance
from bench.report import figure
from bench.scoring import pointed
from bench.system import MODES, Hit, Injection, ModeUnavailable, build, require

K = 10
COLUMNS = ("turn_ndcg@10", "turn_recall@10", "unit_ndcg@10", "unit_recall@10",
           "pointer_ndcg@10", "auto_hit", "auto_shown", "auto_fpr")
# A ratio of two columns' sums over a bucket: (name, numerator, denominator).
RATIOS = (("pointer_ratio", "pointer_ndcg@10", "unit_ndcg@10"),
          ("hit_evidence_share", "hit_evidence", "evidence"),
          ("shown_evidence_share", "shown_evidence", "evidence"))


def turns(hits: Sequence[Hit]) -> list[str]:
    """The turns the hits show, in order, each once."""
    seen: dict[str, None] = {}
    for hit in hits:
        seen.update(dict.fromkeys(hit))
    return list(seen)


def figures(q: Query, ranked: Sequence[Hit], injection: Injection) -> dict[str, float]:
    if not q.judgments:
        return {"auto_fp": float(bool(injection.hits))}
    listed = turns(ranked)
    evidence = {t for t, g in q.judgments.items() if g >= 1}
    held = evidence.intersection(turns(injection.hits))
    shown = evidence.intersection(injection.shown or ())
    return {
        "turn_ndcg@10": ndcg_at(listed, q.judgments, K),
        "turn_recall@10": recall_at(listed, q.judgments, K),
        "unit_ndcg@10": ndcg_at(credited(ranked, q.judgments), q.judgments, K),
        "unit_recall@10": covered_recall_at(ranked, q.judgments, K),
        "pointer_ndcg@10": ndcg_at(pointed(ranked), q.judgments, K),
        "auto_hit": float(bool(held)),
        "auto_shown": float(bool(shown)),
        "hit_evidence": float(len(held)),
        "shown_evidence": float(len(shown)),
        "evidence": float(len(evidence)),
    }


def bucket(rows: Sequence[dict[str, float]]) -> dict[str, Any]:
    """Each column's mean over the rows that have it, with a 95% bootstrap interval."""
    picks = draws(len(rows))
    out: dict[str, Any] = {"n": len(rows), "ci": {}}
    for col in COLUMNS:
        key = "auto_fp" if col == "auto_fpr" else col
        nums = [r.get(key, 0.0) for r in rows]
        dens = [1.0 if key in r else 0.0 for r in rows]
        out[col] = sum(nums) / sum(dens) if sum(dens) else None
        interval = ratio_interval(nums, dens, picks) if sum(dens) else None
        out["ci"][col] = list(interval) if interval else None
    for name, num, den in RATIOS:
        nums, dens = [r.get(num, 0.0) for r in rows], [r.get(den, 0.0) for r in rows]
        out[name] = sum(nums) / sum(dens) if sum(dens) else None
        interval = ratio_interval(nums, dens, picks) if sum(dens) else None
        out["ci"][name] = list(interval) if interval else None
    return out


def summarise(per_query: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Overall, and per category (the no-answer questions are their own category)."""
    by_cat: dict[str, list[dict[str, float]]] = defaultdict(list)
    for r in per_query:
        by_cat[r["category"]].append(r["figures"])
    return {"all": bucket([r["figures"] for r in per_query]),
            "per_category": {c: bucket(rows) for c, rows in sorted(by_cat.items())}}


def run(root: Path, samples: list[int], view: str, mode: str, rebuild: bool = False,
        cache: Path = CACHE) -> dict[str, Any]:
    per_query: list[dict[str, Any]] = []
    for sample in samples:
        with memory(root, sample, rebuild, cache) as mem:
            system = build(mem.db, mem.now_ms, mode)
            for q in questions(root, view, sample, samples):
                ranked, injected = system.ranked(q.query), system.injected(q.query)
                per_query.append({"id": q.id, "sample": sample, "category": q.category,
                                  "ranked": turns(ranked)[:K],
                                  "injected": turns(injected.hits),
                                  "figures": figures(q, ranked, injected)})
        print(f"sample {sample}: done", file=sys.stderr, flush=True)
    return {"benchmark": "locomo", "view": view, "mode": mode, "samples": samples,
            **summarise(per_query), "per_query": per_query}


def print_table(result: dict[str, Any]) -> None:
    print(f"LoCoMo {result['view']}'s view, samples {result['samples']}, mode "
          f"{result['mode']} (95% bootstrap intervals; {NO_ANSWER}: no-answer questions)")
    width = 22
    shown = (*COLUMNS, *(name for name, _, _ in RATIOS))
    print(f"{'category':14}{'n':>5}  " + "".join(f"{c:{width}}" for c in shown))
    rows = [*result["per_category"].items(), ("all", result["all"])]
    for name, b in rows:
        print(f"{name:14}{b['n']:5}  " + "".join(
            f"{figure(b[c], b['ci'][c]):{width}}" for c in shown))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", default="0-4", help="e.g. 0-4 (tuning) or 5-9")
    parser.add_argument("--view", choices=VIEWS, default="owner")
    parser.add_argument("--mode", default="lexical", metavar="|".join(MODES))
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT,
                        help="the converted LoCoMo folder")
    parser.add_argument("--json", type=Path, help="write the figures as JSON here")
    parser.add_argument("--rebuild", action="store_true",
                        help="build the cached memories again")
    args = parser.parse_args(argv)
    try:
        samples = samples_arg(args.samples)
        require(args.mode)
    except (ValueError, ModeUnavailable) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not (args.root / "manifest.json").is_file():
        print(f"error: {args.root} is not the LoCoMo folder (no manifest.json)",
              file=sys.stderr)
        return 2
    result = {**run(args.root, samples, args.view, args.mode, args.rebuild), **provenance()}
    print_table(result)
    if args.json:
        runfile.write(result, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())

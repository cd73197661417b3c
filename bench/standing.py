"""Standing ablation: the measured effect of each constant of the knowledge model
(shared/rank/policy.py STANDING, and competing claims together), lexical recall on one
loaded set.

    uv run python -m bench.standing --set DIR [--split tune|heldout|all] [--json PATH]

Variants, each against `none` (the ranking before standings: no multiplier, no bundles):
- `design`: every constant at its value, bundles on (what ships);
- `without <c>`: the design with constant c at 0;
- `only <c>`: constant c alone (no bundles);
- `no bundles`: the design's multiplier without following conflict relations;
- `conversation -0.02`: the design's evidence delta (docs/design.md) on past conversations too.
Prints the main metrics per variant, the paired difference design − none, and per
category the metrics that move. Tune on `--split tune` only (bench/sets/README.md).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from bench import runfile
from bench.evalset import loaded_set, read_queries
from bench.inputs import input_problem
from bench.provenance import provenance
from bench.relevance import SPLITS
from bench.scoring import paired, run_queries, summarise
from bench.system import SEARCH_DEPTH, Hit, Injection, System, _hit, injection
from local.sqlite_db import SqliteDatabase
from shared.rank.policy import AUTOMATIC, EXPLICIT, NEUTRAL, STANDING, StandingWeights
from worker.recall.automatic import gated
from worker.recall.explicit import search

CONSTANTS = ("identity", "stable_canonical", "evidence", "deprecated")
# The design's evidence delta on past conversations too (what STANDING measured against).
SEED_CONVERSATION = -0.02
COLUMNS = ("ndcg@10", "mrr", "hit@3", "auto_hit_rate", "auto_fpr", "auto_precision",
           "canonical_first_auto", "canonical_first_explicit", "contradiction_coverage")
PER_CATEGORY = ("ndcg@10", "mrr", "auto_hit_rate", "auto_fpr")


@dataclass(frozen=True)
class Variant:
    name: str
    weights: StandingWeights
    together: bool


def variants() -> list[Variant]:
    found = [Variant("none", NEUTRAL, False), Variant("design", STANDING, True),
             Variant("no bundles", STANDING, False),
             Variant("conversation -0.02", replace(STANDING, conversation=SEED_CONVERSATION),
                     True)]
    found += [Variant(f"without {c}", replace(STANDING, **{c: 0.0}), True) for c in CONSTANTS]
    found += [Variant(f"only {c}", replace(NEUTRAL, floor=STANDING.floor,
                                           ceiling=STANDING.ceiling,
                                           **{c: getattr(STANDING, c)}), False)
              for c in CONSTANTS]
    return found


def system(db: SqliteDatabase, now_ms: int, v: Variant) -> System:
    explicit = replace(EXPLICIT, standing=v.weights)
    automatic = replace(AUTOMATIC, standing=v.weights, together=v.together)

    def ranked(text: str) -> list[Hit]:
        result = asyncio.run(search(db, text, now_ms, limit=SEARCH_DEPTH, policy=explicit))
        return [_hit(h) for h in result.hits]

    def injected(text: str) -> Injection:
        async def recall() -> Injection:
            return await injection(db, await gated(db, text, now_ms, policy=automatic))
        return asyncio.run(recall())

    return System(v.name, ranked, injected)


def run(set_dir: Path, split: str = "all", only: Sequence[str] | None = None
        ) -> dict[str, Any]:
    """Every variant (or those named in `only`, which must include none and design)."""
    queries = read_queries(set_dir, split)
    with loaded_set(set_dir) as loaded:
        runs = {}
        for v in variants():
            if only is not None and v.name not in only:
                continue
            built = system(loaded.db, loaded.now_ms, v)
            runs[v.name] = run_queries(queries, built.ranked, built.injected)
    return {"set": set_dir.resolve().name, "split": split,
            "variants": {name: summarise(r) for name, r in runs.items()},
            "design_minus_none": paired(runs["design"], runs["none"])}


def _cell(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def print_table(result: dict[str, Any], columns: Sequence[str] = COLUMNS) -> None:
    print(f"set: {result['set']}  split: {result['split']}  mode: lexical")
    width = max(len(n) for n in result["variants"]) + 2
    print(" " * width + "".join(f"{c[:12]:>13}" for c in columns))
    for name, m in result["variants"].items():
        print(f"{name:{width}}" + "".join(f"{_cell(m[c]):>13}" for c in columns))
    print("\ndesign − none (paired bootstrap, 95%):")
    for key, d in result["design_minus_none"].items():
        diff, ci = d["difference"], d["ci"]
        print(f"  {key:14} {diff:+.3f} [{ci[0]:+.3f}, {ci[1]:+.3f}]" if diff is not None
              and ci else f"  {key:14} –")
    print("\nper category, where a variant moves a metric (none → variant):")
    base = result["variants"]["none"]["per_category"]
    for cat, figures in base.items():
        for key in PER_CATEGORY:
            before = figures.get(key)
            moved = {name: m["per_category"][cat].get(key)
                     for name, m in result["variants"].items() if name != "none"}
            if before is None or all(v == before for v in moved.values()):
                continue
            changes = ", ".join(f"{n} {_cell(v)}" for n, v in moved.items() if v != before)
            print(f"  {cat:18} {key:13} none {_cell(before)}: {changes}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", required=True, type=Path)
    parser.add_argument("--split", choices=SPLITS, default="all")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    problem = input_problem(args.set, args.split)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    result = {**run(args.set, args.split), **provenance()}
    print_table(result)
    if args.json:
        runfile.write(result, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())

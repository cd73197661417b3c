"""Ablation: several retrieval modes on one loaded set, one row per mode, the main
metrics with their 95% intervals, and each mode's paired difference against the first.

    uv run python -m bench.ablation --set DIR --modes lexical,hybrid,adaptive,quality \\
        [--split tune|heldout] [--json PATH]

Every mode goes through the seam (bench.system), so a mode runs here the day its builder
exists; until then it is refused, naming the modes this build has, before the set loads.
The JSON holds, per mode, the same `system` figures bench.relevance writes.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench import runfile
from bench.evalset import loaded_set, read_queries
from bench.inputs import input_problem
from bench.provenance import provenance
from bench.relevance import SPLITS
from bench.report import figure
from bench.scoring import PAIRED, paired, run_queries, summarise
from bench.system import DEFAULT_MODE, ModeUnavailable, build, require

COLUMNS = ("ndcg@10", "mrr", "recall@20", "auto_hit_rate", "auto_fpr", "auto_precision",
           "auto_waste")
NAME_WIDTH, CELL_WIDTH = 10, 23


def run(set_dir: Path, modes: Sequence[str], split: str = "all") -> dict[str, Any]:
    for mode in modes:
        require(mode)
    queries = read_queries(set_dir, split)
    with loaded_set(set_dir) as loaded:
        runs = {}
        for mode in modes:
            system = build(loaded.db, loaded.now_ms, mode)
            runs[mode] = run_queries(queries, system.ranked, system.injected)
    first = modes[0]
    return {"set": set_dir.resolve().name, "split": split,
            "modes": {m: summarise(r) for m, r in runs.items()},
            "paired": {m: paired(r, runs[first]) for m, r in runs.items() if m != first},
            "reference": first}


def print_table(result: dict[str, Any]) -> None:
    print(f"set: {result['set']}  split: {result['split']}  (95% bootstrap intervals)")
    print(f"{'mode':{NAME_WIDTH}}" + "".join(f"{k:{CELL_WIDTH}}" for k in COLUMNS))
    for mode, m in result["modes"].items():
        print(f"{mode:{NAME_WIDTH}}" + "".join(
            f"{figure(m[k], m['ci'][k]):{CELL_WIDTH}}" for k in COLUMNS))
    if result["paired"]:
        print(f"\nmode − {result['reference']} (paired bootstrap):")
        print(f"{'mode':{NAME_WIDTH}}" + "".join(f"{k:{CELL_WIDTH}}" for k in PAIRED))
        for mode, d in result["paired"].items():
            print(f"{mode:{NAME_WIDTH}}" + "".join(
                f"{figure(d[k]['difference'], d[k]['ci'], signed=True):{CELL_WIDTH}}"
                for k in PAIRED))


def parse_modes(text: str) -> list[str]:
    modes = [m.strip() for m in text.split(",") if m.strip()]
    if len(set(modes)) != len(modes):
        raise ModeUnavailable(f"--modes names a mode twice: {text}")
    return modes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", required=True, type=Path)
    parser.add_argument("--modes", default=DEFAULT_MODE,
                        help="comma-separated modes; the first is the reference")
    parser.add_argument("--split", choices=SPLITS, default="all")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    try:
        modes = parse_modes(args.modes)
        problem = (input_problem(args.set, args.split, modes) if modes
                   else "--modes names no mode")
    except ModeUnavailable as exc:
        problem = str(exc)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    result = {**run(args.set, modes, args.split), **provenance()}
    print_table(result)
    if args.json:
        runfile.write(result, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())

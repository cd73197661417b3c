"""Relevance benchmark: nDCG@10/@5, MRR, Recall@20 and Hit@3 of explicit search; the hit
rate, false-positive rate, precision and duplicate waste of automatic recall; canonical
first and contradiction coverage where the set marks them — overall and per category,
each with a 95% bootstrap interval, for one retrieval mode of our system and two
baselines measured in the same run on the same documents, plus paired differences.

    uv run python -m bench.relevance --set DIR [--split tune|heldout]
        [--mode lexical|hybrid|adaptive|quality] [--json PATH] [--plot PATH]

The set is loaded through the real path (the hub's parser and POST /vault/sync over HTTP
for notes, the chat store for conversations) into a fresh database. The harness knows
nothing of the queries in advance. Without --mode, the mode a local user gets by default
(bench.system.DEFAULT_MODE). The JSON holds `system`, `baselines`, `paired`, `per_query`
(each query's hits, for bench.gates) and where it was measured.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench import runfile
from bench.baselines import Bm25s, NaiveFts5, documents
from bench.evalset import LoadedSet, Query, loaded_set, read_queries
from bench.inputs import input_problem
from bench.provenance import provenance
from bench.report import plot, print_table
from bench.scoring import QueryRun, paired, per_query, run_queries, summarise
from bench.system import DEFAULT_MODE, MODES, SEARCH_DEPTH, Injection
from bench.system import build as build_system
from bench.system import require as require_mode

SPLITS = ("all", "tune", "heldout")


def baseline_runs(loaded: LoadedSet, queries: Sequence[Query]) -> dict[str, list[QueryRun]]:
    """The baselines on the same documents. They have no gate: they inject their top hit
    whenever they return anything, and build no block."""
    docs = documents(loaded.db.connection)
    runs = {}
    for baseline in (NaiveFts5(docs), Bm25s(docs)):
        cache: dict[str, list[tuple[str, ...]]] = {}

        def ranked(text: str, b: Any = baseline, c: dict = cache) -> list[tuple[str, ...]]:
            if text not in c:
                c[text] = [(d,) for d in b.search(text, SEARCH_DEPTH)]
            return c[text]

        def injected(text: str, r: Any = ranked) -> Injection:
            return Injection(r(text)[:1])

        runs[baseline.name] = run_queries(queries, ranked, injected)
    return runs


def evaluate(loaded: LoadedSet, queries: Sequence[Query], mode: str) -> dict[str, Any]:
    system = build_system(loaded.db, loaded.now_ms, mode)
    ours = run_queries(queries, system.ranked, system.injected)
    baselines = baseline_runs(loaded, queries)
    summary = loaded.summary
    return {
        "mode": mode,
        "system": summarise(ours),
        "baselines": {name: summarise(runs) for name, runs in baselines.items()},
        "paired": {name: paired(ours, runs) for name, runs in baselines.items()},
        "documents": {"notes": summary.sent + summary.unchanged,
                      "rejected_notes": len(summary.rejected),
                      "all": len(documents(loaded.db.connection))},
        "per_query": per_query(ours),
    }


def run(set_dir: Path, split: str = "all", mode: str = DEFAULT_MODE) -> dict[str, Any]:
    require_mode(mode)
    queries = read_queries(set_dir, split)
    with loaded_set(set_dir) as loaded:
        result = evaluate(loaded, queries, mode)
    return {"set": set_dir.resolve().name, "split": split, **result}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", required=True, type=Path, help="evaluation set folder")
    parser.add_argument("--json", type=Path, help="write the figures as JSON here")
    parser.add_argument("--plot", type=Path, help="write a PNG chart here")
    parser.add_argument("--split", choices=SPLITS, default="all",
                        help="only the tuning or the held-out queries of a set")
    parser.add_argument("--mode", default=DEFAULT_MODE, metavar="|".join(MODES),
                        help=f"retrieval mode (default: {DEFAULT_MODE})")
    args = parser.parse_args(argv)
    problem = input_problem(args.set, args.split, [args.mode])
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    result = {**run(args.set, args.split, args.mode), **provenance()}
    print_table(result)
    if args.json:
        runfile.write(result, args.json)
    if args.plot:
        plot(result, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())

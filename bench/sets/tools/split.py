"""Assign every query of a set to the `tune` or `heldout` split, stratified by category.

    uv run python -m bench.sets.tools.split --set bench/sets/mixed-vault [--check]

Method: within each category, the query ids are sorted, shuffled with
random.Random(f"{SEED}:{category}"), and the first round(HELDOUT_SHARE × n) (at least one
when the category has two or more queries) are held out. The split depends only on the
ids and categories, never on any system's results, so it can be recomputed at any time;
`--check` fails when the file disagrees with the recomputation. Held-out queries are never
used to tune anything.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import defaultdict
from pathlib import Path

SEED = 1414
HELDOUT_SHARE = 0.3


def assign(queries: list[dict]) -> dict[str, str]:
    by_category: dict[str, list[str]] = defaultdict(list)
    for q in queries:
        by_category[q["category"]].append(q["id"])
    split = {}
    for category, ids in sorted(by_category.items()):
        ids = sorted(ids)
        random.Random(f"{SEED}:{category}").shuffle(ids)
        n_held = round(HELDOUT_SHARE * len(ids))
        if len(ids) >= 2:
            n_held = max(1, n_held)
        for i, qid in enumerate(ids):
            split[qid] = "heldout" if i < n_held else "tune"
    return split


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", required=True, type=Path)
    parser.add_argument("--check", action="store_true", help="verify, do not write")
    args = parser.parse_args(argv)
    path = args.set / "queries.jsonl"
    queries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
               if line.strip()]
    split = assign(queries)
    if args.check:
        wrong = [q["id"] for q in queries if q.get("split") != split[q["id"]]]
        if wrong:
            print(f"error: {len(wrong)} queries disagree with the seeded split: {wrong[:5]}",
                  file=sys.stderr)
            return 1
        return 0
    lines = [json.dumps({**q, "split": split[q["id"]]}, ensure_ascii=False) for q in queries]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    held = sum(1 for s in split.values() if s == "heldout")
    print(f"{held} of {len(split)} queries held out ({held / len(split):.0%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

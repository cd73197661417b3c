"""Two bench.recall_dump files compared: the same recall, or only a shorter tail.

    uv run python -m bench.recall_compare BEFORE AFTER

Every field of every line must be equal (the query, the Recall block, every injected hit,
the explicit search), and so must the gate's decisions on every candidate it weighed or
chose, in the same order. The other decisions are those on candidates the gate could
neither weigh nor choose (beyond its depth, or their group's slot taken): AFTER may lack
some of them (worker/recall/depth.py builds no group sure to rank after the depth), and
those it keeps must be BEFORE's, in BEFORE's order, their rank among the slot holders
aside (a left-out group above them lowers it). Prints what differs and exits 1, or the
counts.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

# A decision's fields as bench.recall_dump writes them.
RANK, CONFIDENCE, RULE, CHOSEN = 4, 11, 12, 13
# The verdicts of a candidate the gate neither weighed nor chose.
UNWEIGHED = frozenset({"depth", "group_taken", "partnered", "relevance_floor", "fuzzy_only"})


def _weighed(d: list[Any]) -> bool:
    return d[CONFIDENCE] is not None or bool(d[CHOSEN]) or d[RULE] not in UNWEIGHED


def _key(d: list[Any]) -> list[Any]:
    return d[:RANK] + d[RANK + 1:]


def compare_decisions(before: list[list[Any]], after: list[list[Any]]) -> str | None:
    """What is wrong with AFTER's decisions against BEFORE's (None: nothing)."""
    if [d for d in before if _weighed(d)] != [d for d in after if _weighed(d)]:
        return "the weighed or chosen decisions differ"
    at = 0
    for d in after:
        while at < len(before) and _key(before[at]) != _key(d):
            if _weighed(before[at]):
                return f"a weighed decision is missing: {before[at]}"
            at += 1
        if at == len(before):
            return f"a decision BEFORE does not hold, or out of order: {d}"
        at += 1
    return None


def compare(before: Path, after: Path) -> tuple[list[str], int, int]:
    """Problems, decisions in BEFORE, decisions left out in AFTER."""
    problems: list[str] = []
    total = left_out = 0
    b_lines, a_lines = before.read_text().splitlines(), after.read_text().splitlines()
    if len(b_lines) != len(a_lines):
        return [f"{len(b_lines)} lines against {len(a_lines)}"], 0, 0
    for n, (b_line, a_line) in enumerate(zip(b_lines, a_lines, strict=True), 1):
        b, a = json.loads(b_line), json.loads(a_line)
        b_dec, a_dec = b.pop("decisions"), a.pop("decisions")
        total += len(b_dec)
        left_out += len(b_dec) - len(a_dec)
        if b != a:
            problems.append(f"line {n}: {sorted(k for k in b if b[k] != a.get(k))} differ")
        elif (wrong := compare_decisions(b_dec, a_dec)) is not None:
            problems.append(f"line {n}: {wrong}")
    return problems, total, left_out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    problems, total, left_out = compare(args.before, args.after)
    for p in problems[:20]:
        print(p)
    if problems:
        print(f"{len(problems)} lines differ")
        return 1
    print(f"same recall: {total} decisions, {left_out} on unweighed candidates left out")
    return 0


if __name__ == "__main__":
    sys.exit(main())

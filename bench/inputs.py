"""The checks every benchmark command makes of its inputs before loading a set: the set
is an evaluation set folder (docs/design.md), each mode can run in this build, and the
split holds queries.
One message per problem, for the command to print and exit 2."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from bench.evalset import read_queries
from bench.system import ModeUnavailable, require


def input_problem(set_dir: Path, split: str, modes: Sequence[str] = ()) -> str | None:
    """What is wrong with running `modes` on this split of `set_dir`, or None."""
    if not (set_dir / "queries.jsonl").is_file():
        return f"{set_dir} has no queries.jsonl (docs/design.md, Evaluation sets)"
    try:
        for mode in modes:
            require(mode)
    except ModeUnavailable as exc:
        return str(exc)
    if not read_queries(set_dir, split):
        return f"{set_dir} has no query in split {split!r}"
    return None

"""Run the relevance benchmark on one split of a set (tune by default).

    uv run python -m bench.sets.tools.by_split --set bench/sets/mixed-vault \\
        [--split tune|heldout] [--json PATH]

It stages a scratch set whose corpus is the original one (a symbolic link) and whose
queries.jsonl holds only the chosen split, then runs bench.relevance on it unchanged.
Tune on `tune`; report `heldout` only for a change that is already decided.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from bench.relevance import print_table, run

SPLITS = ("tune", "heldout")


def stage(set_dir: Path, split: str, scratch: Path) -> Path:
    target = scratch / f"{set_dir.name}-{split}"
    target.mkdir()
    (target / "corpus").symlink_to((set_dir / "corpus").resolve(), target_is_directory=True)
    lines = [line for line in (set_dir / "queries.jsonl").read_text(encoding="utf-8")
             .splitlines() if line.strip() and json.loads(line).get("split") == split]
    if not lines:
        raise SystemExit(f"error: {set_dir} has no query with split {split!r}")
    (target / "queries.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", required=True, type=Path)
    parser.add_argument("--split", choices=SPLITS, default="tune")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="mallory-split-") as tmp:
        result = run(stage(args.set, args.split, Path(tmp)))
    result["split"] = args.split
    print(f"split: {args.split}")
    print_table(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

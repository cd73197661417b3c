"""Recall at scale: 10k, 100k and 1M messages (with 500, 5k and 50k notes).

    uv run python -m bench.scale [--sizes 10000 100000 1000000] [--build-only]
                                 [--folder .data/scale] [--queries 200] [--json PATH]

Each corpus is bench.latency's (bench/latency_corpus.py: the current schema, messages with
their conversation units, notes of 5 sections parsed by the hub), one note per 20 messages,
built once into FOLDER (an ignored folder) with the time each build step took kept beside
it (`<name>.build.json`). For each size it reports the database's size on disk and per
table, the build steps' times, and lexical and hybrid recall against the raw FTS5 floor of
the same run (bench.latency's measure), then what grows faster than the corpus: each
figure's growth per tenfold size, against 10× for a linear one.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

from bench.latency_corpus import build
from local.migrate import migrate
from local.sqlite_db import SqliteDatabase

NOTES_PER_MESSAGE = 20
SIZES = [10_000, 100_000, 1_000_000]
FOLDER = Path(".data/scale")


def corpus_path(folder: Path, messages: int) -> Path:
    return folder / f"scale-{messages}-{messages // NOTES_PER_MESSAGE}.sqlite"


def cached_corpus(folder: Path, messages: int) -> tuple[SqliteDatabase, dict[str, float]]:
    """The corpus of this size, built once (its build times kept beside it)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = corpus_path(folder, messages)
    meta = path.with_suffix(".build.json")
    if not path.exists():
        partial = path.with_suffix(".building")
        partial.unlink(missing_ok=True)
        phases: dict[str, float] = {}
        started = time.perf_counter()
        build(partial, messages, messages // NOTES_PER_MESSAGE, phases).close()
        phases["total_s"] = time.perf_counter() - started
        meta.write_text(json.dumps(phases, indent=2))
        partial.rename(path)
    db = SqliteDatabase(path)
    asyncio.run(migrate(db))
    return db, json.loads(meta.read_text())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=SIZES)
    parser.add_argument("--folder", type=Path, default=FOLDER)
    parser.add_argument("--build-only", action="store_true")
    args = parser.parse_args(argv)
    for messages in args.sizes:
        db, phases = cached_corpus(args.folder, messages)
        print(messages, phases, flush=True)
        db.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Recall at scale: 10k, 100k and 1M messages (with 500, 5k and 50k notes).

    uv run python -m bench.scale [--sizes 10000 100000 1000000] [--build-only]
                                 [--lexical-only] [--folder .data/scale] [--queries 200]
                                 [--json PATH]

Each corpus is bench.latency's (bench/latency_corpus.py: the current schema, messages with
their conversation units, notes of 5 sections parsed by the hub), one note per 20
messages, built once into FOLDER (an ignored folder) with the time each build step took
kept beside it (`<name>.build.json`): writing the messages with their units and FTS rows
is the index build, as the chat store's triggers do it. For each size it reports the
database's size on disk (and what the FTS indexes and the vectors take of it), the build
steps' times, and lexical and hybrid recall measured as bench.latency measures them
(same queries, the raw FTS5 floor of the same run; hybrid embeds each query with the
local MiniLM against random unit vectors for the units, written once into the same file,
and the time to write and to reload them). Then what grows faster than the corpus: each
figure's growth per tenfold corpus, against 10× for a linear one.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

from bench.corpus import Generator
from bench.latency import QUERIES, WARMUP, measure, semantics_for
from bench.latency_corpus import build, units
from local.migrate import migrate
from local.sqlite_db import SqliteDatabase
from worker.recall.retrieval_mode import RetrievalMode

NOTES_PER_MESSAGE = 20
SIZES = [10_000, 100_000, 1_000_000]
FOLDER = Path(".data/scale")
MB = 2**20

# Pages per family of tables (SQLite's dbstat): the FTS indexes, the local vectors.
FAMILY_SQL = """
SELECT CASE WHEN name LIKE '%\\_fts%' ESCAPE '\\' THEN 'fts'
            WHEN name LIKE '%local\\_vectors%' ESCAPE '\\' THEN 'vectors'
            ELSE 'rows' END AS family, sum(pgsize) AS bytes
FROM dbstat GROUP BY family
"""


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


def disk(db: SqliteDatabase) -> dict[str, float]:
    path = Path(db.path)
    files = sum(p.stat().st_size for p in (path, Path(f"{path}-wal")) if p.exists())
    families = {r["family"]: r["bytes"] for r in db.connection.execute(FAMILY_SQL)}
    return {"file_mb": files / MB, **{f"{k}_mb": v / MB for k, v in families.items()}}


def vectors_reload_s(db: SqliteDatabase, dimensions: int) -> float:
    """How long `mallory serve` takes to load the vectors into memory (a restart)."""
    from local.semantic.vectors import SqliteVectorIndex

    started = time.perf_counter()
    SqliteVectorIndex.beside(db, dimensions).close()
    return time.perf_counter() - started


def run_size(folder: Path, messages: int, queries: list[str], lexical_only: bool
             ) -> dict[str, Any]:
    started = time.perf_counter()
    db, phases = cached_corpus(folder, messages)
    row: dict[str, Any] = {"messages": messages, "notes": messages // NOTES_PER_MESSAGE,
                           **units(db), "open_s": time.perf_counter() - started,
                           "build": phases}
    row["lexical"] = asyncio.run(measure(db, queries, RetrievalMode.LEXICAL, None))
    if not lexical_only:
        sem, vectors_s, written = semantics_for(db, "random")
        index: Any = sem.index
        row.update(vectors=len(index), vectors_written=written, vectors_write_s=vectors_s,
                   vectors_mb=index.nbytes / MB,
                   vectors_reload_s=vectors_reload_s(db, sem.embedder.dimensions))
        row["hybrid"] = asyncio.run(measure(db, queries, RetrievalMode.HYBRID, sem))
        index.close()
    row["disk"] = disk(db)
    db.close()
    print_size(row)
    return row


def print_size(r: dict[str, Any]) -> None:
    b, d = r["build"], r["disk"]
    print(f"\n{r['messages']:,} messages + {r['notes']:,} notes: {r['sections']:,} sections, "
          f"{r['exchanges']:,} conversation units")
    print(f"  disk {d['file_mb']:,.0f} MB (FTS {d.get('fts_mb', 0):,.0f}, rows "
          f"{d.get('rows_mb', 0):,.0f}, vectors {d.get('vectors_mb', 0):,.0f}); built in "
          f"{b['total_s']:,.0f} s: generate {b['generate_s']:,.0f}, messages + units + FTS "
          f"{b['messages_s']:,.0f}, notes + sections + FTS {b['notes_s']:,.0f}, commit + "
          f"optimize {b['commit_optimize_s']:,.0f}")
    if "vectors" in r:
        print(f"  vectors: {r['vectors']:,} ({r['vectors_written']:,} written now in "
              f"{r['vectors_write_s']:,.1f} s), {r['vectors_mb']:,.0f} MB in memory, "
              f"reloaded in {r['vectors_reload_s']:,.1f} s")
    for mode in ("lexical", "hybrid"):
        if mode not in r:
            continue
        m = r[mode]
        print(f"  {mode:<8} p50 {m['p50_ms']:7.2f} ms  p95 {m['p95_ms']:7.2f} ms  floor p95 "
              f"{m['floor_p95_ms']:6.2f} ms  p95/floor {m['p95_ms'] / m['floor_p95_ms']:5.2f}x  "
              f"CPU p95/floor {m['cpu_p95_ms'] / m['floor_cpu_p95_ms']:5.2f}x  Python "
              f"{m['python_ms']:6.2f} ms  embedding {m['embed_p50_ms']:5.2f} ms  "
              f"stepped down {m['fallbacks']}", flush=True)
    if "hybrid" in r:
        lex, hyb = r["lexical"], r["hybrid"]
        budget = lex["p95_ms"] + hyb["embed_p50_ms"] + 5
        print(f"  hybrid p95 − lexical p95 = {hyb['p95_ms'] - lex['p95_ms']:.2f} ms "
              f"(target: ≤ the embedding + 5 ms, i.e. p95 ≤ {budget:.2f} ms: "
              f"{'met' if hyb['p95_ms'] <= budget else 'MISSED'})")


# Figures compared across sizes: (label, how to read it from a size's row).
GROWTH: list[tuple[str, Any]] = [
    ("units (sections + conversation units)", lambda r: r["sections"] + r["exchanges"]),
    ("database file", lambda r: r["disk"]["file_mb"]),
    ("FTS indexes", lambda r: r["disk"].get("fts_mb")),
    ("build (messages + units + FTS)", lambda r: r["build"]["messages_s"]),
    ("build (notes + sections + FTS)", lambda r: r["build"]["notes_s"]),
    ("floor p95", lambda r: r["lexical"]["floor_p95_ms"]),
    ("lexical p95", lambda r: r["lexical"]["p95_ms"]),
    ("lexical Python", lambda r: r["lexical"]["python_ms"]),
    ("hybrid p95", lambda r: r.get("hybrid", {}).get("p95_ms")),
    ("hybrid Python", lambda r: r.get("hybrid", {}).get("python_ms")),
    ("vectors in memory", lambda r: r.get("vectors_mb")),
    ("vectors reload", lambda r: r.get("vectors_reload_s")),
]


def print_growth(rows: list[dict[str, Any]]) -> None:
    """Each figure's growth per tenfold corpus between consecutive sizes (10× is linear;
    a figure of one size that grew over 1.5× faster than the corpus is marked)."""
    if len(rows) < 2:
        return
    print("\ngrowth per tenfold corpus (linear: 10x)")
    for label, read in GROWTH:
        cells = []
        for small, large in itertools.pairwise(rows):
            a, b = read(small), read(large)
            if not a or b is None:
                cells.append("–")
                continue
            per_tenfold = (b / a) ** (1 / math.log10(large["messages"] / small["messages"]))
            cells.append(f"{per_tenfold:6.1f}x" + (" (faster)" if per_tenfold > 15 else ""))
        print(f"  {label:<38} " + "   ".join(cells))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=SIZES)
    parser.add_argument("--folder", type=Path, default=FOLDER)
    parser.add_argument("--queries", type=int, default=QUERIES)
    parser.add_argument("--build-only", action="store_true",
                        help="build (or open) the corpora and stop")
    parser.add_argument("--lexical-only", action="store_true")
    parser.add_argument("--json", type=Path, help="write the figures as JSON here")
    args = parser.parse_args(argv)
    if args.build_only:
        for messages in args.sizes:
            db, phases = cached_corpus(args.folder, messages)
            print(f"{messages:,} messages: {json.dumps(phases)}", flush=True)
            db.close()
        return 0
    gen = Generator(seed=11)
    queries = [gen.query() for _ in range(args.queries + WARMUP)]
    rows = [run_size(args.folder, m, queries, args.lexical_only) for m in sorted(args.sizes)]
    print_growth(rows)
    if args.json:
        args.json.write_text(json.dumps({"sizes": rows}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

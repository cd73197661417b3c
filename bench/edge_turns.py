"""Recall time per chat turn on one database, the same code under CPython and inside Pyodide
(bench/edge_cpu.py runs it both ways). Standard library, worker/ and local.sqlite_db only,
so it imports in Pyodide, which has neither numpy nor the hub's parsers.

    main([db_path, queries_json])   through tests/pyodide/runner.mjs, prints EDGE-TURNS <json>
"""

from __future__ import annotations

import json
import sqlite3
import statistics
import sys
import time
from typing import Any

from bench.stopwatch import Stopwatch
from local.sqlite_db import SqliteDatabase
from worker.recall.automatic import automatic_recall
from worker.recall.modes import RetrievalMode

NOW_MS = 1_780_000_000_000  # bench/latency_corpus.py's clock
WARMUP = 20
REPORT_MARK = "EDGE-TURNS "


def in_memory_copy(path: str) -> SqliteDatabase:
    """The database copied into memory, so both runtimes read the same pages from RAM."""
    db = SqliteDatabase(":memory:")
    source = sqlite3.connect(path)
    try:
        source.backup(db.connection)
    finally:
        source.close()
    return db


def cpu_seconds() -> float:
    """This process's CPU time: CPython's process_time, and inside Pyodide Node's own
    count (process.cpuUsage), since Emscripten's process clock is only wall time."""
    if sys.platform == "emscripten":
        import js  # type: ignore[import-not-found]

        used = js.process.cpuUsage()
        return (used.user + used.system) / 1e6
    return time.process_time()


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def turns(db: SqliteDatabase, queries: list[str]) -> dict[str, Any]:
    """Per lexical automatic recall (one chat turn's recall): its CPU time, its wall time,
    and the wall time spent outside the database (the Worker's own share at the edge,
    where D1 runs the SQL elsewhere). Milliseconds, p50 and p95 after WARMUP turns."""
    watch = Stopwatch()
    timed = watch.database(db)
    totals, pythons, cpus = [], [], []
    for i, text in enumerate(queries):
        watch.reset()
        started, cpu = time.perf_counter(), cpu_seconds()
        recall = await automatic_recall(timed, text, NOW_MS, message_id="bench-q",
                                        conversation_id="bench-c", semantics=None,
                                        mode=RetrievalMode.LEXICAL)
        total, used = time.perf_counter() - started, cpu_seconds() - cpu
        if recall.error:
            raise RuntimeError(f"recall of {text!r} failed: {recall.error}")
        if i >= WARMUP:
            totals.append(total * 1000)
            pythons.append((total - watch.outside) * 1000)
            cpus.append(used * 1000)
    return {"turns": len(totals), "cpu_p50_ms": statistics.median(cpus),
            "cpu_p95_ms": percentile(cpus, 0.95), "p50_ms": statistics.median(totals),
            "p95_ms": percentile(totals, 0.95), "python_p50_ms": statistics.median(pythons),
            "python_p95_ms": percentile(pythons, 0.95), "python": sys.version.split()[0],
            "platform": sys.platform}


def main(argv: Any, timings: Any = None) -> int:
    import asyncio

    db_path, queries_path = list(argv)
    with open(queries_path, encoding="utf-8") as f:
        queries = json.load(f)
    db = in_memory_copy(db_path)
    loop = asyncio.get_event_loop()
    result = loop.run_until_complete(turns(db, queries))
    db.close()
    print(REPORT_MARK + json.dumps(result), flush=True)
    return 0

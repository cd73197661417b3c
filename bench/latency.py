"""Search latency: searchCorpus against the least any FTS5 search must spend.

    uv run python -m bench.latency [--max-messages N] [--json PATH]

For each corpus size it builds a fresh SQLite D1 (the project's migrations and triggers),
runs the same generated chat queries through the lexical retriever (sanitise, one D1 batch,
rank, map to hits) and, in the same run on the same tables, the floor: the raw FTS5 query
`MATCH … ORDER BY bm25 LIMIT k` on each table for the same terms and k. Python time is
the retriever's wall time minus the time spent inside the database.
Targets at 100k messages + 10k notes: p95 ≤ 2× the floor's p95, Python ≤ 3 ms per query.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.corpus import Generator
from local.migrate import migrate
from local.sqlite_db import SqliteDatabase
from shared.query import Mode, build_query
from worker.recall import lexical
from worker.recall.corpora import MESSAGE_COLUMNS, NOTE_COLUMNS
from worker.recall.filters import Filters

SIZES = [(1_000, 100), (10_000, 1_000), (100_000, 10_000)]
QUERIES = 200
WARMUP = 20
LIMIT = 10
NOW_MS = 1_780_000_000_000

INSERT_MESSAGE = ("INSERT INTO messages (id, conversation_id, seq, role, content, created_at) "
                  "VALUES (?, ?, ?, ?, ?, ?)")
INSERT_CONVERSATION = ("INSERT OR IGNORE INTO conversations (id, title, created_at, updated_at) "
                       "VALUES (?, ?, ?, ?)")
INSERT_VAULT = "INSERT INTO vaults (uuid, name, created_at) VALUES (?, ?, ?)"
INSERT_NOTE = ("INSERT INTO vault_notes (path, vid, title, name, aliases, tags, folder, body, "
               "mtime, note_date, content_hash, synced_at) "
               "VALUES (?,(SELECT vid FROM vaults WHERE name = ?),?,?,?,?,?,?,?,?,?,?)")


def _weights(columns: dict[str, float]) -> str:
    return ", ".join(str(w) for w in columns.values())


FLOOR_NOTES = (f"SELECT rowid FROM note_sections_fts WHERE note_sections_fts MATCH ? "
               f"ORDER BY bm25(note_sections_fts, {_weights(dict(NOTE_COLUMNS))}) LIMIT ?")
FLOOR_MESSAGES = (f"SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? "
                  f"ORDER BY bm25(messages_fts, {_weights(dict(MESSAGE_COLUMNS))}) LIMIT ?")


class TimedDatabase:
    """The port with a stopwatch around every call into the database."""

    def __init__(self, db: SqliteDatabase) -> None:
        self.db, self.spent = db, 0.0

    def prepare(self, sql: str):
        return self.db.prepare(sql)

    async def batch(self, statements):
        started = time.perf_counter()
        try:
            return await self.db.batch(statements)
        finally:
            self.spent += time.perf_counter() - started


def build(path: Path, messages: int, notes: int) -> SqliteDatabase:
    db = SqliteDatabase(path)
    asyncio.run(migrate(db))
    gen = Generator()
    conn = db.connection
    conn.execute("BEGIN")
    rows = gen.messages(messages, NOW_MS)
    conn.executemany(INSERT_CONVERSATION, {(r[1], "bench", r[5], r[5]) for r in rows})
    conn.executemany(INSERT_MESSAGE, rows)
    conn.execute(INSERT_VAULT, ("00000000-0000-4000-8000-00000000bec4", "Bench", NOW_MS))
    conn.executemany(INSERT_NOTE, gen.notes(notes, NOW_MS))
    conn.execute("COMMIT")
    conn.execute("PRAGMA optimize")
    return db


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def measure(db: SqliteDatabase, queries: list[str]) -> dict[str, float]:
    timed = TimedDatabase(db)
    totals, floors, pythons = [], [], []
    conn = db.connection
    for i, text in enumerate(queries):
        timed.spent = 0.0
        started = time.perf_counter()
        query = build_query(text, Mode.AUTOMATIC)
        await lexical.retrieve(timed, query, Filters(limit=LIMIT), NOW_MS)
        total = time.perf_counter() - started
        started = time.perf_counter()
        conn.execute(FLOOR_NOTES, (query.match, LIMIT)).fetchall()
        conn.execute(FLOOR_MESSAGES, (query.match, LIMIT)).fetchall()
        floor = time.perf_counter() - started
        if i >= WARMUP:
            totals.append(total * 1000)
            floors.append(floor * 1000)
            pythons.append((total - timed.spent) * 1000)
    return {"p50_ms": statistics.median(totals), "p95_ms": percentile(totals, 0.95),
            "floor_p50_ms": statistics.median(floors), "floor_p95_ms": percentile(floors, 0.95),
            "python_ms": statistics.median(pythons)}


def run(max_messages: int | None) -> list[dict[str, Any]]:
    sizes = [(m, n) for m, n in SIZES if max_messages is None or m <= max_messages]
    if max_messages and max_messages not in [m for m, _ in sizes]:
        sizes.append((max_messages, max(max_messages // 10, 10)))
    gen = Generator(seed=11)
    queries = [gen.query() for _ in range(QUERIES + WARMUP)]
    results = []
    for messages, notes in sizes:
        with tempfile.TemporaryDirectory(prefix="mallory-latency-") as tmp:
            started = time.perf_counter()
            db = build(Path(tmp) / "bench.sqlite", messages, notes)
            built = time.perf_counter() - started
            figures = asyncio.run(measure(db, queries))
            db.close()
        results.append({"messages": messages, "notes": notes, **figures,
                        "build_s": round(built, 1)})
        print_row(results[-1])
    return results


def print_row(r: dict[str, Any]) -> None:
    ratio = r["p95_ms"] / r["floor_p95_ms"] if r["floor_p95_ms"] else float("nan")
    print(f"{r['messages']:>9,} {r['notes']:>7,} {r['p50_ms']:>8.2f} {r['p95_ms']:>8.2f} "
          f"{r['floor_p50_ms']:>9.2f} {r['floor_p95_ms']:>9.2f} {ratio:>7.2f}x "
          f"{r['python_ms']:>9.2f}   (built in {r['build_s']} s)", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--max-messages", type=int, help="cap the largest corpus size")
    parser.add_argument("--json", type=Path, help="write the figures as JSON here")
    args = parser.parse_args(argv)
    print(f"{'messages':>9} {'notes':>7} {'p50 ms':>8} {'p95 ms':>8} {'floor p50':>9} "
          f"{'floor p95':>9} {'p95/flr':>8} {'python ms':>9}")
    sizes = run(args.max_messages)
    if args.json:
        args.json.write_text(json.dumps({"sizes": sizes}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

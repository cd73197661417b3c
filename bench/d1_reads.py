"""Rows read per recall on real D1 (Miniflare), beside the raw FTS5 floor: what D1 bills.

    uv run python -m bench.d1_reads [--messages 2000] [--notes 200] [--queries 100]

The latency benchmark's corpus (bench/latency_corpus.py: the same generator, messages with
their conversation units, notes with the hub's sections) is written into D1 inside
Miniflare through the production statements, then bench.latency's queries run through
automatic recall there. D1's `meta.rows_read` of every statement is summed per recall,
beside the step's wall time through Miniflare (its HTTP hop included, as the floor's is):

- floor: the raw `MATCH … ORDER BY bm25 LIMIT k` on both indexes (bench.latency.FLOORS);
- df lookups, ranking: the plan's document counts (migrations/0014's tables), and its
  first pass alone;
- semantic first pass: the first pass of hybrid and adaptive recall, its rows whole and
  each unit's vector looked up (Corpus.whole_ranked_sql; no unit holds one here);
- retrieval, one pass: candidates with every row read (the SQL explicit search runs);
- retrieval, gated: the two passes chat-time recall runs (ranking, then the rows that
  may pass);
- recall: the whole of automatic recall (retrieval, feedback, relations, replies).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bench.corpus import Generator
from bench.latency import FLOORS, WARMUP, percentile
from bench.latency_corpus import (
    INSERT_CONVERSATION,
    INSERT_MESSAGE,
    INSERT_NOTE,
    INSERT_VAULT,
    NOW_MS,
    SECTIONS_PER_NOTE,
    _with_sections,
)
from local.migrate import migrate
from local.miniflare import MiniflareD1, _result
from shared.rank.policy import AUTOMATIC
from shared.text.sanitiser import Mode, build_query
from worker.corpora.filters import Filters
from worker.db import DatabaseError
from worker.db.port import BoundStatement, Result
from worker.recall.automatic import automatic_recall, candidates
from worker.recall.plan import plan
from worker.recall.run import run
from worker.store import frequencies
from worker.store.units import unit_statements

BATCH = 50
FILTERS = Filters(limit=AUTOMATIC.candidates)


class CountingD1(MiniflareD1):
    """Miniflare's D1 with each statement's `meta.rows_read` added to `rows_read`, and each
    call (a statement or a batch: one round trip to D1 at the edge) counted in `calls`."""

    rows_read = 0
    calls = 0

    def _count(self, data: Any) -> None:
        for r in data if isinstance(data, list) else [data]:
            self.rows_read += int((r.get("meta") or {}).get("rows_read") or 0)

    async def _post(self, path: str, payload: dict) -> object:
        data = await super()._post(path, payload)
        self._count(data)
        self.calls += 1
        return data

    async def execute(self, stmt: BoundStatement, mode: str) -> Result:
        data = await self._post("/query", {"sql": stmt.sql, "params": list(stmt.params),
                                           "mode": mode})
        assert isinstance(data, dict)
        return _result(data)


async def load(db: CountingD1, messages: int, notes: int) -> None:
    gen = Generator()
    rows = gen.messages(messages, NOW_MS)
    statements = [db.prepare(INSERT_CONVERSATION).bind(c, "bench", t, t)
                  for c, t in sorted({(r[1], r[5]) for r in rows})]
    for row in rows:
        statements.append(db.prepare(INSERT_MESSAGE).bind(*row))
        statements.extend(db.prepare(s.sql).bind(*s.params)
                          for s in unit_statements(db, row[0], row[3], row[4]))
    statements.append(db.prepare(INSERT_VAULT).bind("00000000-0000-4000-8000-00000000bec4",
                                                    "Bench", NOW_MS))
    statements.extend(db.prepare(INSERT_NOTE).bind(*_with_sections(r))
                      for r in gen.notes(notes, NOW_MS, sections=SECTIONS_PER_NOTE))
    for start in range(0, len(statements), BATCH):
        await db.batch(statements[start:start + BATCH])
    await db.batch([db.prepare(sql) for sql in frequencies.FOLD])


STEPS = ("floor", "df lookups", "ranking", "semantic first pass", "one pass", "gated",
         "recall")
# The model a semantic first pass asks about (any name: the vectors' table is empty here).
MODEL = "minilm-l6-int8"


@dataclass
class Reads:
    """Per step, each measured query's rows read, wall ms and D1 calls; and the queries D1
    refused (with its message)."""

    rows: dict[str, list[int]] = field(default_factory=lambda: {n: [] for n in STEPS})
    ms: dict[str, list[float]] = field(default_factory=lambda: {n: [] for n in STEPS})
    calls: dict[str, list[int]] = field(default_factory=lambda: {n: [] for n in STEPS})
    refused: list[str] = field(default_factory=list)


async def reads(db: CountingD1, queries: Sequence[str]) -> Reads:
    out = Reads()
    kwargs: dict[str, Any] = {"exclude_ids": ("bench-q",), "conversation_id": "bench-c",
                              "text_is_stored": True}
    for i, text in enumerate(queries):
        counts: dict[str, tuple[int, float, int]] = {}

        def start() -> float:
            db.rows_read = db.calls = 0
            return time.perf_counter()

        def done(name: str, began: float, into: dict[str, tuple[int, float, int]] = counts
                 ) -> None:
            into[name] = (db.rows_read, (time.perf_counter() - began) * 1000, db.calls)

        began = start()
        match = build_query(text, Mode.AUTOMATIC).match
        await db.batch([db.prepare(sql).bind(match, rows) for sql, rows in FLOORS])
        done("floor", began)
        query = build_query(text, Mode.AUTOMATIC)
        for name, step in (("df lookups", "df"), ("ranking", "hits")):
            began = start()
            await run(db, [p for p in plan(query, FILTERS, ranked=True) if p.key[0] == step])
            done(name, began)
        began = start()
        await run(db, [p for p in plan(query, FILTERS, ranked=True, model=MODEL)
                       if p.key[0] == "hits"])
        done("semantic first pass", began)
        try:
            for name, every in (("one pass", True), ("gated", False)):
                began = start()
                await candidates(db, text, NOW_MS, every_row=every, **kwargs)
                done(name, began)
        except DatabaseError as exc:
            out.refused.append(f"{text!r}: {exc}")
            continue
        began = start()
        await automatic_recall(db, text, NOW_MS, message_id="bench-q",
                               conversation_id="bench-c")
        done("recall", began)
        if i >= WARMUP:
            for name, (n, ms, calls) in counts.items():
                out.rows[name].append(n)
                out.ms[name].append(ms)
                out.calls[name].append(calls)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=2_000)
    parser.add_argument("--notes", type=int, default=200)
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--json", help="write the figures as JSON here")
    args = parser.parse_args(argv)
    gen = Generator(seed=11)
    queries = [gen.query() for _ in range(args.queries + WARMUP)]
    db = CountingD1.start()
    try:
        asyncio.run(migrate(db))
        asyncio.run(load(db, args.messages, args.notes))
        found = asyncio.run(reads(db, queries))
    finally:
        db.stop()
    floor = statistics.median(found.rows["floor"])
    floor_ms = statistics.median(found.ms["floor"])
    print(f"D1 rows read per recall, {args.messages:,} messages + {args.notes:,} notes, "
          f"{len(found.rows['floor'])} queries (median, p95, median / floor's median; then "
          "the median wall ms and its ratio to the floor's; then D1 calls, each a round "
          "trip at the edge: mean, most):")
    figures = {}
    for name, counts in found.rows.items():
        med, p95 = statistics.median(counts), percentile([float(c) for c in counts], 0.95)
        ms = statistics.median(found.ms[name])
        calls = found.calls[name]
        figures[name] = {"median": med, "p95": p95, "ratio": med / floor if floor else None,
                         "ms": ms, "ms_ratio": ms / floor_ms if floor_ms else None,
                         "calls_mean": statistics.fmean(calls), "calls_max": max(calls)}
        print(f"  {name:>19}: {med:>8.0f} {p95:>8.0f}   {med / floor if floor else 0:5.2f}x"
              f"   {ms:7.2f} ms {ms / floor_ms if floor_ms else 0:5.2f}x"
              f"   {statistics.fmean(calls):5.2f} {max(calls):>3}")
    for line in found.refused:
        print(f"  D1 refused {line}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"messages": args.messages, "notes": args.notes, **figures}, out, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())

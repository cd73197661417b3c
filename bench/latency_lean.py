"""Lexical recall against two rewrites that do less, timed in bench.latency's run
(`--lean`), so that what recall costs beyond the floor splits into what its SQL costs
and what its Python does on top:

- `statements`: what recall sent the D1 port, replayed through the same adapter (its
  statement objects, limit checks, row dicts and transactions included) with none of
  recall's own Python: what a rewrite whose Python cost nothing would cost;
- `simple`: a simple recall in one pass, through the same adapter. Each corpus's FTS5
  ranking with the floor's MATCH and k, joined to what a hit shows (`search_sql`, the
  statement a one-pass search runs), in one batch; the best row of each note or
  conversation by BM25 × recency, the top `AUTOMATIC.max_hits`, and a block of their
  labels and texts: no document frequencies, no standing, no typo step, no gate, no
  feedback.

What recall does that `simple` does not is what the relevance figures measure against
the BM25 baselines (README, "Figures").
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from shared.rank.policy import AUTOMATIC
from shared.rank.scoring import recency_boost
from shared.text.sanitiser import SearchQuery
from worker.corpora import registry
from worker.corpora.filters import Filters
from worker.db.port import BoundStatement, Result, Statement
from worker.recall.plan import hits_key, plan

# What a hit shows, per corpus: the row's label column and text columns (the rows
# `search_sql` selects).
SHOWN: Mapping[str, tuple[str, tuple[str, ...]]] = {
    "notes": ("title", ("text",)),
    "messages": ("conversation_title", ("question", "answer")),
}
# The simple recall's block holds this much of each hit's text.
SIMPLE_TEXT_CHARS = 600
# A statement that could write: SQLite runs INSERT, UPDATE, DELETE and REPLACE after a
# WITH clause too, so a WITH statement naming one is no read.
_WRITES = re.compile(r"\b(INSERT|UPDATE|DELETE|REPLACE|UPSERT)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Sent:
    """What recall sent the port: a batch, or a lone statement (`execute`, autocommit)."""

    statements: tuple[tuple[str, tuple[Any, ...]], ...]
    lone: bool = False
    mode: str = "all"


@dataclass
class Recording:
    """The D1 port, recording what passes through it (each batch, each lone `execute`) as
    it passes it on, so the same statements can be run again without recall's Python."""

    inner: Any
    sent: list[Sent] = field(default_factory=list)
    rows: int = 0  # what the recorded statements read

    def prepare(self, sql: str) -> BoundStatement:
        return BoundStatement(self, sql)

    async def execute(self, stmt: BoundStatement, mode: str = "all") -> Result:
        self.sent.append(Sent(((stmt.sql, tuple(stmt.params)),), lone=True, mode=mode))
        result: Result = await self.inner.execute(
            BoundStatement(self.inner, stmt.sql, stmt.params), mode=mode)
        self.rows += len(result.results)
        return result

    async def batch(self, statements: Sequence[Statement]) -> list[Result]:
        self.sent.append(Sent(tuple((s.sql, tuple(s.params)) for s in statements)))
        results: list[Result] = await self.inner.batch(
            [BoundStatement(self.inner, s.sql, s.params) for s in statements])
        self.rows += sum(len(r.results) for r in results)
        return results

    def take(self) -> tuple[list[Sent], int]:
        """What was sent since the last take, and the rows it read."""
        taken, read = self.sent, self.rows
        self.sent, self.rows = [], 0
        return taken, read


def is_read(sql: str) -> bool:
    head = sql.lstrip().upper()
    return head.startswith("SELECT") or (head.startswith("WITH") and not _WRITES.search(sql))


async def replay(db: Any, sent: Sequence[Sent]) -> int:
    """Run what was recorded again, as it was sent (batches as batches, lone statements
    through `execute`); the rows it read. Only reads are replayed: a statement that could
    write is refused before anything runs, and a replay that changed the database anyway
    raises."""
    for sql, _ in (s for one in sent for s in one.statements):
        if not is_read(sql):
            raise ValueError(f"not a read, not replayed: {' '.join(sql.split())[:80]}")
    changes = db.connection.total_changes
    rows = 0
    for one in sent:
        if one.lone:
            [(sql, params)] = one.statements
            rows += len((await db.execute(BoundStatement(db, sql, params), one.mode)).results)
        else:
            results = await db.batch([BoundStatement(db, sql, params)
                                      for sql, params in one.statements])
            rows += sum(len(r.results) for r in results)
    if db.connection.total_changes != changes:
        raise RuntimeError("the replay changed the database")
    return rows


def simple_filters() -> Filters:
    """What automatic recall excludes at chat time (the query's own message, the recent
    turns of its conversation), with its k per corpus."""
    return Filters(limit=AUTOMATIC.candidates, exclude_message_ids=("bench-q",),
                   conversation_id="bench-c",
                   exclude_recent_turns=AUTOMATIC.exclude_recent_turns)


async def simple(db: Any, query: SearchQuery, now_ms: int,
                 filters: Filters | None = None) -> tuple[str, float]:
    """The simple recall's block for `query`, and the seconds its batch took."""
    if query.is_empty:
        return "", 0.0
    wanted = {hits_key(c): c for c in registry.corpora()}
    planned = [(wanted[p.key], p) for p in plan(query, filters or simple_filters())
               if p.key in wanted]  # not the statistics: BM25 is weighed as FTS5 gives it
    started = time.perf_counter()
    results = await db.batch([BoundStatement(db, p.sql, p.params) for _, p in planned])
    in_sql = time.perf_counter() - started
    hits: dict[tuple[str, str], tuple[float, str, str]] = {}
    for (corpus, _), result in zip(planned, results, strict=True):
        label, texts = SHOWN[corpus.name]
        for row in result.results:
            score = -float(row["bm25"]) * recency_boost(int(row[corpus.timestamp_column]),
                                                        now_ms)
            group = (corpus.name, str(row[corpus.group_column]))
            if group not in hits or score > hits[group][0]:
                text = " ".join(str(row[t] or "") for t in texts)
                hits[group] = (score, str(row[label] or ""), text)
    best = sorted(hits.values(), key=lambda h: -h[0])[:AUTOMATIC.max_hits]
    block = "\n\n".join(f"[{n}] {label}\n{text[:SIMPLE_TEXT_CHARS]}"
                        for n, (_, label, text) in enumerate(best, 1))
    return block, in_sql

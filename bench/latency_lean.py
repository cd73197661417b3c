"""Lexical recall against two rewrites that do less, timed in bench.latency's run
(`--lean`), so that what recall costs beyond the floor splits into what its SQL costs
and what its Python does on top:

- `statements`: recall's own D1 batches, replayed through the same adapter with none of
  recall's Python: what a rewrite that ran the same SQL infinitely fast would cost;
- `simple`: a simple recall in one pass. Each corpus's FTS5 ranking with the floor's
  MATCH and k, joined to what a hit shows (`search_sql`, the statement a one-pass search
  runs), the best row of each note or conversation by BM25 × recency, the top
  `AUTOMATIC.max_hits`, and a block of their labels and texts: no document frequencies,
  no standing, no typo step, no gate, no feedback.

What recall does that `simple` does not is what the relevance figures measure against
the BM25 baselines (README, "Figures").
"""

from __future__ import annotations

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
_READS = ("SELECT", "WITH")


@dataclass
class Recording:
    """The D1 port, recording each batch (a lone `execute` as a batch of one) as it
    passes it on, so the same statements can be run again without recall's Python."""

    inner: Any
    batches: list[list[tuple[str, tuple[Any, ...]]]] = field(default_factory=list)
    rows: int = 0  # what the recorded statements read

    def prepare(self, sql: str) -> BoundStatement:
        return BoundStatement(self, sql)

    async def execute(self, stmt: BoundStatement, mode: str = "all") -> Result:
        self.batches.append([(stmt.sql, tuple(stmt.params))])
        result: Result = await self.inner.execute(
            BoundStatement(self.inner, stmt.sql, stmt.params), mode=mode)
        self.rows += len(result.results)
        return result

    async def batch(self, statements: Sequence[Statement]) -> list[Result]:
        self.batches.append([(s.sql, tuple(s.params)) for s in statements])
        results: list[Result] = await self.inner.batch(
            [BoundStatement(self.inner, s.sql, s.params) for s in statements])
        self.rows += sum(len(r.results) for r in results)
        return results

    def take(self) -> list[list[tuple[str, tuple[Any, ...]]]]:
        taken, self.batches, self.rows = self.batches, [], 0
        return taken


async def replay(db: Any, batches: Sequence[Sequence[tuple[str, tuple[Any, ...]]]]) -> int:
    """Run the recorded batches again, as they were sent; the rows they read. Only reads
    are replayed: a statement that could write is refused, before anything runs."""
    for sql, _ in (s for b in batches for s in b):
        if not sql.lstrip().upper().startswith(_READS):
            raise ValueError(f"not a read, not replayed: {' '.join(sql.split())[:80]}")
    rows = 0
    for batch in batches:
        results = await db.batch([BoundStatement(db, sql, params) for sql, params in batch])
        rows += sum(len(r.results) for r in results)
    return rows


def simple_filters() -> Filters:
    """What automatic recall excludes at chat time (the query's own message, the recent
    turns of its conversation), with its k per corpus."""
    return Filters(limit=AUTOMATIC.candidates, exclude_message_ids=("bench-q",),
                   conversation_id="bench-c",
                   exclude_recent_turns=AUTOMATIC.exclude_recent_turns)


def simple(conn: Any, query: SearchQuery, now_ms: int,
          filters: Filters | None = None) -> tuple[str, float]:
    """The simple recall's block for `query`, and the seconds it spent in SQLite."""
    if query.is_empty:
        return "", 0.0
    wanted = {hits_key(c): c for c in registry.corpora()}
    hits: dict[tuple[str, str], tuple[float, str, str]] = {}
    in_sql = 0.0
    for statement in plan(query, filters or simple_filters()):
        corpus = wanted.get(statement.key)
        if corpus is None:
            continue  # the statistics: the simple recall weighs BM25 as FTS5 gives it
        started = time.perf_counter()
        rows = conn.execute(statement.sql, statement.params).fetchall()
        in_sql += time.perf_counter() - started
        label, texts = SHOWN[corpus.name]
        for row in rows:
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

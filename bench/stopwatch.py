"""Stopwatches around the ports, so a benchmark can tell the time recall spends in the
database, the embedder and the vector index from its own Python time."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from worker.db.port import BoundStatement, Result, Statement
from worker.semantic.ports import EmbedKind, VectorFilter, VectorMatch, VectorRecord
from worker.semantic.semantics import Semantics


@dataclass
class Stopwatch:
    db: float = 0.0
    embed: float = 0.0
    vectors: float = 0.0
    # CPU time of the calling thread inside the database (SQLite runs in it): recall's
    # Python is that thread's CPU time less this, which holds however the ports overlap
    # (the embedding and the vector scans run in other threads) and however loaded the
    # machine is.
    db_cpu: float = 0.0

    def reset(self) -> None:
        self.db = self.embed = self.vectors = self.db_cpu = 0.0

    @property
    def outside(self) -> float:
        """Seconds spent waiting on the ports (they may overlap: an embedding runs in a
        thread while the event loop runs SQLite)."""
        return self.db + self.embed + self.vectors

    def database(self, db: Any) -> TimedDatabase:
        return TimedDatabase(db, self)


class TimedDatabase:
    """The D1 port, timed: statements prepared here run through `execute`, batches too."""

    def __init__(self, db: Any, watch: Stopwatch) -> None:
        self.inner, self.watch = db, watch

    def prepare(self, sql: str) -> BoundStatement:
        return BoundStatement(self, sql)

    async def execute(self, stmt: BoundStatement, mode: str = "all") -> Result:
        started, cpu = time.perf_counter(), time.thread_time()
        try:
            return await self.inner.execute(BoundStatement(self.inner, stmt.sql, stmt.params),
                                             mode=mode)
        finally:
            self.watch.db += time.perf_counter() - started
            self.watch.db_cpu += time.thread_time() - cpu

    async def batch(self, statements: Sequence[Statement]) -> list[Result]:
        started, cpu = time.perf_counter(), time.thread_time()
        try:
            return await self.inner.batch([BoundStatement(self.inner, s.sql, s.params)
                                           for s in statements])
        finally:
            self.watch.db += time.perf_counter() - started
            self.watch.db_cpu += time.thread_time() - cpu


class TimedEmbedder:
    def __init__(self, inner: Any, watch: Stopwatch) -> None:
        self.inner, self.watch = inner, watch
        self.model, self.dimensions, self.max_batch = inner.model, inner.dimensions, \
            inner.max_batch

    async def embed(self, texts: Sequence[str], kind: EmbedKind) -> list[list[float]]:
        started = time.perf_counter()
        try:
            return await self.inner.embed(texts, kind)
        finally:
            self.watch.embed += time.perf_counter() - started


class TimedIndex:
    def __init__(self, inner: Any, watch: Stopwatch) -> None:
        self.inner, self.watch = inner, watch

    async def upsert(self, records: Sequence[VectorRecord]) -> None:
        await self.inner.upsert(records)

    async def delete(self, ids: Sequence[str]) -> None:
        await self.inner.delete(ids)

    async def query(self, vector: Sequence[float], top_k: int,
                    filter: VectorFilter | None = None) -> list[VectorMatch]:
        started = time.perf_counter()
        try:
            return await self.inner.query(vector, top_k, filter)
        finally:
            self.watch.vectors += time.perf_counter() - started


def timed_semantics(sem: Semantics, watch: Stopwatch) -> Semantics:
    return replace(sem, embedder=TimedEmbedder(sem.embedder, watch),
                   index=TimedIndex(sem.index, watch))

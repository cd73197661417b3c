"""Running a plan: every planned statement in one D1 batch (one round trip)."""

from __future__ import annotations

from collections.abc import Sequence

from worker.db import Database
from worker.db.port import Row
from worker.recall.plan import Planned, StatementKey

Rows = dict[StatementKey, list[Row]]


async def run(db: Database, planned: Sequence[Planned]) -> Rows:
    if not planned:
        return {}
    results = await db.batch([db.prepare(p.sql).bind(*p.params) for p in planned])
    return {p.key: r.results for p, r in zip(planned, results, strict=True)}

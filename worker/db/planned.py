"""Keyed statements: a plan is a list of `Planned` (a key, SQL text, its values), and
`run` sends them in one D1 batch (one round trip, one transaction) and answers each one's
rows by its key, so no caller counts positions in the batch's results. Recall plans its
searches this way (worker/recall/plan.py), and sync batches their writes
(worker/store/notes.py)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from worker.db.port import Database, Row, Statement, Value

# (step, what it is about: a corpus name, a path; a number: a chunk, an item's index)
StatementKey = tuple[str, str, int]
Rows = dict[StatementKey, list[Row]]


@dataclass(frozen=True)
class Planned:
    key: StatementKey
    sql: str
    params: tuple[Value, ...]

    @classmethod
    def of(cls, key: StatementKey, statement: Statement) -> Planned:
        """A statement another module prepared and bound, under a key."""
        return cls(key, statement.sql, tuple(statement.params))


async def run(db: Database, planned: Sequence[Planned]) -> Rows:
    if not planned:
        return {}
    keys = {p.key for p in planned}
    if len(keys) != len(planned):  # a second statement would hide the first one's rows
        raise ValueError("a plan names a key twice: "
                         f"{sorted(k for k in keys if [p.key for p in planned].count(k) > 1)}")
    results = await db.batch([db.prepare(p.sql).bind(*p.params) for p in planned])
    return {p.key: r.results for p, r in zip(planned, results, strict=True)}

"""Hand-built internal records for tests of the pure layers, and a database that counts
its calls."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from typing import Any

from shared.rank.candidate import (
    Candidate,
    Identity,
    Kind,
    MessageFacts,
    NoteFacts,
    Presentation,
    Scores,
)
from tests.conftest import NOW_MS
from worker.db import Database, Result, Statement


def candidate(id: str, relevance: float = 0.6, *, kind: Kind = "note", boost: float = 1.0,
              group: str | None = None, timestamp_ms: int = NOW_MS, label: str = "Label",
              text: str = "some text", **flat: Any) -> Candidate:
    """A candidate from flat keyword arguments: each goes to the group (identity, scores,
    presentation, note facts, message facts) that declares a field of its name."""
    groups: dict[type, dict[str, Any]] = {g: {} for g in GROUPS}
    given = {"id": id, "relevance": relevance, "kind": kind, "boost": boost,
             "group": group or id, "timestamp_ms": timestamp_ms, "label": label,
             "href": f"/?msg={id}", "text": text, **flat}
    for name, value in given.items():
        owner = next((g for g in GROUPS if name in _FIELDS[g]), None)
        if owner is None:
            raise TypeError(f"no Candidate group has a field {name!r}")
        groups[owner][name] = value
    return Candidate(identity=Identity(**groups[Identity]), scores=Scores(**groups[Scores]),
                     presentation=Presentation(**groups[Presentation]),
                     note=NoteFacts(**groups[NoteFacts]),
                     message=MessageFacts(**groups[MessageFacts]))


GROUPS = (Identity, Scores, Presentation, NoteFacts, MessageFacts)
_FIELDS = {g: {f.name for f in fields(g)} for g in GROUPS}


class Counted:
    """The database with every call to it (a statement or a batch: a round trip to D1 at
    the edge) recorded, with the SQL it sent."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.calls: list[list[str]] = []

    def prepare(self, sql: str) -> Statement:
        return _CountedStatement(self, self.db.prepare(sql))

    async def batch(self, statements: Sequence[Statement]) -> list[Result]:
        self.calls.append([s.sql for s in statements])
        return await self.db.batch([s.inner if isinstance(s, _CountedStatement) else s
                                    for s in statements])


class _CountedStatement:
    def __init__(self, counted: Counted, inner: Statement) -> None:
        self.counted, self.inner = counted, inner

    @property
    def sql(self) -> str:
        return self.inner.sql

    @property
    def params(self) -> tuple:
        return tuple(self.inner.params)

    def bind(self, *params: object) -> _CountedStatement:
        return _CountedStatement(self.counted, self.inner.bind(*params))  # type: ignore[arg-type]

    async def all(self) -> Result:
        self.counted.calls.append([self.inner.sql])
        return await self.inner.all()

    async def first(self) -> dict | None:
        self.counted.calls.append([self.inner.sql])
        return await self.inner.first()

    async def run(self) -> Result:
        self.counted.calls.append([self.inner.sql])
        return await self.inner.run()

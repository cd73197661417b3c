"""The async D1 port, shaped like the D1 Worker API: prepare → bind → all/first/run, batch.

Rows are plain dicts. `Database.batch` is atomic (a D1 batch is one SQL transaction): if
one statement fails, none is applied. There is no BEGIN/COMMIT anywhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

Row = dict[str, Any]
Value = str | int | float | bytes | None

# D1's documented limits (https://developers.cloudflare.com/d1/platform/limits/).
MAX_BOUND_PARAMETERS = 100
MAX_STATEMENT_BYTES = 100_000
MAX_VALUE_BYTES = 2_000_000
# Not in that list, measured on D1 in Miniflare: a compound SELECT of 5 terms runs, one of
# 6 fails with "too many terms in compound SELECT".
MAX_COMPOUND_SELECT = 5


@dataclass(frozen=True)
class Result:
    """What `all()`, `run()` and each element of `batch()` return."""

    results: list[Row] = field(default_factory=list)
    changes: int = 0
    last_row_id: int | None = None


class Statement(Protocol):
    # Read-only: an adapter's statements may be frozen (BoundStatement).
    @property
    def sql(self) -> str: ...

    @property
    def params(self) -> tuple[Value, ...]: ...

    def bind(self, *params: Value) -> Statement: ...

    async def all(self) -> Result: ...

    async def first(self) -> Row | None: ...

    async def run(self) -> Result: ...


class Database(Protocol):
    def prepare(self, sql: str) -> Statement: ...

    async def batch(self, statements: Sequence[Statement]) -> list[Result]: ...


@dataclass(frozen=True)
class BoundStatement:
    """A statement with its values, shared by adapters that run SQL text themselves."""

    db: Any
    sql: str
    params: tuple[Value, ...] = ()

    def bind(self, *params: Value) -> BoundStatement:
        return BoundStatement(self.db, self.sql, tuple(params))

    async def all(self) -> Result:
        result: Result = await self.db.execute(self, mode="all")
        return result

    async def first(self) -> Row | None:
        result = await self.all()
        return result.results[0] if result.results else None

    async def run(self) -> Result:
        result: Result = await self.db.execute(self, mode="run")
        return result

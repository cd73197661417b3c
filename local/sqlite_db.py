"""Local SQLite adapter of the D1 port: what `mallory serve` and most tests run on.

It behaves like D1 where it matters, so local runs reject what production would:
- foreign keys always on (CPython's sqlite3 leaves them off);
- no BEGIN/COMMIT/SAVEPOINT through the port: atomicity only through `batch()`;
- D1's limits: 100 bound parameters per statement, 100 KB of SQL text, 2 MB per value.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from worker.db.errors import DatabaseError, DatabaseUnavailable, LimitExceeded, classify
from worker.db.port import (
    MAX_BOUND_PARAMETERS,
    MAX_STATEMENT_BYTES,
    MAX_VALUE_BYTES,
    BoundStatement,
    Result,
    Value,
)

_TRANSACTION_CONTROL = re.compile(
    r"^\s*(BEGIN|COMMIT|END|ROLLBACK|SAVEPOINT|RELEASE)\b", re.IGNORECASE
)
BUSY_TIMEOUT_MS = 5_000


def check_d1_limits(sql: str, params: Sequence[Value]) -> None:
    """Raise LimitExceeded (or DatabaseError) for what D1 itself would refuse."""
    if _TRANSACTION_CONTROL.match(sql):
        raise DatabaseError(
            "D1 has no interactive transactions: use Database.batch() instead of BEGIN/COMMIT"
        )
    if len(sql.encode()) > MAX_STATEMENT_BYTES:
        raise LimitExceeded(
            f"statement too long: {len(sql.encode())} bytes of SQL, D1 allows "
            f"{MAX_STATEMENT_BYTES}; bind values instead of inlining them"
        )
    if len(params) > MAX_BOUND_PARAMETERS:
        raise LimitExceeded(
            f"too many SQL variables: {len(params)} bound parameters, D1 allows "
            f"{MAX_BOUND_PARAMETERS}; split the statement"
        )
    for index, value in enumerate(params):
        size = len(value.encode()) if isinstance(value, str) else (
            len(value) if isinstance(value, bytes) else 0
        )
        if size > MAX_VALUE_BYTES:
            raise LimitExceeded(
                f"string or blob too big: parameter {index + 1} is {size} bytes, D1 allows "
                f"{MAX_VALUE_BYTES} per value"
            )


def _dict_row(cursor: sqlite3.Cursor, row: tuple) -> dict:
    return {col[0]: value for col, value in zip(cursor.description, row, strict=True)}


class SqliteDatabase:
    """A D1-shaped database on a SQLite file (or ":memory:")."""

    def __init__(self, path: str | Path = ":memory:") -> None:
        self.path = str(path)
        if self.path != ":memory:":
            parent = Path(self.path).parent
            if not parent.is_dir():
                raise DatabaseUnavailable(
                    f"cannot open database {self.path}: folder {parent} does not exist"
                )
        try:
            self._conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._conn.row_factory = _dict_row
            self._conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            self._conn.execute("PRAGMA foreign_keys = ON")
            if self.path != ":memory:":
                self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()
        except sqlite3.DatabaseError as exc:
            raise DatabaseUnavailable(
                f"cannot open database {self.path}: {exc} (is it a SQLite file?)"
            ) from exc

    @property
    def connection(self) -> sqlite3.Connection:
        """The raw connection, for the local migration runner only."""
        return self._conn

    def close(self) -> None:
        self._conn.close()

    def prepare(self, sql: str) -> BoundStatement:
        return BoundStatement(self, sql)

    def _run(self, stmt: BoundStatement, mode: str) -> Result:
        check_d1_limits(stmt.sql, stmt.params)
        cursor = self._conn.execute(stmt.sql, stmt.params)
        rows = cursor.fetchall() if mode == "all" or cursor.description else []
        return Result(results=rows, changes=max(cursor.rowcount, 0),
                      last_row_id=cursor.lastrowid)

    async def execute(self, stmt: BoundStatement, mode: str) -> Result:
        try:
            return self._run(stmt, mode)
        except sqlite3.Error as exc:
            raise classify(str(exc)) from exc

    async def batch(self, statements: Sequence[BoundStatement]) -> list[Result]:
        if not statements:
            return []
        for stmt in statements:
            check_d1_limits(stmt.sql, stmt.params)
        try:
            self._conn.execute("BEGIN")
        except sqlite3.Error as exc:
            raise classify(str(exc)) from exc
        try:
            results = [self._run(stmt, "all") for stmt in statements]
        except (sqlite3.Error, DatabaseError) as exc:
            self._conn.execute("ROLLBACK")
            raise (exc if isinstance(exc, DatabaseError) else classify(str(exc))) from exc
        self._conn.execute("COMMIT")
        return results

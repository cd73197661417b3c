"""Local SQLite adapter of the D1 port: what `mallory serve` and most tests run on.

It behaves like D1 where it matters, so local runs reject what production would:
- foreign keys always on (CPython's sqlite3 leaves them off);
- no BEGIN/COMMIT/SAVEPOINT through the port: atomicity only through `batch()`;
- D1's limits: 100 bound parameters per statement, 100 KB of SQL text, 2 MB per value.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

from worker.db.errors import DatabaseError, DatabaseUnavailable, classify
from worker.db.limits import check_d1_limits
from worker.db.port import BoundStatement, Database, Result, Statement

BUSY_TIMEOUT_MS = 5_000


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

    async def batch(self, statements: Sequence[Statement]) -> list[Result]:
        if not statements:
            return []
        own = [s if isinstance(s, BoundStatement) else BoundStatement(self, s.sql,
                                                                    tuple(s.params))
               for s in statements]
        for stmt in own:
            check_d1_limits(stmt.sql, stmt.params)
        try:
            self._conn.execute("BEGIN")
        except sqlite3.Error as exc:
            raise classify(str(exc)) from exc
        try:
            results = [self._run(stmt, "all") for stmt in own]
        except (sqlite3.Error, DatabaseError) as exc:
            self._conn.execute("ROLLBACK")
            raise (exc if isinstance(exc, DatabaseError) else classify(str(exc))) from exc
        self._conn.execute("COMMIT")
        return results


def _implements_the_port(adapter: SqliteDatabase) -> Database:
    """mypy checks here that the adapter satisfies the port (worker/db/port.py)."""
    return adapter

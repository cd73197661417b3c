"""Local SQLite adapter of the D1 port: what `mallory serve` and most tests run on.

It behaves like D1 where it matters, so local runs reject what production would:
- foreign keys always on (CPython's sqlite3 leaves them off);
- no BEGIN/COMMIT/SAVEPOINT through the port: atomicity only through `batch()`;
- D1's limits: 100 bound parameters per statement, 100 KB of SQL text, 2 MB per value, 5
  terms in a compound SELECT.

Writes never lose to the other writer of the file (the vector index's connection,
local/semantic/vectors.py): a batch takes the write lock up front (`BEGIN IMMEDIATE`), so
no read of the batch can see a snapshot another commit has overtaken (a deferred BEGIN
then fails at its first write with "database is locked", whatever the busy timeout), and
a lock held elsewhere is waited out in short busy waits with async retries in between, so
the event loop is never frozen for long, up to LOCK_WAIT_S in all.

Deleted content is overwritten (`PRAGMA secure_delete`), so forgotten rows do not linger
in the file's free space.
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from worker.db.errors import DatabaseUnavailable, classify
from worker.db.limits import check_d1_limits
from worker.db.port import MAX_COMPOUND_SELECT, BoundStatement, Database, Result, Statement

T = TypeVar("T")
BUSY_TIMEOUT_MS = 5_000  # the vector index's connection, which writes from a thread
# This connection's busy wait blocks the event loop, so it is short, and the retries
# between waits yield to other tasks; a vector write holds the lock for milliseconds.
LOCK_BUSY_MS = 100
LOCK_WAIT_S = 10.0
RETRY_PAUSE_S = (0.01, 0.05, 0.1, 0.25)
_LOCKED = ("database is locked", "database table is locked")


def _locked(exc: BaseException) -> bool:
    return isinstance(exc, sqlite3.OperationalError) and any(m in str(exc) for m in _LOCKED)


def _dict_row(cursor: sqlite3.Cursor, row: tuple) -> dict:
    return {col[0]: value for col, value in zip(cursor.description, row, strict=True)}


def _dict_rows(cursor: sqlite3.Cursor) -> list[dict]:
    """The rows `_dict_row` makes, the column names read once for all of them: a row
    factory reads them for each row (2.3 against 1.7 µs a row of a note's columns; recall
    reads about 160 rows at 100k messages + 10k notes, bench.latency)."""
    names = [col[0] for col in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


class SqliteDatabase:
    """A D1-shaped database on a SQLite file (or ":memory:")."""

    def __init__(self, path: str | Path = ":memory:", busy_ms: int = LOCK_BUSY_MS,
                 lock_wait_s: float = LOCK_WAIT_S) -> None:
        self.path = str(path)
        self.lock_wait_s = lock_wait_s
        if self.path != ":memory:":
            parent = Path(self.path).parent
            if not parent.is_dir():
                raise DatabaseUnavailable(
                    f"cannot open database {self.path}: folder {parent} does not exist"
                )
        try:
            self._conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._conn.row_factory = _dict_row
            self._conn.execute(f"PRAGMA busy_timeout = {int(busy_ms)}")
            self._conn.execute("PRAGMA foreign_keys = ON")
            self._conn.execute("PRAGMA secure_delete = ON")
            # D1's compound-SELECT limit (worker/db/port.py), so a local run fails as it would.
            self._conn.setlimit(sqlite3.SQLITE_LIMIT_COMPOUND_SELECT, MAX_COMPOUND_SELECT)
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

    async def clear_freed_pages(self) -> None:
        """Checkpoint the write-ahead log into the file and truncate it, so page images
        from before a forget do not stay in `<db>-wal` (worker/db/scrub.py)."""
        if self.path != ":memory:":
            await self._retrying(
                lambda: self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall())

    def prepare(self, sql: str) -> BoundStatement:
        return BoundStatement(self, sql)

    def _run(self, stmt: BoundStatement, mode: str) -> Result:
        """One statement, its D1 limits checked by the caller (once per statement: a
        batch checks them all before it begins, and a refused one changes nothing)."""
        cursor = self._conn.cursor()
        cursor.row_factory = None  # _dict_rows makes them
        cursor.execute(stmt.sql, stmt.params)
        rows = _dict_rows(cursor) if cursor.description \
            else cursor.fetchall() if mode == "all" else []
        return Result(results=rows, changes=max(cursor.rowcount, 0),
                      last_row_id=cursor.lastrowid)

    async def execute(self, stmt: BoundStatement, mode: str) -> Result:
        check_d1_limits(stmt.sql, stmt.params)
        return await self._retrying(lambda: self._run(stmt, mode))

    async def batch(self, statements: Sequence[Statement]) -> list[Result]:
        if not statements:
            return []
        own = [s if isinstance(s, BoundStatement) else BoundStatement(self, s.sql,
                                                                    tuple(s.params))
               for s in statements]
        for stmt in own:
            check_d1_limits(stmt.sql, stmt.params)
        return await self._retrying(lambda: self._batch_now(own))

    def _batch_now(self, statements: Sequence[BoundStatement]) -> list[Result]:
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            results = [self._run(stmt, "all") for stmt in statements]
            self._conn.execute("COMMIT")
        except BaseException:
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")
            raise
        return results

    async def _retrying(self, attempt: Callable[[], T]) -> T:
        """`attempt` until it is not refused for a lock held elsewhere (a refused attempt
        changed nothing: an autocommit statement or a rolled-back batch), for at most
        `lock_wait_s`; then DatabaseUnavailable (503) says so."""
        deadline = time.monotonic() + self.lock_wait_s
        tries = 0
        while True:
            try:
                return attempt()
            except sqlite3.Error as exc:
                if not _locked(exc):
                    raise classify(str(exc)) from exc
                if time.monotonic() >= deadline:
                    raise DatabaseUnavailable(
                        f"the database stayed locked by another writer for "
                        f"{self.lock_wait_s:g} s; try again shortly") from exc
            await asyncio.sleep(RETRY_PAUSE_S[min(tries, len(RETRY_PAUSE_S) - 1)])
            tries += 1


def _implements_the_port(adapter: SqliteDatabase) -> Database:
    """mypy checks here that the adapter satisfies the port (worker/db/port.py)."""
    return adapter

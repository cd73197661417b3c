"""The local SQLite adapter rejects what D1 would."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from local.sqlite_db import SqliteDatabase
from worker.db import DatabaseError, DatabaseUnavailable, LimitExceeded


async def test_statement_length_limit(db: SqliteDatabase) -> None:
    long_sql = "SELECT '" + "x" * 100_000 + "'"
    with pytest.raises(LimitExceeded, match="statement too long"):
        await db.prepare(long_sql).all()


async def test_value_size_limit(db: SqliteDatabase) -> None:
    with pytest.raises(LimitExceeded, match="string or blob too big"):
        await db.prepare("SELECT ?").bind("x" * 2_000_001).all()
    assert (await db.prepare("SELECT length(?) AS n").bind("x" * 2_000_000).first()) == \
        {"n": 2_000_000}


@pytest.mark.parametrize("sql", ["BEGIN", "begin transaction", "COMMIT", "ROLLBACK",
                                 "SAVEPOINT a", "RELEASE a", "END"])
async def test_no_interactive_transactions(db: SqliteDatabase, sql: str) -> None:
    with pytest.raises(DatabaseError, match="batch"):
        await db.prepare(sql).run()


async def test_foreign_keys_are_on(db: SqliteDatabase) -> None:
    assert await db.prepare("PRAGMA foreign_keys").first() == {"foreign_keys": 1}


async def test_limits_inside_a_batch_reject_the_whole_batch(db: SqliteDatabase) -> None:
    with pytest.raises(LimitExceeded):
        await db.batch([
            db.prepare("INSERT INTO conversations (id, title, created_at, updated_at) "
                       "VALUES ('c', 't', 1, 1)"),
            db.prepare("SELECT " + ",".join("?" * 101)).bind(*range(101)),
        ])
    assert (await db.prepare("SELECT count(*) AS n FROM conversations").first()) == {"n": 0}


def test_unopenable_paths(tmp_path: Path) -> None:
    with pytest.raises(DatabaseUnavailable, match="does not exist"):
        SqliteDatabase(tmp_path / "missing" / "x.sqlite")
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"garbage" * 1000)
    with pytest.raises(DatabaseUnavailable, match="is it a SQLite file"):
        SqliteDatabase(bad)


def _file_db(tmp_path: Path, **kwargs: float) -> tuple[SqliteDatabase, sqlite3.Connection]:
    """A file database with the table `t`, and a second connection to it, as the vector
    index has (local/semantic/vectors.py)."""
    db = SqliteDatabase(tmp_path / "locks.sqlite", **kwargs)  # type: ignore[arg-type]
    db.connection.execute("CREATE TABLE t (x TEXT)")
    db.connection.execute("INSERT INTO t VALUES ('first')")
    return db, sqlite3.connect(db.path, isolation_level=None, timeout=0.05,
                               check_same_thread=False)


async def test_a_batch_takes_the_write_lock_before_its_first_read(tmp_path: Path) -> None:
    """Another writer committing between a batch's read and its write: with a deferred
    BEGIN the write failed at once ("database is locked", busy timeout or not)."""
    db, other = _file_db(tmp_path)
    interfered: list[bool] = []

    def interfere() -> int:
        try:
            other.execute("INSERT INTO t VALUES ('other')")
            interfered.append(True)
        except sqlite3.OperationalError:
            interfered.append(False)  # the batch holds the lock: the other writer waits
        return 0

    db.connection.create_function("interfere", 0, interfere)
    await db.batch([db.prepare("SELECT count(*) AS n, interfere() AS i FROM t"),
                    db.prepare("INSERT INTO t VALUES ('mine')")])
    assert interfered == [False]
    rows = await db.prepare("SELECT x FROM t ORDER BY rowid").all()
    assert [r["x"] for r in rows.results] == ["first", "mine"]
    other.close()
    db.close()


async def test_a_lock_held_elsewhere_is_waited_out_within_the_bound(tmp_path: Path) -> None:
    db, other = _file_db(tmp_path, busy_ms=20, lock_wait_s=5.0)
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO t VALUES ('other')")
    release = threading.Timer(0.4, other.execute, args=("COMMIT",))
    release.start()
    started = time.monotonic()
    await db.batch([db.prepare("INSERT INTO t VALUES ('mine')")])
    await db.prepare("INSERT INTO t VALUES ('single')").run()
    waited = time.monotonic() - started
    release.join()
    assert 0.3 < waited < 5.0
    rows = await db.prepare("SELECT x FROM t ORDER BY rowid").all()
    assert [r["x"] for r in rows.results] == ["first", "other", "mine", "single"]
    other.close()
    db.close()


async def test_a_lock_held_past_the_bound_is_a_clear_503_and_writes_nothing(
        tmp_path: Path) -> None:
    db, other = _file_db(tmp_path, busy_ms=20, lock_wait_s=0.3)
    other.execute("BEGIN IMMEDIATE")
    with pytest.raises(DatabaseUnavailable, match=r"locked by another writer for 0\.3 s"):
        await db.batch([db.prepare("INSERT INTO t VALUES ('mine')")])
    other.execute("ROLLBACK")
    assert (await db.prepare("SELECT count(*) AS n FROM t").first()) == {"n": 1}
    other.close()
    db.close()


async def test_deleted_content_is_overwritten(db: SqliteDatabase) -> None:
    assert await db.prepare("PRAGMA secure_delete").first() == {"secure_delete": 1}

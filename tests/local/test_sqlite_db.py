"""The local SQLite adapter rejects what D1 would."""

from __future__ import annotations

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

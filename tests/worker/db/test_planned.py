"""Keyed statements (worker/db/planned.py) on real SQLite: rows come back by key, and a
plan that names a key twice is refused before anything runs."""

from __future__ import annotations

import pytest

from local.sqlite_db import SqliteDatabase
from worker.db.planned import Planned, run


async def test_rows_come_back_by_key(db: SqliteDatabase) -> None:
    rows = await run(db, [Planned(("two", "", 0), "SELECT 2 AS n", ()),
                          Planned(("one", "", 0), "SELECT ? AS n", (1,))])
    assert rows == {("two", "", 0): [{"n": 2}], ("one", "", 0): [{"n": 1}]}


async def test_a_key_named_twice_is_refused_and_nothing_runs(db: SqliteDatabase) -> None:
    await db.prepare("CREATE TABLE t (x INTEGER)").run()
    insert = Planned(("insert", "", 0), "INSERT INTO t VALUES (1) RETURNING x", ())
    with pytest.raises(ValueError, match="names a key twice"):
        await run(db, [insert, insert])
    assert (await db.prepare("SELECT count(*) AS n FROM t").first()) == {"n": 0}


async def test_a_prepared_statement_keeps_its_text_and_values(db: SqliteDatabase) -> None:
    statement = db.prepare("SELECT ? + ? AS n").bind(2, 3)
    assert await run(db, [Planned.of(("sum", "", 0), statement)]) == {("sum", "", 0): [{"n": 5}]}

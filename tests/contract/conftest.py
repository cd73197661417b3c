"""The contract suite's databases: each test runs once on the local SQLite adapter and
once on real D1 inside Miniflare (one Miniflare process per session, reset per test)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from local.migrate import migrate
from local.sqlite_db import SqliteDatabase
from worker.db import ConstraintError, Database

LIST_SQL = """
SELECT name, sql FROM sqlite_master
WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%'
"""


async def reset(db: Database) -> None:
    """Drop every trigger, then every table (virtual tables first: their shadow tables go
    with them). D1 enforces foreign keys, and dropping a table deletes its rows: a parent
    still referenced is dropped on a later pass, once its children are gone."""
    triggers = (await db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'")
                .all()).results
    for row in triggers:
        await db.prepare(f'DROP TRIGGER IF EXISTS "{row["name"]}"').run()
    rows = (await db.prepare(LIST_SQL).all()).results
    virtual = [r["name"] for r in rows if (r["sql"] or "").upper().startswith("CREATE VIRTUAL")]
    for name in virtual:
        await db.prepare(f'DROP TABLE IF EXISTS "{name}"').run()
    while rows := (await db.prepare(LIST_SQL).all()).results:
        # Tables no other table references first: dropping a parent while a child still
        # references it and another, already dropped, parent fails ("no such table").
        referenced = {m.lower() for r in rows
                      for m in re.findall(r"REFERENCES\s+\"?(\w+)", r["sql"] or "", re.I)}
        names = sorted((r["name"] for r in rows), key=lambda n: n.lower() in referenced)
        for name in names:
            with contextlib.suppress(ConstraintError):
                await db.prepare(f'DROP TABLE IF EXISTS "{name}"').run()


@pytest.fixture(params=["sqlite", "miniflare"])
async def blank(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Database]:
    """An empty database on either adapter, no migration applied."""
    if request.param == "sqlite":
        db: Database = SqliteDatabase(tmp_path / "contract.sqlite")
    else:
        db = request.getfixturevalue("miniflare_d1")
        await reset(db)
    yield db


@pytest.fixture
async def port(blank: Database) -> AsyncIterator[Database]:
    """A database on either adapter with every migration applied."""
    await migrate(blank)
    yield blank

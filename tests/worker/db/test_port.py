"""Every adapter satisfies the D1 port: mypy checks `ADAPTERS` (tests/ is type-checked,
so an adapter that drifts from `Database` or `Statement` fails `uv run mypy`), and the
local one answers through the port's names alone."""

from __future__ import annotations

from local.miniflare import MiniflareD1
from local.sqlite_db import SqliteDatabase
from worker.db import Database
from worker.db.binding import D1Database
from worker.db.port import Row

ADAPTERS: tuple[type[Database], ...] = (SqliteDatabase, MiniflareD1, D1Database)


async def through_the_port(db: Database) -> list[Row]:
    first = await db.prepare("SELECT ? AS n").bind(7).first()
    [result] = await db.batch([db.prepare("SELECT ? AS n, ? AS s").bind(8, "x")])
    return [first or {}, *result.results]


async def test_the_sqlite_adapter_answers_through_the_port() -> None:
    db = SqliteDatabase(":memory:")
    try:
        assert await through_the_port(db) == [{"n": 7}, {"n": 8, "s": "x"}]
    finally:
        db.close()


def test_each_adapter_has_the_ports_methods() -> None:
    for adapter in ADAPTERS:
        assert callable(adapter.prepare) and callable(adapter.batch), adapter

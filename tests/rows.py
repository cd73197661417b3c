"""Reading rows back in tests."""

from __future__ import annotations

from worker.db.port import Database, Row, Statement


async def one(statement: Statement) -> Row:
    """The statement's first row, which the test expects to exist."""
    row = await statement.first()
    assert row is not None, f"no row for {statement.sql!r}"
    return row


async def stored(db: Database) -> dict[str, int]:
    """The row count of every table: equal before and after a refused request when it
    changed nothing stored."""
    tables = (await db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' "
                               "ORDER BY name").all()).results
    counts = {}
    for table in tables:
        name = str(table["name"])
        counts[name] = int((await one(db.prepare(f'SELECT count(*) AS n FROM "{name}"')))["n"])
    return counts

"""Reading rows back in tests."""

from __future__ import annotations

from worker.db.port import Row, Statement


async def one(statement: Statement) -> Row:
    """The statement's first row, which the test expects to exist."""
    row = await statement.first()
    assert row is not None, f"no row for {statement.sql!r}"
    return row

"""The D1 binding adapter, against a stand-in for the JS binding (the Workers runtime
cannot start here). It mimics the two shapes results arrive in: plain dicts (SDK >= 1.3)
and JsProxy objects with `.to_py()`; and D1's error messages."""

from __future__ import annotations

from typing import Any

import pytest

from worker.db import ConstraintError, LimitExceeded, QueryError
from worker.db.binding import D1Database, to_py


class JsProxy:
    """What an unconverted JS value looks like from Python."""

    def __init__(self, value: Any) -> None:
        self._value = value

    def to_py(self) -> Any:
        return self._value


class JsNull:
    def __repr__(self) -> str:
        return "null"


class FakeStatement:
    def __init__(self, binding: FakeBinding, sql: str, params: tuple = ()) -> None:
        self.binding, self.sql, self.params = binding, sql, params

    def bind(self, *params: Any) -> FakeStatement:
        return FakeStatement(self.binding, self.sql, params)

    def _answer(self) -> Any:
        self.binding.seen.append((self.sql, self.params))
        if "UNIQUE" in self.sql:
            raise RuntimeError("D1_ERROR: UNIQUE constraint failed: t.id: SQLITE_CONSTRAINT")
        if "bad" in self.sql:
            raise RuntimeError("D1_ERROR: near \"bad\": syntax error: SQLITE_ERROR")
        rows = [{"id": 1, "note": JsNull(), "score": 3}]
        result = {"success": True, "meta": {"changes": 1, "last_row_id": 7}, "results": rows}
        return JsProxy(result) if self.binding.proxies else result

    async def all(self) -> Any:
        return self._answer()

    async def run(self) -> Any:
        return self._answer()


class FakeBinding:
    def __init__(self, proxies: bool) -> None:
        self.proxies, self.seen = proxies, list[tuple[str, tuple[Any, ...]]]()

    def prepare(self, sql: str) -> FakeStatement:
        return FakeStatement(self, sql)

    async def batch(self, statements: list[FakeStatement]) -> Any:
        answers = [s._answer() for s in statements]
        return JsProxy(answers) if self.proxies else answers


@pytest.mark.parametrize("proxies", [False, True])
async def test_results_become_plain_python(proxies: bool) -> None:
    binding = FakeBinding(proxies)
    db = D1Database(binding)
    result = await db.prepare("SELECT ?").bind(None, 5, "x").all()
    assert result.results == [{"id": 1, "note": None, "score": 3}]
    assert (result.changes, result.last_row_id) == (1, 7)
    assert binding.seen == [("SELECT ?", (None, 5, "x"))]  # outside Pyodide None stays None
    assert await db.prepare("SELECT 1").first() == {"id": 1, "note": None, "score": 3}
    batch = await db.batch([db.prepare("SELECT 1"), db.prepare("SELECT 2")])
    assert len(batch) == 2 and batch[1].results[0]["id"] == 1


async def test_d1_errors_become_typed_errors() -> None:
    db = D1Database(FakeBinding(False))
    with pytest.raises(ConstraintError):
        await db.prepare("INSERT UNIQUE").run()
    with pytest.raises(QueryError, match="syntax error"):
        await db.prepare("bad sql").all()
    with pytest.raises(ConstraintError):
        await db.batch([db.prepare("SELECT 1"), db.prepare("INSERT UNIQUE")])


async def test_limits_are_checked_before_anything_reaches_d1() -> None:
    binding = FakeBinding(False)
    db = D1Database(binding)
    with pytest.raises(LimitExceeded, match="2\\^53"):
        await db.prepare("SELECT ?").bind(2**53 + 1).all()
    with pytest.raises(LimitExceeded, match="too many SQL variables"):
        await db.batch([db.prepare("SELECT 1"), db.prepare("SELECT ?").bind(*range(101))])
    assert binding.seen == []


def test_missing_binding_is_a_clear_error() -> None:
    with pytest.raises(Exception, match="no D1 binding named DB"):
        D1Database(None)


def test_to_py_handles_nested_proxies() -> None:
    assert to_py(JsProxy({"a": [JsProxy(1), JsNull()]})) == {"a": [1, None]}

"""Adapter for the real D1 binding inside a Python Worker (Pyodide).

Results may arrive as Python dicts (workers-runtime-sdk >= 1.3 converts them) or as raw
JsProxy objects (older or runtime-bundled SDK), so every value passes through `to_py`.
Python `None` must reach D1 as JS `null`, never `undefined` (D1 rejects undefined), and
bytes as a Uint8Array: worker/ffi.py converts parameters for a raw JS binding, and the
SDK's wrapper converts them itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from worker.db.errors import DatabaseError, classify
from worker.db.limits import check_d1_limits
from worker.db.port import Result, Row, Value
from worker.ffi import js_arg


def to_py(value: Any) -> Any:
    """Convert a JS value (or an already converted one) to plain Python, nulls to None."""
    if hasattr(value, "to_py"):
        value = value.to_py()
    if isinstance(value, dict):
        return {str(k): to_py(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_py(v) for v in value]
    if type(value).__name__ in {"JsNull", "JsUndefined"} or repr(value) in {"null", "undefined"}:
        return None
    return value


def _to_js_params(binding: Any, params: Sequence[Value]) -> list[Any]:
    return [js_arg(binding, p) for p in params]


def _result(raw: Any) -> Result:
    data = to_py(raw) or {}
    meta = data.get("meta") or {}
    return Result(
        results=[dict(r) for r in (data.get("results") or [])],
        changes=int(meta.get("changes") or 0),
        last_row_id=meta.get("last_row_id"),
    )


class D1Statement:
    def __init__(self, binding: Any, sql: str, params: tuple[Value, ...] = ()) -> None:
        self._binding = binding
        self.sql = sql
        self.params = params

    def bind(self, *params: Value) -> D1Statement:
        return D1Statement(self._binding, self.sql, tuple(params))

    def js(self) -> Any:
        check_d1_limits(self.sql, self.params)
        stmt = self._binding.prepare(self.sql)
        return stmt.bind(*_to_js_params(self._binding, self.params)) if self.params else stmt

    async def all(self) -> Result:
        stmt = self.js()
        try:
            return _result(await stmt.all())
        except Exception as exc:  # pyodide.ffi.JsException carries D1's message
            raise classify(str(exc)) from exc

    async def first(self) -> Row | None:
        result = await self.all()
        return result.results[0] if result.results else None

    async def run(self) -> Result:
        stmt = self.js()
        try:
            return _result(await stmt.run())
        except Exception as exc:
            raise classify(str(exc)) from exc


class D1Database:
    """Wraps `env.DB`."""

    def __init__(self, binding: Any) -> None:
        if binding is None:
            raise DatabaseError("the Worker has no D1 binding named DB; check wrangler.toml")
        self._binding = binding

    def prepare(self, sql: str) -> D1Statement:
        return D1Statement(self._binding, sql)

    async def batch(self, statements: Sequence[D1Statement]) -> list[Result]:
        if not statements:
            return []
        bound = [s.js() for s in statements]
        try:
            raw = await self._binding.batch(js_arg(self._binding, bound))
        except Exception as exc:
            raise classify(str(exc)) from exc
        return [_result(r) for r in to_py(raw)]

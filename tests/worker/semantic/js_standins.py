"""How values from a JS binding look from Python when the Workers SDK has not converted
them (older or runtime-bundled SDK): JsProxy objects with `.to_py()`, and JS null."""

from __future__ import annotations

from typing import Any


class JsProxy:
    def __init__(self, value: Any) -> None:
        self._value = value

    def to_py(self) -> Any:
        return self._value


class JsNull:
    def __repr__(self) -> str:
        return "null"


class JsException(Exception):
    """What a rejected binding promise raises in Python."""


def refuse_tuples(value: Any, where: str) -> None:
    """The Workers SDK refuses tuples over RPC (workers/rpc.py `_raise_on_disabled_type`)."""
    if isinstance(value, tuple):
        raise TypeError(f"{where}: <class 'tuple'> cannot be sent over RPC.")
    if isinstance(value, dict):
        for v in value.values():
            refuse_tuples(v, where)
    elif isinstance(value, list):
        for v in value:
            refuse_tuples(v, where)

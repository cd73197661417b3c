"""`mallory --help` answers without loading the Worker, SQLite, uvicorn or the migrations'
SQL parser (each command imports what it needs)."""

from __future__ import annotations

from tests.hub.test_cli import modules_after_help

HEAVY = ("worker", "local.server", "local.sqlite_db", "local.migrate", "sqlglot", "uvicorn",
         "asyncio", "starlette", "httpx", "pydantic", "hub")


def test_help_imports_none_of_the_command_modules() -> None:
    assert modules_after_help("local.cli", HEAVY) == []

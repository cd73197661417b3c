"""The local runtime: the Worker's ASGI app under uvicorn on a SQLite D1."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from local.sqlite_db import SqliteDatabase
from worker.app import create_app
from worker.config import Runtime, Settings

DEV_VARS = Path(".dev.vars")


def read_dev_vars(path: Path = DEV_VARS) -> dict[str, str]:
    """KEY=VALUE lines as wrangler reads `.dev.vars` (quotes stripped, # comments)."""
    if not path.is_file():
        return {}
    values = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.partition("=")
        values[key.strip()] = value.strip().strip('"').strip("'")
    return values


def local_settings(overrides: Mapping[str, str] | None = None) -> Settings:
    """Environment variables win over `.dev.vars`, explicit overrides over both."""
    env: dict[str, Any] = {**read_dev_vars(), **os.environ, **(overrides or {})}
    return Settings.from_mapping(env)


class WithRuntime:
    """ASGI middleware that puts the Runtime where the Workers adapter puts `env`."""

    def __init__(self, app: Any, runtime: Runtime) -> None:
        self.app, self.runtime = app, runtime

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            scope = {**scope, "env": self.runtime}
        await self.app(scope, receive, send)


def local_app(db: SqliteDatabase, settings: Settings, serve_static: bool = True) -> WithRuntime:
    return WithRuntime(create_app(serve_static=serve_static), Runtime(db=db, settings=settings))

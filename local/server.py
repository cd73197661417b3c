"""The local runtime: the Worker's ASGI app under uvicorn on a SQLite D1."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from starlette.types import Message, Receive, Scope, Send

from local.semantic.wiring import SerialScheduler, semantics_or_problem
from local.sqlite_db import SqliteDatabase
from shared.api.errors import ConfigError
from worker.app import create_app
from worker.config import OwnerAuth, Runtime, Settings
from worker.indexing.scheduling import schedule_indexing
from worker.recall.corpora import VECTOR_CORPORA
from worker.security.hosts import LOOPBACK_HOSTS, is_loopback_name, loopback_only

log = logging.getLogger("mallory.semantic")

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


def local_env(overrides: Mapping[str, str] | None = None) -> dict[str, str]:
    """Environment variables win over `.dev.vars`, explicit overrides over both."""
    return {**read_dev_vars(), **os.environ, **(overrides or {})}


def local_settings(overrides: Mapping[str, str] | None = None) -> Settings:
    return Settings.from_mapping(local_env(overrides))


WILDCARD_HOSTS = ("0.0.0.0", "::", "")


def is_loopback(host: str) -> bool:
    return is_loopback_name(host)


def settings_for_bind(settings: Settings, host: str) -> Settings:
    """What binding to `host` means for owner auth and the Host allow-list.

    Loopback is local-owner mode: only this machine can connect, and the Host allow-list
    (loopback names unless ALLOWED_HOSTS says otherwise) keeps DNS-rebinding pages out.
    Any other address reaches other machines, so it needs OWNER_TOKEN (or Access), and so
    does an ALLOWED_HOSTS wider than loopback names (DNS rebinding)."""
    loopback = is_loopback(host)
    if not loopback and settings.owner_auth is OwnerAuth.NONE:
        raise ConfigError(f"binding to {host!r} serves Mallory beyond this machine: set "
                          "OWNER_TOKEN (environment or .dev.vars; sign in at /login.html) or "
                          "ACCESS_TEAM_DOMAIN + ACCESS_AUD, or bind to 127.0.0.1")
    # The address bound is a name the server answers for (`--host 127.0.0.2` is reached as
    # http://127.0.0.2:PORT), a wildcard is not.
    bound = host.strip("[]").lower()
    allowed = settings.allowed_hosts or (
        *LOOPBACK_HOSTS,
        *([] if host in WILDCARD_HOSTS or bound in LOOPBACK_HOSTS else [bound]))
    if settings.owner_auth is OwnerAuth.NONE and not loopback_only(allowed):
        raise ConfigError(f"ALLOWED_HOSTS={','.join(allowed)} answers host names other than "
                          "loopback ones, which a DNS-rebinding page can use to reach "
                          "127.0.0.1, so local-owner access is off: set OWNER_TOKEN "
                          "(environment or .dev.vars; sign in at /login.html) or "
                          "ACCESS_TEAM_DOMAIN + ACCESS_AUD, or leave ALLOWED_HOSTS unset")
    return replace(settings, local_owner=loopback, allowed_hosts=tuple(allowed))


class WithRuntime:
    """ASGI middleware that puts the Runtime where the Workers adapter puts `env`; at
    lifespan start-up it starts indexing whatever vectors are pending."""

    def __init__(self, app: Any, runtime: Runtime) -> None:
        self.app, self.runtime = app, runtime

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            scope = {**scope, "env": self.runtime}
        elif scope["type"] == "lifespan":
            receive = self._on_startup(receive)
        await self.app(scope, receive, send)

    def _on_startup(self, receive: Receive) -> Receive:
        async def wrapped() -> Message:
            message = await receive()
            if message.get("type") == "lifespan.startup":
                schedule_indexing(self.runtime, [c.name for c in VECTOR_CORPORA])
            return message

        return wrapped


def warm(embedder: Any) -> None:
    """Load a local model before the server takes requests: loading MiniLM takes longer
    than recall's semantic budget (worker/recall/modes.py, 0.3 s), so the first query
    after start-up stepped down to lexical with semantic_timeout. An embedder behind an
    endpoint has nothing to load; a model that cannot load is left to fail per request,
    where recall steps down and says why."""
    load = getattr(embedder, "load", None)
    if load is None:
        return
    try:
        load()
    except Exception:
        log.exception("the embedder could not be loaded at start-up")


def local_runtime(db: SqliteDatabase, settings: Settings,
                  env: Mapping[str, str] | None = None) -> Runtime:
    """The Runtime of `mallory serve`: semantic recall when an embedder is set up."""
    semantics, problem = (None, None) if settings.lexical_only else semantics_or_problem(
        db, env if env is not None else local_env())
    if semantics is not None:
        warm(semantics.embedder)
    return Runtime(db=db, settings=settings, semantics=semantics,
                   schedule=SerialScheduler() if semantics else None,
                   semantic_problem=problem)


def local_app(db: SqliteDatabase, settings: Settings, serve_static: bool = True,
              runtime: Runtime | None = None) -> WithRuntime:
    return WithRuntime(create_app(serve_static=serve_static),
                       runtime or Runtime(db=db, settings=settings))

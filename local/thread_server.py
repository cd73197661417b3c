"""A real local server (uvicorn in a background thread) on a fresh SQLite database, for
tests and benchmarks that must load data through the real HTTP path."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable, Coroutine, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

import uvicorn

from local.migrate import migrate
from local.server import local_app, local_runtime, settings_for_bind
from local.sqlite_db import SqliteDatabase
from worker.config import Runtime, Settings

BENCH_TOKEN = "bench-sync-token"
T = TypeVar("T")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class RunningServer:
    url: str
    db: SqliteDatabase
    token: str = BENCH_TOKEN


def run_coroutine(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion from synchronous code, even when the calling thread
    already has an event loop (Playwright's sync API keeps one running)."""
    result: list[T] = []
    errors: list[BaseException] = []

    def target() -> None:
        try:
            result.append(asyncio.run(coro))
        except BaseException as exc:  # re-raised in the caller's thread
            errors.append(exc)

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if errors:
        raise errors[0]
    return result[0]


@contextmanager
def running_server(db_path: Path, token: str = BENCH_TOKEN, serve_static: bool = False,
                   settings: Settings | None = None,
                   wrap: Callable[[Any], Any] | None = None,
                   semantic_env: Mapping[str, str] | None = None,
                   clock: Callable[[], int] | None = None,
                   semantic_budget_s: float | None = None) -> Iterator[RunningServer]:
    """Bound to 127.0.0.1, so by default in local-owner mode, as `mallory serve` is.
    `wrap`: an ASGI middleware around the app (tests use it to kill a hub mid-run).
    `semantic_env`: build `mallory serve`'s semantic side from these variables (the local
    embedder when installed, or EMBEDDINGS_BASE_URL); None: lexical only.
    `clock`: the app's clock in ms (tests fix it; default the wall clock).
    `semantic_budget_s`: how long recall waits for the semantic list (default the
    Runtime's, 0.3 s); a test of what semantic recall finds, not of how fast, gives itself
    more, so that a loaded machine does not step it down to lexical."""
    db = SqliteDatabase(db_path)
    run_coroutine(migrate(db))
    settings = settings or settings_for_bind(Settings(sync_tokens=(token,)), "127.0.0.1")
    runtime = local_runtime(db, settings, semantic_env) if semantic_env is not None else None
    if runtime is not None and runtime.semantics is not None and semantic_budget_s:
        runtime = replace(runtime, semantics=replace(runtime.semantics,
                                                     budget_s=semantic_budget_s))
    if clock is not None:
        runtime = replace(runtime, clock=clock) if runtime else Runtime(
            db=db, settings=settings, clock=clock)
    app = local_app(db, settings, serve_static=serve_static, runtime=runtime)
    app = wrap(app) if wrap else app
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error",
                                           lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the local server did not start")
        time.sleep(0.05)
    try:
        yield RunningServer(url=f"http://127.0.0.1:{port}", db=db, token=token)
    finally:
        server.should_exit = True
        thread.join(timeout=10)

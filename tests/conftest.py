"""Shared fixtures: real SQLite (and real D1 in Miniflare), the real ASGI app over HTTP."""

from __future__ import annotations

import hashlib
import sys
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import settings as hypothesis_settings

from local.migrate import migrate
from local.server import WithRuntime
from local.sqlite_db import SqliteDatabase
from shared.api.sync_payload import NoteUpsert, SyncBatch, SyncResult
from shared.time.durations import MS_PER_DAY
from tests import embedder
from tests.schedule import long_poles_first, scheduling
from worker.app import create_app
from worker.config import Runtime, Settings
from worker.db import Database
from worker.security.hosts import LOOPBACK_HOSTS
from worker.store import notes as note_store
from worker.store import vaults

# No timed assertions in tests: Hypothesis's 200 ms deadline failed property tests on a
# loaded 2-core machine (DeadlineExceeded, then "flaky"), so no example has a deadline.
hypothesis_settings.register_profile("mallory", deadline=None)
hypothesis_settings.load_profile("mallory")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The long-running files first (tests/schedule.py); tests marked `embed` skip, saying
    why, where the optional embedder is missing."""
    long_poles_first(items, ROOT)
    if embedder.MISSING:
        for item in items:
            if item.get_closest_marker("embed"):
                item.add_marker(pytest.mark.skip(reason=embedder.REASON))


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """`--dist loadfile` deals tests/schedule.py's folders whole, as it deals files."""
    return scheduling()(config, log) if config.getvalue("dist") == "loadfile" else None


# The Pyodide suite's one-line summary (tests/pyodide/conftest.py), printed at the end of
# the run; under pytest-xdist it travels from the worker that ran it in `workeroutput`.
PYODIDE_SUMMARY = pytest.StashKey[str]()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    line = getattr(node, "workeroutput", {}).get("pyodide_summary")
    if line:
        node.config.stash[PYODIDE_SUMMARY] = line


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    line = config.stash.get(PYODIDE_SUMMARY, None)
    if line:
        terminalreporter.write_line(line)


ROOT = Path(__file__).resolve().parent.parent
TOKEN = "test-sync-token"
# A loopback name: local-owner access holds only under a loopback-only host list.
BASE_URL = "http://localhost"
LIFE_ID = "11111111-1111-4111-8111-111111111111"  # the id of the vault named "Life"
DAY_MS = MS_PER_DAY
NOW_MS = 1_780_000_000_000  # 2026-05-28, fixed so recency is reproducible


# What `mallory serve` on 127.0.0.1 sets: local owner, loopback names only.
LOCAL_OWNER: dict[str, Any] = {"local_owner": True, "allowed_hosts": LOOPBACK_HOSTS}


@dataclass
class Clock:
    now: int = NOW_MS

    def __call__(self) -> int:
        self.now += 1  # strictly increasing, like a real clock between requests
        return self.now


_template: SqliteDatabase | None = None


async def migrated_db() -> SqliteDatabase:
    """A fresh in-memory database at the current schema: a page copy of one database
    migrated once per test process. Migrating each one anew cost 70–200 ms a test on two
    cores; `migrate()` itself is tested on fresh databases in tests/local/test_migrate.py
    and tests/contract/."""
    global _template
    if _template is None:
        _template = SqliteDatabase(":memory:")
        await migrate(_template)
    database = SqliteDatabase(":memory:")
    _template.connection.backup(database.connection)
    return database


@pytest.fixture
async def db() -> AsyncIterator[SqliteDatabase]:
    database = await migrated_db()
    yield database
    database.close()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def settings() -> Settings:
    # Local-owner mode, as `mallory serve` on 127.0.0.1: owner routes need no credentials.
    return Settings(sync_tokens=(TOKEN,), **LOCAL_OWNER)


@pytest.fixture
def runtime(db: SqliteDatabase, settings: Settings, clock: Clock) -> Runtime:
    return Runtime(db=db, settings=settings, clock=clock)


def _with_static_files(runtime: Runtime) -> Any:
    """The app serving the web client too: from worker/static on disk, as `mallory serve`
    does; inside Pyodide (tests/pyodide) through the runner's JavaScript ASSETS binding,
    as at the edge, where StaticFiles cannot run (it needs threads)."""
    if sys.platform == "emscripten":
        import mallory_js  # type: ignore[import-not-found]

        return WithRuntime(create_app(), replace(runtime, assets=mallory_js.makeAssets()))
    return WithRuntime(create_app(serve_static=True), runtime)


@pytest.fixture
async def client(runtime: Runtime) -> AsyncIterator[httpx.AsyncClient]:
    app = _with_static_files(runtime)
    transport = httpx.ASGITransport(app=app)
    # A browser sends its page's Origin on every POST; the CSRF check wants it.
    async with httpx.AsyncClient(transport=transport, base_url=BASE_URL,
                                 headers={"origin": BASE_URL}) as c:
        yield c


def auth(token: str = TOKEN) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def note(path: str, body: str, *, title: str | None = None, mtime: int = NOW_MS - DAY_MS,
         tags: list[str] | None = None, aliases: list[str] | None = None,
         note_date: int | None = None, **fields: Any) -> NoteUpsert:
    """A note as the hub sends it; `fields`: type, status, role, relations, …"""
    return NoteUpsert(path=path, title=title or Path(path).stem, body=body, mtime=mtime,
                      note_date=note_date if note_date is not None else mtime,
                      content_hash=hashlib.sha256(f"{path}{body}{mtime}".encode()).hexdigest(),
                      tags=tags or [], aliases=aliases or [], **fields)


def batch(batch_id: str, upserts: Sequence[NoteUpsert] = (),
          deletes: Sequence[dict[str, Any]] = (),
          vault: str = "Life", vault_id: str = LIFE_ID, seq: int = 1) -> dict[str, Any]:
    return {"batch_id": batch_id, "vault_id": vault_id, "vault": vault, "seq": seq,
            "upserts": [u.model_dump() for u in upserts], "deletes": list(deletes)}


async def heartbeat(client: httpx.AsyncClient, vault_id: str = LIFE_ID, vault: str = "Life",
                    rejected: int | None = None) -> dict:
    """What a hub run does first: register the vault and take a sync sequence."""
    body: dict[str, Any] = {"vault_id": vault_id, "vault": vault}
    if rejected is not None:
        body["rejected"] = rejected
    response = await client.post("/vault/heartbeat", json=body, headers=auth())
    assert response.status_code == 200, response.text
    return response.json()


async def sync(client: httpx.AsyncClient, *notes: NoteUpsert, batch_id: str = "b1",
               deletes: Sequence[dict[str, Any]] = (), vault: str = "Life",
               vault_id: str = LIFE_ID, seq: int | None = None) -> httpx.Response:
    """One batch as a hub run sends it: with the sequence of a fresh heartbeat unless
    `seq` names one already handed out."""
    if seq is None:
        seq = (await heartbeat(client, vault_id, vault))["vault"]["seq"]
    body = batch(batch_id, list(notes), deletes, vault=vault, vault_id=vault_id, seq=seq)
    response = await client.post("/vault/sync", json=body, headers=auth())
    assert response.status_code == 200, response.text
    return response


@pytest.fixture(scope="session")
def miniflare_d1() -> Iterator[object]:
    """Real D1 in Miniflare, started once per test session. Needs `npm ci` (CI runs it)."""
    from local.miniflare import MiniflareD1

    d1 = MiniflareD1.start()
    yield d1
    d1.stop()


async def store_notes(db: Database, *upserts: NoteUpsert,
                      deletes: Sequence[dict[str, Any]] = (),
                      vault: str = "Life", vault_id: str = LIFE_ID, batch_id: str = "b",
                      now_ms: int = NOW_MS) -> SyncResult:
    """A hub run at the store level: a heartbeat, then one batch with its sequence."""
    contact = await vaults.heartbeat(db, vault_id, vault, now_ms)
    return await note_store.apply_batch(db, SyncBatch(
        batch_id=batch_id, vault_id=vault_id, vault=vault, seq=contact.vault.seq,
        upserts=list(upserts), deletes=list(deletes)), now_ms)

"""Shared fixtures: real SQLite (and real D1 in Miniflare), the real ASGI app over HTTP."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from local.migrate import migrate
from local.server import WithRuntime
from local.sqlite_db import SqliteDatabase
from shared.schemas import NoteUpsert
from shared.units import MS_PER_DAY
from worker.app import create_app
from worker.config import Runtime, Settings

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "test-sync-token"
BASE_URL = "http://mallory.test"
DAY_MS = MS_PER_DAY
NOW_MS = 1_780_000_000_000  # 2026-05-28, fixed so recency is reproducible


@dataclass
class Clock:
    now: int = NOW_MS

    def __call__(self) -> int:
        self.now += 1  # strictly increasing, like a real clock between requests
        return self.now


@pytest.fixture
async def db() -> AsyncIterator[SqliteDatabase]:
    database = SqliteDatabase(":memory:")
    await migrate(database)
    yield database
    database.close()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def settings() -> Settings:
    # Local-owner mode, as `mallory serve` on 127.0.0.1: owner routes need no credentials.
    return Settings(sync_tokens=(TOKEN,), local_owner=True)


@pytest.fixture
def runtime(db: SqliteDatabase, settings: Settings, clock: Clock) -> Runtime:
    return Runtime(db=db, settings=settings, clock=clock)


@pytest.fixture
async def client(runtime: Runtime) -> AsyncIterator[httpx.AsyncClient]:
    app = WithRuntime(create_app(serve_static=True), runtime)
    transport = httpx.ASGITransport(app=app)
    # A browser sends its page's Origin on every POST; the CSRF check wants it.
    async with httpx.AsyncClient(transport=transport, base_url=BASE_URL,
                                 headers={"origin": BASE_URL}) as c:
        yield c


def auth(token: str = TOKEN) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def note(path: str, body: str, *, title: str | None = None, mtime: int = NOW_MS - DAY_MS,
         tags: list[str] | None = None, aliases: list[str] | None = None,
         note_date: int | None = None) -> NoteUpsert:
    return NoteUpsert(path=path, title=title or Path(path).stem, body=body, mtime=mtime,
                      note_date=note_date if note_date is not None else mtime,
                      content_hash=hashlib.sha256(f"{path}{body}{mtime}".encode()).hexdigest(),
                      tags=tags or [], aliases=aliases or [])


def batch(batch_id: str, upserts: list[NoteUpsert] = (), deletes: list[dict] = (),
          vault: str = "Life") -> dict:
    return {"batch_id": batch_id, "vault": vault,
            "upserts": [u.model_dump() for u in upserts], "deletes": list(deletes)}


async def sync(client: httpx.AsyncClient, *notes: NoteUpsert, batch_id: str = "b1",
               deletes: list[dict] = ()) -> httpx.Response:
    response = await client.post("/vault/sync", json=batch(batch_id, list(notes), deletes),
                                 headers=auth())
    assert response.status_code == 200, response.text
    return response


@pytest.fixture(scope="session")
def miniflare_d1() -> Iterator[object]:
    """Real D1 in Miniflare, started once per test session. Needs `npm ci` (CI runs it)."""
    from local.miniflare import MiniflareD1

    d1 = MiniflareD1.start()
    yield d1
    d1.stop()

"""200 forgets while vectors are being indexed, against the real local server in adaptive
mode (uvicorn on a SQLite file, the local MiniLM embedder, the vector index's own
connection writing from a thread): every one answers 200. Before the local adapter took
the write lock up front, 6 of 80 such forgets failed with 503 "database is locked".

Indexing is kept busy by notes long enough to embed slowly (about 5 sections a second
here); the run checks it was still behind when the last forget was answered, so every
forget met it.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import httpx
import pytest

from local.migrate import migrate
from local.server import settings_for_bind
from local.sqlite_db import SqliteDatabase
from local.thread_server import RunningServer, run_coroutine, running_server
from tests import embedder
from tests.conftest import note
from tests.e2e.conftest import sync_notes
from tests.reliability.conftest import fts_integrity
from worker.config import Settings
from worker.store import chats

embedder.require()

pytestmark = [pytest.mark.reliability, pytest.mark.embed]
FORGETS = int(os.environ.get("RELIABILITY_FORGETS", "200"))
CLIENTS = 4
NOTES = 120
TOKEN = "forget-token"
SENTENCE = ("The allotment shed holds the seed trays, the twine and the long-handled hoe; "
            "the water butt by the door fills from the gutter after rain. ")


async def seed_messages(path: Path, count: int) -> list[str]:
    """`count` messages in exchanges of two, stored before the server starts."""
    db = SqliteDatabase(path)
    await migrate(db)
    ids = []
    for i in range(count // 2):
        conversation = f"c{i:03d}"
        await chats.append_message(db, conversation, "user", f"what is in crate {i}?", i,
                                   message_id=f"q{i:03d}", new_conversation=True)
        await chats.append_message(db, conversation, "assistant", f"Crate {i} holds bulbs.",
                                   i + 1, message_id=f"a{i:03d}")
        ids += [f"a{i:03d}", f"q{i:03d}"]
    db.close()
    return ids


def indexing(server: RunningServer) -> dict:
    response = httpx.get(f"{server.url}/status", timeout=60)
    assert response.status_code == 200, response.text
    return response.json()["retrieval"]


async def forget_all(server: RunningServer, ids: list[str]) -> dict[str, int]:
    queue: asyncio.Queue[str] = asyncio.Queue()
    for message_id in ids:
        queue.put_nowait(message_id)
    statuses: dict[str, int] = {}

    async def worker(client: httpx.AsyncClient) -> None:
        while not queue.empty():
            message_id = queue.get_nowait()
            response = await client.delete(f"/api/messages/{message_id}")
            statuses[message_id] = response.status_code

    async with httpx.AsyncClient(base_url=server.url, timeout=60,
                                 headers={"origin": server.url}) as client:
        await asyncio.gather(*(worker(client) for _ in range(CLIENTS)))
    return statuses


def test_forgets_during_background_indexing_never_fail(tmp_path: Path) -> None:
    path = tmp_path / "mallory.sqlite"
    ids = run_coroutine(seed_messages(path, FORGETS))
    settings = settings_for_bind(Settings(sync_tokens=(TOKEN,), retrieval_mode="adaptive",
                                          chat_per_minute=10_000), "127.0.0.1")
    with running_server(path, token=TOKEN, settings=settings, semantic_env={}) as server:
        # The seeded exchanges get their vectors first (a chat schedules message
        # indexing), so each forget also deletes vectors and re-embeds what it rebuilds.
        chat = httpx.post(f"{server.url}/api/chat", json={"content": "what is in crate 3?"},
                          headers={"origin": server.url}, timeout=60)
        assert chat.status_code == 200, chat.text
        deadline = time.monotonic() + 120
        while indexing(server)["vectors"]["pending"] and time.monotonic() < deadline:
            time.sleep(0.2)
        assert indexing(server)["vectors"]["pending"] == 0
        # Then a sync of notes that keeps the background indexer writing vectors.
        sync_notes(server, *(note(f"Garden/Shed {i:03d}.md", f"Shed {i}. " + SENTENCE * 7)
                             for i in range(NOTES)), vault="Garden", batch_id="notes")

        statuses = run_coroutine(forget_all(server, ids))
        behind = indexing(server)["indexing"]

        failures = {i: s for i, s in statuses.items() if s != 200}
        assert failures == {} and len(statuses) == FORGETS
        assert behind["behind"] and behind["pending"] > 0, (
            "indexing finished before the forgets did: raise NOTES so they meet it")
        assert run_coroutine(fts_integrity(server.db))

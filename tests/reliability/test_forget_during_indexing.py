"""Forgets (conversations and messages; 60, and 200 in .ci/run) while vectors are being
indexed, against the real local server in adaptive mode (uvicorn on a SQLite file, the
local MiniLM embedder, the vector index's own connection writing from a thread): every one
answers 200. Before the local adapter took the write lock up front, such forgets failed
with 503 "database is locked" (6 of 80 in the outside probe).

The indexer is kept writing by thousands of short exchanges still to embed; the run checks
indexing was still behind when the last forget was answered, so every forget met it. Two
embedders: MiniLM, as `EMBED=1 ./scripts/run` has it (a vector write every third of a
second or so), and an OpenAI-compatible endpoint (EMBEDDINGS_BASE_URL; a network edge,
stood in for with respx in its documented shape) that answers at once, so the vector
index writes many times a second and the two writers meet on most forgets.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import struct
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import respx

from local.migrate import migrate
from local.server import settings_for_bind
from local.sqlite_db import SqliteDatabase
from local.thread_server import RunningServer, run_coroutine, running_server
from tests import embedder
from tests.reliability.conftest import fts_integrity
from worker.config import Settings
from worker.db import Database, Statement

embedder.require()

pytestmark = [pytest.mark.reliability, pytest.mark.embed]
# The default run forgets 60; .ci/run 200 after it (RELIABILITY_FORGETS).
FORGETS = int(os.environ.get("RELIABILITY_FORGETS", "60"))
EXCHANGES = 3_000  # pending units the indexer works through meanwhile
SEED_BATCH = 500  # exchanges a seeding transaction writes
CLIENTS = 4
TOKEN = "forget-token"
CONVERSATION_SQL = "INSERT INTO conversations (id, title, created_at, updated_at) " \
                   "VALUES (?1, ?1, ?2, ?2)"
MESSAGE_SQL = """
INSERT INTO messages (id, conversation_id, seq, role, content, created_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6)
"""
UNIT_SQL = """
INSERT INTO conversation_units (id, conversation_id, question_id, answer_id, part, seq,
                                question, answer, created_at)
VALUES (?3 || ':0', ?1, ?2, ?3, 0, 1, ?4, ?5, ?6)
"""


EMBEDDINGS_URL = "https://embeddings.example/v1"
FAST_DIMENSIONS = 64


def fast_embeddings(request: httpx.Request) -> httpx.Response:
    """POST /v1/embeddings as OpenAI documents it: a deterministic vector per input."""
    texts = json.loads(request.content)["input"]
    data = []
    for i, text in enumerate(texts):
        digest = hashlib.sha256(text.encode()).digest() * (FAST_DIMENSIONS * 4 // 32)
        values = [v / 2**31 for v in struct.unpack(f"<{FAST_DIMENSIONS}i", digest)]
        data.append({"object": "embedding", "index": i, "embedding": values})
    return httpx.Response(200, json={"object": "list", "data": data, "model": "fake",
                                     "usage": {"prompt_tokens": 0, "total_tokens": 0}})


@pytest.fixture(params=["minilm", "openai-compatible"])
def semantic_env(request: pytest.FixtureRequest) -> Iterator[dict[str, str]]:
    if request.param == "minilm":
        yield {}
        return
    with respx.mock(assert_all_called=False) as mock:
        mock.post(f"{EMBEDDINGS_URL}/embeddings").mock(side_effect=fast_embeddings)
        mock.route(host="127.0.0.1").pass_through()
        yield {"EMBEDDINGS_BASE_URL": EMBEDDINGS_URL, "EMBEDDINGS_MODEL": "fake",
               "EMBEDDINGS_DIMENSIONS": str(FAST_DIMENSIONS)}


def exchange(db: Database, i: int) -> list[Statement]:
    """One conversation: a question, its answer and their unit, as the chat store keeps them
    (written directly: thousands through chats.append_message would take a minute)."""
    c, q, a = f"c{i:04d}", f"q{i:04d}", f"a{i:04d}"
    question, answer = f"what is in crate {i}?", f"Crate {i} holds {i % 17} bulbs."
    return [db.prepare(CONVERSATION_SQL).bind(c, i),
            db.prepare(MESSAGE_SQL).bind(q, c, 1, "user", question, i),
            db.prepare(MESSAGE_SQL).bind(a, c, 2, "assistant", answer, i + 1),
            db.prepare(UNIT_SQL).bind(c, q, a, question, answer, i)]


async def seed(path: Path, forgets: int) -> list[str]:
    """The exchanges, stored before the server starts; returns what to forget: half whole
    conversations (a conversation's batch reads before it writes), the rest message by
    message."""
    db = SqliteDatabase(path)
    await migrate(db)
    for start in range(0, EXCHANGES, SEED_BATCH):
        await db.batch([statement for i in range(start, min(start + SEED_BATCH, EXCHANGES))
                        for statement in exchange(db, i)])
    db.close()
    whole = forgets // 2
    paths = [f"/api/conversations/c{i:04d}" for i in range(whole)]
    for i in range(whole, whole + (forgets - whole + 1) // 2):
        paths += [f"/api/messages/a{i:04d}", f"/api/messages/q{i:04d}"]
    return paths[:forgets]


def indexing(server: RunningServer) -> dict:
    response = httpx.get(f"{server.url}/status", timeout=60)
    assert response.status_code == 200, response.text
    return response.json()["retrieval"]


def wait_for_first_vectors(server: RunningServer, timeout_s: float = 180.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if indexing(server)["vectors"]["indexed"] > 0:
            return True
        time.sleep(0.05)
    return False


async def forget_all(server: RunningServer, paths: list[str]) -> dict[str, int]:
    queue: asyncio.Queue[str] = asyncio.Queue()
    for path in paths:
        queue.put_nowait(path)
    statuses: dict[str, int] = {}

    async def worker(client: httpx.AsyncClient) -> None:
        while not queue.empty():
            path = queue.get_nowait()
            statuses[path] = (await client.delete(path)).status_code

    async with httpx.AsyncClient(base_url=server.url, timeout=60,
                                 headers={"origin": server.url}) as client:
        await asyncio.gather(*(worker(client) for _ in range(CLIENTS)))
    return statuses


def test_forgets_during_background_indexing_never_fail(tmp_path: Path,
                                                       semantic_env: dict[str, str]) -> None:
    path = tmp_path / "mallory.sqlite"
    forgets = run_coroutine(seed(path, FORGETS))
    settings = settings_for_bind(Settings(sync_tokens=(TOKEN,), retrieval_mode="adaptive",
                                          chat_per_minute=10_000), "127.0.0.1")
    with running_server(path, token=TOKEN, settings=settings,
                        semantic_env=semantic_env) as server:
        # A chat schedules message indexing: thousands of units, in the background.
        chat = httpx.post(f"{server.url}/api/chat", json={"content": "what is in crate 3?"},
                          headers={"origin": server.url}, timeout=60)
        assert chat.status_code == 200, chat.text
        # The forgets start once the first vectors are written, so every one meets a
        # writing indexer: on a fast machine they could all be answered while the
        # embedder was still loading.
        assert wait_for_first_vectors(server), "indexing never started"

        statuses = run_coroutine(forget_all(server, forgets))
        retrieval = indexing(server)

        failures = {path: s for path, s in statuses.items() if s != 200}
        assert failures == {} and len(statuses) == FORGETS
        assert retrieval["vectors"]["pending"] > 0, (
            "indexing finished before the forgets did: raise EXCHANGES")
        assert run_coroutine(fts_integrity(server.db))

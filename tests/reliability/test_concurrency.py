"""Concurrent chat, search and sync against the real local server for a bounded time:
no 5xx, and every acknowledged write is readable afterwards. FTS indexes intact."""

from __future__ import annotations

import asyncio
import hashlib
import os
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from local.thread_server import run_coroutine, running_server
from tests.reliability.conftest import FTS_TABLES, fts_integrity, settings
from tests.reliability.hostile import TOKEN, WORDS

pytestmark = pytest.mark.reliability
SEED = int(os.environ.get("RELIABILITY_SEED", "16"))
DURATION_S = float(os.environ.get("RELIABILITY_CONCURRENCY_S", "4"))  # .ci/run: 12
WORKERS = {"chat": 3, "search": 3, "sync": 2, "read": 1}
AUTH = {"authorization": f"Bearer {TOKEN}"}


@dataclass
class Ledger:
    """What the server acknowledged (a 200), to check afterwards."""

    messages: dict[str, str] = field(default_factory=dict)   # message id → content
    conversations: set[str] = field(default_factory=set)
    notes: dict[str, str] = field(default_factory=dict)      # path → content hash
    markers: dict[str, str] = field(default_factory=dict)    # unique body word → path
    statuses: Counter[int] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)

    def record(self, what: str, response: httpx.Response) -> bool:
        self.statuses[response.status_code] += 1
        if response.status_code >= 500:
            self.failures.append(f"{what}: {response.status_code} {response.text[:200]}")
        return response.status_code == 200


def words(rnd: random.Random, n: int) -> str:
    return " ".join(rnd.choice(WORDS) for _ in range(n))


async def chatter(client: httpx.AsyncClient, rnd: random.Random, ledger: Ledger,
                  deadline: float) -> None:
    conversation = None
    while time.monotonic() < deadline:
        content = f"{words(rnd, 6)} {rnd.randrange(10**9)}"
        body = {"content": content, **({"conversation_id": conversation} if conversation else {})}
        response = await client.post("/api/chat", json=body)
        if ledger.record("chat", response):
            data = response.json()
            conversation = data["conversation_id"] if rnd.random() < 0.7 else None
            ledger.conversations.add(data["conversation_id"])
            ledger.messages[data["user_message"]["id"]] = content
            ledger.messages[data["assistant_message"]["id"]] = \
                data["assistant_message"]["content"]


async def searcher(client: httpx.AsyncClient, rnd: random.Random, ledger: Ledger,
                   deadline: float) -> None:
    while time.monotonic() < deadline:
        source = rnd.choice(["all", "notes", "messages"])
        ledger.record("search", await client.get("/api/search", params={
            "q": words(rnd, rnd.randint(1, 5)), "source": source}))


async def syncer(client: httpx.AsyncClient, rnd: random.Random, ledger: Ledger,
                 deadline: float, worker: int) -> None:
    batch = 0
    while time.monotonic() < deadline:
        batch += 1
        upserts: list[dict[str, Any]] = []
        for i in range(5):
            marker = f"zq{worker}x{batch}x{i}marker"
            body = f"{words(rnd, 40)} {marker}"
            path = f"Load/w{worker}/b{batch}-{i}.md"
            upserts.append({"path": path, "title": f"note {worker}-{batch}-{i}", "body": body,
                            "mtime": 1_780_000_000_000 + batch, "note_date": 1_780_000_000_000,
                            "content_hash": hashlib.sha256(body.encode()).hexdigest()})
        deletes: list[dict[str, Any]] = []
        mine = [p for p in ledger.notes if p.startswith(f"Load/w{worker}/")]
        if mine and rnd.random() < 0.3:
            deletes.append({"path": rnd.choice(mine), "deleted_at": 1_780_000_000_000 + batch})
        beat = await client.post("/vault/heartbeat", headers=AUTH,
                                 json={"vault_id": LOAD_VAULT_ID, "vault": "Load"})
        if not ledger.record("heartbeat", beat):
            continue
        response = await client.post("/vault/sync", headers=AUTH, json={
            "batch_id": f"load-{worker}-{batch}", "vault_id": LOAD_VAULT_ID, "vault": "Load",
            "seq": beat.json()["vault"]["seq"], "upserts": upserts, "deletes": deletes})
        if ledger.record("sync", response):
            for item in upserts:
                ledger.notes[item["path"]] = item["content_hash"]
                ledger.markers[item["body"].rsplit(" ", 1)[1]] = item["path"]
            for item in deletes:
                ledger.notes.pop(item["path"], None)
                ledger.markers = {m: p for m, p in ledger.markers.items() if p != item["path"]}


LOAD_VAULT_ID = "55555555-5555-4555-8555-555555555555"


async def reader(client: httpx.AsyncClient, rnd: random.Random, ledger: Ledger,
                 deadline: float) -> None:
    while time.monotonic() < deadline:
        listing = await client.get("/api/conversations", params={"limit": 20})
        if ledger.record("conversations", listing) and listing.json()["conversations"]:
            conv = rnd.choice(listing.json()["conversations"])["id"]
            ledger.record("messages", await client.get(f"/api/conversations/{conv}/messages"))
        ledger.record("status", await client.get("/status"))


async def all_pages(client: httpx.AsyncClient) -> set[str]:
    seen, before = set(), None
    while True:
        params = {"limit": 100, **({"before": before} if before else {})}
        page = (await client.get("/api/conversations", params=params)).json()
        seen |= {c["id"] for c in page["conversations"]}
        if not (before := page["next_before"]):
            return seen


async def manifest(client: httpx.AsyncClient) -> dict[str, str]:
    notes: dict[str, str] = {}
    after = ""
    while True:
        page = (await client.get("/vault/manifest", headers=AUTH, params={
            "vault": LOAD_VAULT_ID, "after": after, "limit": 1000})).json()
        notes |= {n["path"]: n["content_hash"] for n in page["notes"]}
        if not (after := page["next_after"]):
            return notes


async def test_concurrent_chat_search_and_sync(tmp_path: Path) -> None:
    ledger = Ledger()
    with running_server(tmp_path / "load.sqlite", token=TOKEN,
                        settings=settings(local_owner=True)) as server:
        limits = httpx.Limits(max_connections=sum(WORKERS.values()) + 2)
        async with httpx.AsyncClient(base_url=server.url, headers={"origin": server.url},
                                     timeout=30, limits=limits) as client:
            deadline = time.monotonic() + DURATION_S
            rnds = iter(random.Random(SEED + i) for i in range(100))
            tasks = [chatter(client, next(rnds), ledger, deadline)
                     for _ in range(WORKERS["chat"])]
            tasks += [searcher(client, next(rnds), ledger, deadline)
                      for _ in range(WORKERS["search"])]
            tasks += [syncer(client, next(rnds), ledger, deadline, w)
                      for w in range(WORKERS["sync"])]
            tasks += [reader(client, next(rnds), ledger, deadline)
                      for _ in range(WORKERS["read"])]
            await asyncio.gather(*tasks)
            print(f"\n{DURATION_S:.0f} s of load: {dict(sorted(ledger.statuses.items()))}, "
                  f"{len(ledger.messages)} messages, {len(ledger.notes)} notes acknowledged")
            assert ledger.failures == [], ledger.failures[:10]
            assert set(ledger.statuses) == {200}
            assert len(ledger.messages) >= 20 and len(ledger.notes) >= 20

            # Every acknowledged write is there, exactly as acknowledged.
            for message_id, content in ledger.messages.items():
                response = await client.get(f"/api/messages/{message_id}")
                assert response.status_code == 200, message_id
                stored = response.json()["message"]
                # An answer that quoted a note the syncers changed since is withdrawn, and a
                # withdrawn answer keeps no text (README, "Withdrawal"); every other write
                # reads back exactly as acknowledged.
                assert stored["content"] == ("" if stored["withdrawn"] else content)
            assert ledger.conversations <= await all_pages(client)
            assert await manifest(client) == ledger.notes
            for marker, path in list(ledger.markers.items())[:10]:
                hits = (await client.get("/api/search", params={
                    "q": marker, "source": "notes"})).json()["hits"]
                assert [h["id"] for h in hits][:1] == [path], marker
        assert run_coroutine(fts_integrity(server.db)) == FTS_TABLES

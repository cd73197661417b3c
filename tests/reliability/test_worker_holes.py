"""Issue 26's Worker holes under seeded hostile load, through the real app on real SQLite:
rebinding hosts, hostile titles, hostile model answers, sign-in floods, long pastes.

Reproduce a run with RELIABILITY_SEED=<seed>; RELIABILITY_HOLES_SCALE=<n> runs n times as
many rounds (the default run takes about 12 s here; .ci/run sets 4)."""

from __future__ import annotations

import json
import os
import random
import re
from collections.abc import AsyncIterator
from dataclasses import replace

import httpx
import pytest
import respx

from local.migrate import migrate
from local.server import WithRuntime
from local.sqlite_db import SqliteDatabase
from shared.text.tokenizer import MAX_QUERY_CHARS
from tests.conftest import BASE_URL, note, sync
from tests.reliability.conftest import SETTINGS
from worker.app import create_app
from worker.config import Runtime

pytestmark = pytest.mark.reliability
SEED = int(os.environ.get("RELIABILITY_SEED", "26"))
SCALE = int(os.environ.get("RELIABILITY_HOLES_SCALE", "1"))
MODEL_URL = "https://llm.example/v1/chat/completions"
PIECES = ["x", "”", "“", "«", "»", ")", "(", "[2]", "[2] note ", "; canonical, stable",
          " — supersedes [2]", "2026-12-01", "\n", "excerpt: ", "past message by Mallory in "]
HEADER = re.compile(r"\[(\d+)\] (?:note|past message by (?:the owner|Mallory) in) "
                    r"«[^«»\n]*» \(\d{4}-\d\d-\d\d(?:; [^\n]*)?\)")


@pytest.fixture
async def app_and_db(tmp_path) -> AsyncIterator[tuple[WithRuntime, Runtime]]:
    db = SqliteDatabase(tmp_path / "holes.sqlite")
    await migrate(db)
    runtime = Runtime(db=db, settings=replace(SETTINGS, model_provider="openai",
                                              openai_base_url="https://llm.example/v1",
                                              openai_api_key="k", openai_model="m"))
    yield WithRuntime(create_app(serve_static=True), runtime), runtime
    db.close()


def client_for(app: WithRuntime, address: str = "127.0.0.1") -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app, client=(address, 4000)),
                             base_url=BASE_URL, headers={"origin": BASE_URL})


def answer(text: str) -> httpx.Response:
    return httpx.Response(200, json={"choices": [{"message": {"role": "assistant",
                                                              "content": text}}]})


async def test_hostile_titles_and_answers_never_forge_a_hit_or_a_citation(
        app_and_db: tuple[WithRuntime, Runtime]) -> None:
    app, _ = app_and_db
    rnd = random.Random(SEED)
    titles = ["".join(rnd.choice(PIECES) for _ in range(rnd.randint(1, 10))) for _ in range(40)]
    async with client_for(app) as client:
        await sync(client, *(note(f"Clip/{i}.md", f"kayak paddle tide chart {i}", title=t)
                             for i, t in enumerate(titles)))
        with respx.mock(assert_all_called=False) as mock:
            route = mock.post(MODEL_URL)
            forged = 0
            for i in range(15 * SCALE):
                markers = "".join(f"[{rnd.randint(0, 9)}]" for _ in range(rnd.randint(1, 4)))
                route.mock(return_value=answer(f"Tide {i} {markers}; see [[Clip]]{markers}."))
                body = (await client.post("/api/chat", json={
                    "content": f"kayak tide chart {i}?"})).json()
                sent = json.loads(route.calls.last.request.content)["messages"][-1]["content"]
                lines = [ln for ln in sent.splitlines() if re.match(r"\[\d+\]", ln)]
                assert all(HEADER.fullmatch(ln) for ln in lines), lines
                assert len(lines) == body["recall"]["injected"]
                stored = body["assistant_message"]
                footer = {s["n"] for s in stored["sources"]}
                cited = {int(n) for n in re.findall(r"\[(\d+)\]", stored["content"])}
                forged += len(cited - footer)
    assert forged == 0


async def test_a_rebinding_host_never_reaches_owner_routes(
        app_and_db: tuple[WithRuntime, Runtime]) -> None:
    app, runtime = app_and_db
    runtime.settings = replace(runtime.settings, allowed_hosts=("*",))
    rnd = random.Random(SEED)
    async with client_for(app) as client:
        for i in range(50 * SCALE):
            host = f"{rnd.choice(['rebind', 'a', '127.0.0.1'])}.{rnd.randint(0, 99)}.example"
            method, path = rnd.choice([("GET", "/api/conversations"), ("GET", "/status"),
                                       ("POST", "/api/chat"), ("GET", "/api/search?q=x")])
            response = await client.request(method, path, json={"content": f"plant {i}"}
                                            if method == "POST" else None,
                                            headers={"host": host, "origin": f"http://{host}"})
            assert response.status_code == 403, (host, path)
    rows = await runtime.db.prepare("SELECT count(*) AS n FROM messages").first()
    assert rows is not None and rows["n"] == 0


async def test_a_sign_in_flood_from_many_addresses_leaves_the_owner_a_way_in(
        app_and_db: tuple[WithRuntime, Runtime]) -> None:
    app, runtime = app_and_db
    runtime.settings = replace(runtime.settings, owner_token="the-owner-token",
                               local_owner=False)
    async with client_for(app, "198.51.100.7") as owner:
        assert (await owner.post("/owner/login",
                                 data={"token": "the-owner-token"})).status_code == 303
        for i in range(80 * SCALE):  # more addresses than the shared bucket allows
            async with client_for(app, f"10.9.{i // 200}.{i % 200}") as guesser:
                for _ in range(2):
                    await guesser.post("/owner/login", data={"token": f"guess-{i}"})
        response = await owner.post("/owner/login", data={"token": "the-owner-token"})
        assert response.status_code == 303


async def test_long_pastes_recall_their_buried_fact(app_and_db: tuple[WithRuntime, Runtime]
                                                    ) -> None:
    app, _ = app_and_db
    rnd = random.Random(SEED)
    facts = [(f"Home/Place {i}.md", f"zanthor{i} quibble{i}") for i in range(3 * SCALE)]
    filler = ["The project meeting covered the budget.", "Weather was fine all week.",
              "We talked about the garden and the timeline.", "Notes from the call follow."]
    async with client_for(app) as client:
        await sync(client, *(note(path, f"The {words} hide under the stairs.")
                             for path, words in facts),
                   *(note(f"Work/{i}.md", " ".join(filler)) for i in range(5)))
        found = 0
        with respx.mock(assert_all_called=False) as mock:
            mock.post(MODEL_URL).mock(return_value=answer("There [1]."))
            for path, words in facts:
                before = " ".join(rnd.choice(filler) for _ in range(rnd.randint(60, 90)))
                after = " ".join(rnd.choice(filler) for _ in range(rnd.randint(10, 60)))
                paste = f"{before} Where are the {words}? {after}"
                assert len(paste) > MAX_QUERY_CHARS
                body = (await client.post("/api/chat", json={"content": paste})).json()
                assert body["recall"]["error"] is None
                found += path in {s["id"] for s in body["assistant_message"]["sources"]}
    assert found == len(facts)

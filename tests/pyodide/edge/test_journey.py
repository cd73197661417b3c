"""The real app inside Pyodide, over the SQLite stand-in, through httpx.ASGITransport: a hub
run, search, a chat turn that recalls and cites, forgetting, hostile FTS text, and the web
client's files from a JavaScript ASSETS binding (no threads: to_thread would raise)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anyio.to_thread
import httpx
import mallory_js  # type: ignore[import-not-found]  # the runner's JS bindings
import pytest

from local.server import WithRuntime
from local.sqlite_db import SqliteDatabase
from tests.conftest import BASE_URL, DAY_MS, LOCAL_OWNER, Clock, auth, heartbeat, note, sync
from worker.app import create_app
from worker.config import Runtime, Settings

SOURDOUGH = note("Recipes/Sourdough.md", "Feed the starter twice a day; bake sourdough at "
                 "250 C with steam for the first 20 minutes.", title="Sourdough bread")


@pytest.fixture
def assets() -> Any:
    return mallory_js.makeAssets()


@pytest.fixture
async def edge(db: SqliteDatabase, clock: Clock, assets: Any,
               monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[httpx.AsyncClient]:
    def no_threads(*args: object, **kwargs: object) -> None:
        raise AssertionError("a route reached anyio.to_thread: the edge has no threads")

    monkeypatch.setattr(anyio.to_thread, "run_sync", no_threads)
    runtime = Runtime(db=db, settings=Settings(sync_tokens=("test-sync-token",),
                                               **LOCAL_OWNER), clock=clock, assets=assets)
    transport = httpx.ASGITransport(app=WithRuntime(create_app(), runtime))
    async with httpx.AsyncClient(transport=transport, base_url=BASE_URL,
                                 headers={"origin": BASE_URL}) as client:
        yield client


async def test_a_hub_run_then_search_chat_and_forget(edge: httpx.AsyncClient,
                                                     clock: Clock) -> None:
    contact = await heartbeat(edge)
    assert contact["vault"]["seq"] >= 1
    synced = (await sync(edge, SOURDOUGH)).json()
    assert synced["upserted"] == 1, synced

    hits = (await edge.get("/api/search", params={"q": "sourdough steam"})).json()["hits"]
    assert hits[0]["kind"] == "note" and "Sourdough" in hits[0]["href"], hits[0]

    answer = (await edge.post("/api/chat", json={
        "content": "how long do I bake sourdough with steam?"})).json()
    cited = answer["assistant_message"]["sources"]
    assert cited[0]["href"] == "obsidian://open?vault=Life&file=Recipes%2FSourdough"
    assert "[1]" in answer["assistant_message"]["content"]

    told = (await edge.post("/api/chat", json={
        "content": "I parked the car on level 3 of the Harbourside garage"})).json()
    clock.now += 30 * DAY_MS
    asked = (await edge.post("/api/chat", json={
        "content": "where did I park at the Harbourside garage?"})).json()
    message_id = told["user_message"]["id"]
    assert asked["assistant_message"]["sources"][0]["href"] == f"/?msg={message_id}"

    forgot = await edge.delete(f"/api/messages/{message_id}")
    assert forgot.status_code == 200, forgot.text
    again = (await edge.post("/api/chat", json={
        "content": "where did I park at the Harbourside garage?"})).json()
    assert all(s["href"] != f"/?msg={message_id}" for s in again["assistant_message"]["sources"])
    found = (await edge.get("/api/search", params={"q": "Harbourside"})).json()["hits"]
    assert all(h.get("id") != message_id for h in found)


@pytest.mark.parametrize("q", ['"unterminated AND NEAR( foo* OR col:bar', "rowid:1 OR (",
                               "'; DROP TABLE vault_notes; --", "NEAR/3 \\\"", "x" * 600])
async def test_hostile_fts_text_is_answered_cleanly(edge: httpx.AsyncClient, q: str) -> None:
    await sync(edge, SOURDOUGH)
    response = await edge.get("/api/search", params={"q": q})
    assert response.status_code in (200, 400), response.text
    if response.status_code == 400:
        assert response.json()["error"]["code"]
    chat = await edge.post("/api/chat", json={"content": q})
    assert chat.status_code in (200, 400, 413, 422), chat.text


async def test_the_web_client_comes_from_the_assets_binding(edge: httpx.AsyncClient,
                                                            assets: Any) -> None:
    page = await edge.get("/")
    assert page.status_code == 200 and "<html" in page.text.lower()
    assert page.headers["content-type"].startswith("text/html")
    assert page.headers["x-content-type-options"] == "nosniff"
    linked = await edge.get("/?msg=m-123")
    assert linked.status_code == 200 and linked.text == page.text
    script = await edge.get("/app.js")
    assert script.status_code == 200
    assert script.headers["content-type"].startswith("text/javascript")
    missing = await edge.get("/no/such/page.txt")
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "not_found"
    assert list(assets.requests) == ["/", "/?msg=m-123", "/app.js", "/no/such/page.txt"]


async def test_hub_routes_still_need_the_token(edge: httpx.AsyncClient) -> None:
    response = await edge.post("/vault/heartbeat", json={"vault_id": "x", "vault": "Life"},
                               headers=auth("wrong-token"))
    assert response.status_code in (401, 403)
    assert response.json()["error"]["code"]

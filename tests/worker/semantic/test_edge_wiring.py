"""The edge wiring end to end: a Worker `env` with the AI and VECTORS bindings (stand-ins
with the documented shapes) and a D1 binding stand-in over real SQLite, through the real
app, exactly as `asgi.fetch(app, request, env)` hands it over. What `Runtime.from_env`
decides (mode, inline note indexing, waitUntil for messages) is checked over HTTP."""

from __future__ import annotations

import sys
import time
import types
from collections.abc import AsyncIterator, Coroutine, Iterator, Sequence
from typing import Any

import httpx
import pytest

from local.migrate import migrate
from local.sqlite_db import SqliteDatabase
from tests.asgi import WithEnv
from tests.conftest import BASE_URL, LIFE_ID, TOKEN, auth, batch, note
from tests.worker.semantic.fake_vectorize import FakeVectorize
from tests.worker.semantic.fake_workers_ai import FakeWorkersAI
from worker.app import create_app
from worker.config import EDGE_WITHOUT_SEMANTICS, Runtime
from worker.recall.retrieval_mode import RetrievalMode
from worker.semantic.workers_ai import BGE_SMALL

OWNER = "edge-owner-token"
MODEL = f"{BGE_SMALL.name}?pooling=cls"


class D1Standin:
    """The D1 binding's shape (`prepare(sql).bind(*p).all()/run()`, `batch([...])`, each
    result `{"success", "meta": {"changes", "last_row_id"}, "results"}`), answered by real
    SQLite through the local adapter."""

    def __init__(self, db: SqliteDatabase) -> None:
        self.db = db

    def prepare(self, sql: str) -> _Statement:
        return _Statement(self.db, sql, ())

    async def batch(self, statements: Sequence[_Statement]) -> list[dict[str, Any]]:
        results = await self.db.batch([s.local() for s in statements])
        return [_answer(r) for r in results]


class _Statement:
    def __init__(self, db: SqliteDatabase, sql: str, params: tuple[Any, ...]) -> None:
        self.db, self.sql, self.params = db, sql, params

    def bind(self, *params: Any) -> _Statement:
        return _Statement(self.db, self.sql, params)

    def local(self) -> Any:
        stmt = self.db.prepare(self.sql)
        return stmt.bind(*self.params) if self.params else stmt

    async def all(self) -> dict[str, Any]:
        return _answer(await self.local().all())

    async def run(self) -> dict[str, Any]:
        return _answer(await self.local().run())


def _answer(result: Any) -> dict[str, Any]:
    return {"success": True, "results": result.results,
            "meta": {"changes": result.changes, "last_row_id": result.last_row_id}}


class Env:
    """A Worker's `env`: bindings and vars as attributes."""

    def __init__(self, db: SqliteDatabase, **bindings: Any) -> None:
        self.DB = D1Standin(db)
        self.SYNC_TOKEN = TOKEN
        self.OWNER_TOKEN = OWNER
        for name, value in bindings.items():
            setattr(self, name, value)


@pytest.fixture
async def d1() -> AsyncIterator[SqliteDatabase]:
    database = SqliteDatabase(":memory:")
    await migrate(database)
    yield database
    database.close()


@pytest.fixture
def waited(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Coroutine[Any, Any, Any]]]:
    """`workers.wait_until` as the runtime provides it: work handed over outlives the
    response; the test runs it when it chooses (and closes what it never ran)."""
    handed: list[Coroutine[Any, Any, Any]] = []
    # The `workers` module exists only inside Pyodide (it imports `js`).
    runtime_module = types.ModuleType("workers")
    runtime_module.wait_until = handed.append  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "workers", runtime_module)
    yield handed
    for work in handed:
        work.close()


def client(env: Env) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=WithEnv(create_app(), env)),
                             base_url=BASE_URL, headers={"origin": BASE_URL})


def owner() -> dict[str, str]:
    return {"authorization": f"Bearer {OWNER}"}


async def status(env: Env) -> dict[str, Any]:
    async with client(env) as c:
        response = await c.get("/status", headers=owner())
    assert response.status_code == 200, response.text
    return response.json()["retrieval"]


async def recorded(db: SqliteDatabase, corpus: str) -> list[dict[str, Any]]:
    return (await db.prepare("SELECT vector_id, model, dimensions FROM vector_units "
                             "WHERE corpus = ?").bind(corpus).all()).results


async def test_both_bindings_default_to_adaptive(d1: SqliteDatabase) -> None:
    ai, vectors = FakeWorkersAI(), FakeVectorize(384)
    runtime = Runtime.from_env(Env(d1, AI=ai, VECTORS=vectors))
    assert runtime.mode is RetrievalMode.ADAPTIVE
    assert runtime.semantics is not None and runtime.semantics.source == "workers-ai"
    assert runtime.index_notes_inline and runtime.semantic_problem is None
    got = await status(Env(d1, AI=ai, VECTORS=vectors))
    assert (got["mode"], got["configured"]) == ("adaptive", None)
    assert got["embedder"] == {"model": MODEL, "dimensions": 384,
                               "reachable": True, "error": None}
    assert got["reranker"] == {"model": "@cf/baai/bge-reranker-base"}
    assert got["notes"] == []


async def test_retrieval_mode_lexical_never_touches_the_models(d1: SqliteDatabase) -> None:
    ai, vectors = FakeWorkersAI(), FakeVectorize(384)
    env = Env(d1, AI=ai, VECTORS=vectors, RETRIEVAL_MODE="lexical")
    runtime = Runtime.from_env(env)
    assert runtime.mode is RetrievalMode.LEXICAL and runtime.semantics is None
    got = await status(env)
    assert (got["mode"], got["configured"], got["embedder"]) == ("lexical", "lexical", None)
    assert got["notes"] == []  # chosen, so nothing to explain
    async with client(env) as c:
        await _sync_two_sections(c)
        assert (await c.get("/api/search", params={"q": "lantern"}, headers=owner())
                ).status_code == 200
    assert ai.calls == [] and vectors.calls == []
    assert await recorded(d1, "notes") == []


@pytest.mark.parametrize("bindings", [{}, {"AI": "ai"}, {"VECTORS": "vectors"}])
async def test_missing_bindings_are_named_in_status(d1: SqliteDatabase,
                                                    bindings: dict[str, str]) -> None:
    made = {"ai": FakeWorkersAI(), "vectors": FakeVectorize(384)}
    env = Env(d1, **{name: made[key] for name, key in bindings.items()})
    assert Runtime.from_env(env).semantic_problem == EDGE_WITHOUT_SEMANTICS
    got = await status(env)
    assert got["mode"] == "lexical" and got["embedder"] is None
    assert got["notes"] == [f"recall is lexical: {EDGE_WITHOUT_SEMANTICS}"]


async def _sync_two_sections(c: httpx.AsyncClient) -> dict[str, Any]:
    body = "# Lighthouse\nRepaint the lantern room.\n## Budget\nPaint costs 400 euros."
    headed = note("Lighthouse.md", body, mtime=int(time.time() * 1000) - 60_000,
                  sections=[{"s": 0, "e": 39, "h": "Lighthouse", "p": "Lighthouse",
                             "x": "0123456789abcdef"},
                            {"s": 39, "e": len(body), "h": "Budget",
                             "p": "Lighthouse › Budget", "x": "fedcba9876543210"}])
    beat = await c.post("/vault/heartbeat", json={"vault_id": LIFE_ID, "vault": "Life"},
                        headers=auth())
    assert beat.status_code == 200, beat.text
    response = await c.post("/vault/sync", headers=auth(), json=batch(
        "edge-1", [headed], seq=beat.json()["vault"]["seq"]))
    assert response.status_code == 200, response.text
    return response.json()


async def test_sync_embeds_the_synced_sections_inline(
        d1: SqliteDatabase, waited: list[Coroutine[Any, Any, Any]]) -> None:
    ai, vectors = FakeWorkersAI(), FakeVectorize(384)
    env = Env(d1, AI=ai, VECTORS=vectors)
    async with client(env) as c:
        await _sync_two_sections(c)
    assert waited == []  # the hub waits for the sections' vectors: nothing is deferred
    rows = await recorded(d1, "notes")
    assert len(rows) == 2 and {(r["model"], r["dimensions"]) for r in rows} == {(MODEL, 384)}
    assert set(vectors.vectors) == {r["vector_id"] for r in rows}
    embedded = [t for model, inputs in ai.calls if model == BGE_SMALL.name for t in inputs["text"]]
    assert any("lantern room" in t for t in embedded) and any("400 euros" in t for t in embedded)
    assert all(inputs.get("pooling") == "cls" for _, inputs in ai.calls)
    got = await status(env)
    assert got["vectors"]["indexed"] == 2 and got["vectors"]["pending"] == 0


async def test_a_chat_turn_indexes_its_messages_through_wait_until(
        d1: SqliteDatabase, waited: list[Coroutine[Any, Any, Any]]) -> None:
    ai, vectors = FakeWorkersAI(), FakeVectorize(384)
    env = Env(d1, AI=ai, VECTORS=vectors)
    async with client(env) as c:
        response = await c.post("/api/chat", headers=owner(),
                                json={"content": "The boiler service is on Friday."})
    assert response.status_code == 200, response.text
    assert await recorded(d1, "messages") == []  # not before the response
    assert len(waited) == 1
    await waited.pop()
    rows = await recorded(d1, "messages")
    assert rows and {r["model"] for r in rows} == {MODEL}
    assert {r["vector_id"] for r in rows} <= set(vectors.vectors)
    embedded = [t for model, inputs in ai.calls if model == BGE_SMALL.name for t in inputs["text"]]
    assert any("boiler service" in t for t in embedded)


async def test_status_says_lexical_when_workers_ai_fails(d1: SqliteDatabase) -> None:
    """The AI binding rejects every call, as Workers AI does when it is out of capacity
    (a JS Error with its code in the text): /status reports what recall then does, not
    the configured mode."""
    from tests.worker.semantic.js_standins import JsException

    failing = FakeWorkersAI(error=JsException(
        "AiError: 3040: Capacity temporarily exceeded, please try again."))
    env = Env(d1, AI=failing, VECTORS=FakeVectorize(384))
    got = await status(env)
    assert (got["mode"], got["configured"]) == ("lexical", None)
    assert got["embedder"]["model"] == MODEL and got["embedder"]["reachable"] is False
    assert "Capacity temporarily exceeded" in got["embedder"]["error"]
    assert got["notes"][0].startswith("adaptive steps down to lexical on every request: "
                                      "the embedder failed: Workers AI")
    assert failing.calls and failing.calls[0][0] == BGE_SMALL.name
    async with client(env) as c:  # and search says the same of itself
        found = (await c.get("/api/search", params={"q": "lantern"}, headers=owner())).json()
    assert (found["mode"], found["fallback"]) == ("lexical", "embedder_failed")
    healthy = await status(Env(d1, AI=FakeWorkersAI(), VECTORS=FakeVectorize(384)))
    assert healthy["mode"] == "adaptive" and healthy["embedder"]["reachable"] is True
    assert healthy["embedder"]["error"] is None

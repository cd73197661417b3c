"""GET /status's `retrieval` over HTTP with the local embedder, on real SQLite: the vector
index complete, out of date after a model change, emptied behind the server's back, or
unusable — and chat answering through every one of them."""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

from tests import embedder

embedder.require()

from local.migrate import migrate
from local.semantic.embedder import LocalEmbedder
from local.semantic.vector_sql import TABLE
from local.semantic.vectors import SqliteVectorIndex
from local.semantic.wiring import semantics_or_problem
from local.server import WithRuntime
from local.sqlite_db import SqliteDatabase
from tests.conftest import BASE_URL, LOCAL_OWNER, TOKEN, Clock, note, sync
from tests.e2e.conftest import SEMANTIC_BUDGET_S
from worker.app import create_app
from worker.config import Runtime, Settings
from worker.indexing.scheduling import index_now
from worker.recall.retrieval_mode import RetrievalMode
from worker.retrieval_status.report import WITHOUT_RERANKER
from worker.semantic.semantics import Semantics

pytestmark = pytest.mark.embed

OLD_MODEL = "local/all-MiniLM-L6-v2-int8@000000000000.000000000000/t256"
NOTES = [note("Home/Boiler.md", "The boiler service is due every October; call Marco.",
              title="Boiler"),
         note("Garden/Roses.md", "Prune the roses in late winter, above an outward bud.",
              title="Roses")]


def runtime_for(db: SqliteDatabase, semantics: Semantics | None, mode: str = "hybrid",
                problem: str | None = None) -> Runtime:
    """These tests are of what semantic recall finds and reports: its budget is roomy, so
    that a loaded suite does not step a recall down to lexical."""
    roomy = replace(semantics, budget_s=SEMANTIC_BUDGET_S) if semantics else None
    return Runtime(db=db, settings=Settings(sync_tokens=(TOKEN,), **LOCAL_OWNER,
                                            retrieval_mode=mode),
                   clock=Clock(), semantics=roomy, semantic_problem=problem)


async def client_for(rt: Runtime) -> httpx.AsyncClient:
    app = WithRuntime(create_app(serve_static=False), rt)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE_URL,
                             headers={"origin": BASE_URL})


@pytest.fixture
async def file_db(tmp_path: Path) -> AsyncIterator[SqliteDatabase]:
    database = SqliteDatabase(tmp_path / "mallory.sqlite")
    await migrate(database)
    yield database
    database.close()


async def indexed(db: SqliteDatabase, embedder: LocalEmbedder) -> Runtime:
    """Two notes and one exchange, every unit embedded; the index closed again."""
    rt = runtime_for(db, Semantics(embedder, SqliteVectorIndex.beside(db, 384)))
    async with await client_for(rt) as client:
        await sync(client, *NOTES)
        assert (await client.post("/api/chat", json={"content": "when is the boiler "
                                                     "service due?"})).status_code == 200
    await index_now(rt, ["notes", "messages"])
    rt.semantics.index.close()  # type: ignore[union-attr]
    return rt


async def status_and_chat(rt: Runtime, question: str) -> tuple[dict, dict]:
    async with await client_for(rt) as client:
        status = await client.get("/status")
        assert status.status_code == 200, status.text
        answer = await client.post("/api/chat", json={"content": question})
        assert answer.status_code == 200, answer.text
    return status.json()["retrieval"], answer.json()


async def test_a_complete_index_is_reported_with_its_model(file_db: SqliteDatabase,
                                                           embedder: LocalEmbedder) -> None:
    await indexed(file_db, embedder)
    rt = runtime_for(file_db, Semantics(embedder, SqliteVectorIndex.beside(file_db, 384)))
    retrieval, answer = await status_and_chat(rt, "pruning roses")
    assert retrieval == {
        "mode": "hybrid", "configured": "hybrid",
        "embedder": {"model": embedder.model, "dimensions": 384, "reachable": True,
                     "error": None}, "reranker": None,
        "vectors": {"indexed": 3, "pending": 0, "stale": 0, "model": embedder.model},
        "indexing": {"behind": False, "pending": 0, "running": False, "rate_per_s": None,
                     "eta_s": None},
        "notes": []}
    assert answer["recall"]["mode"] == "hybrid" and answer["recall"]["fallback"] is None
    assert answer["recall"]["injected"] >= 1


async def test_a_model_change_marks_every_vector_stale_until_reindexed(
        file_db: SqliteDatabase, embedder: LocalEmbedder) -> None:
    await indexed(file_db, embedder)
    # What upgrading the pinned model files leaves behind: vectors of the old identity.
    await file_db.prepare("UPDATE vector_units SET model = ?1").bind(OLD_MODEL).run()
    rt = runtime_for(file_db, Semantics(embedder, SqliteVectorIndex.beside(file_db, 384)))
    retrieval, answer = await status_and_chat(rt, "when should I prune the roses?")
    assert retrieval["vectors"] == {"indexed": 0, "pending": 3, "stale": 3,
                                    "model": OLD_MODEL}
    assert retrieval["notes"] == [
        f"vector index built with model {OLD_MODEL} (384 dimensions), current model "
        f"{embedder.model} (384 dimensions): 3 stale, re-embedded as indexing runs (locally "
        "`mallory reindex --vectors` does it at once)"]
    # Stale vectors never resolve; lexical recall still finds the note.
    assert answer["recall"]["error"] is None and answer["recall"]["injected"] >= 1
    await index_now(rt, ["notes", "messages"])
    retrieval, _ = await status_and_chat(rt, "thanks")
    assert retrieval["vectors"]["stale"] == 0 and retrieval["vectors"]["model"] == embedder.model


async def test_an_emptied_vector_table_is_reported_and_chat_goes_on(
        file_db: SqliteDatabase, embedder: LocalEmbedder) -> None:
    await indexed(file_db, embedder)
    with sqlite3.connect(file_db.path) as conn:
        conn.execute(f"DELETE FROM {TABLE}")
    rt = runtime_for(file_db, Semantics(embedder, SqliteVectorIndex.beside(file_db, 384)))
    retrieval, answer = await status_and_chat(rt, "when should I prune the roses?")
    assert retrieval["vectors"]["indexed"] == 3
    assert "the vector index holds 0 vectors where 3 are recorded: run `mallory reindex " \
           "--vectors`" in retrieval["notes"]
    assert answer["recall"]["mode"] == "hybrid" and answer["recall"]["injected"] >= 1


async def test_an_unusable_vector_table_turns_semantic_recall_off_not_chat(
        file_db: SqliteDatabase, embedder: LocalEmbedder) -> None:
    await indexed(file_db, embedder)
    with sqlite3.connect(file_db.path) as conn:  # a vector of another size, as after a switch
        conn.execute(f"INSERT INTO {TABLE} VALUES ('v-odd', zeroblob(8), '{{}}')")
    semantics, problem = semantics_or_problem(file_db, {})
    assert semantics is None and problem is not None
    rt = runtime_for(file_db, None, problem=problem)
    retrieval, answer = await status_and_chat(rt, "when should I prune the roses?")
    assert (retrieval["mode"], retrieval["configured"], retrieval["vectors"]) == (
        "lexical", "hybrid", None)
    assert retrieval["notes"][0].startswith("hybrid behaves like lexical: the vector index "
                                            "cannot be used (")
    assert retrieval["notes"][0].endswith("run `mallory reindex --vectors`")
    assert answer["recall"] == {**answer["recall"], "mode": "lexical",
                                "fallback": "no_embedder", "error": None}
    assert answer["recall"]["injected"] >= 1


async def test_quality_without_a_reranker_ranks_as_status_says(
        file_db: SqliteDatabase, embedder: LocalEmbedder) -> None:
    """worker/retrieval_status/report.WITHOUT_RERANKER says so in /status; this holds it true."""
    rt = await indexed(file_db, embedder)
    semantics = Semantics(embedder, SqliteVectorIndex.beside(file_db, 384))
    like = WITHOUT_RERANKER[RetrievalMode.QUALITY].value
    lists = {}
    for mode in ("quality", like):
        async with await client_for(replace(runtime_for(file_db, semantics, mode),
                                            clock=rt.clock)) as client:
            lists[mode] = [(await client.get("/api/search", params={"q": q})).json()
                           for q in ("roses", "boiler october", "what is due in autumn")]
    for quality, other in zip(lists["quality"], lists[like], strict=True):
        assert (quality["mode"], quality["fallback"]) == ("quality", "no_reranker")
        assert [h["id"] for h in quality["hits"]] == [h["id"] for h in other["hits"]]
        assert [h["score"] for h in quality["hits"]] == [h["score"] for h in other["hits"]]

"""Forget, delete and withdrawal with semantic recall on (hybrid and adaptive), over HTTP
through the app on real SQLite, with the edge adapters over stand-ins of the Workers AI
and Vectorize bindings (tests/worker/semantic). A query that only the vectors can bridge
finds each unit first; once a message is forgotten, a note deleted or an answer
withdrawn, neither /api/search nor a chat's recall brings it back, and a forget drops
its units' vector rows in its own batch and their vectors from the index."""

from __future__ import annotations

import math
from collections.abc import Coroutine, Iterator
from dataclasses import replace
from typing import Any

import httpx
import pytest

from local.sqlite_db import SqliteDatabase
from tests.conftest import NOW_MS, note, sync
from tests.e2e.conftest import SEMANTIC_BUDGET_S
from tests.worker.recall.test_modes import DIMS, answer, concept_vector
from tests.worker.semantic.fake_vectorize import FakeVectorize
from tests.worker.semantic.fake_workers_ai import FakeWorkersAI
from worker.config import Runtime
from worker.semantic.edge import edge_semantics
from worker.semantic.ports import vector_id
from worker.semantic.semantics import Semantics

# "money back" shares no word with either text; the stand-in embedder puts "reimburse",
# "refund", "money" and "back" on one axis.
PARAPHRASE = "money back"
FACT = "the landlord will reimburse my deposit"
# Automatic recall injects a hit only on lexical relevance when the embedder has no
# measured cosine bar (Workers AI's bge-small: shared/recall_policy.cosine_bar), so the
# chat asks in the fact's words; /api/search asks in the paraphrase.
ASK = "will the landlord reimburse my deposit?"
POLICY = note("Shop/Refund policy.md", "Customers may return goods within 30 days. We "
              "reimburse the full price.", title="Refund policy")


@pytest.fixture(params=["hybrid", "adaptive"])
def semantic(request: pytest.FixtureRequest, runtime: Runtime
             ) -> Iterator[tuple[FakeVectorize, list[Coroutine[Any, Any, Any]]]]:
    vectors = FakeVectorize(DIMS)
    edge = edge_semantics(FakeWorkersAI(answer=answer), vectors)
    tasks: list[Coroutine[Any, Any, Any]] = []
    # The test checks what the vectors find; under a loaded suite the default budget timed
    # the search out and stepped it down to lexical (semantic_timeout).
    runtime.semantics = Semantics(edge.embedder, edge.index, edge.reranker,
                                  source="workers-ai", budget_s=SEMANTIC_BUDGET_S)
    runtime.settings = replace(runtime.settings, retrieval_mode=request.param)
    runtime.schedule, runtime.index_notes_inline = tasks.append, True
    yield vectors, tasks
    for task in tasks:  # a failed test's leftovers
        task.close()


async def settle(tasks: list[Coroutine[Any, Any, Any]]) -> None:
    """Run the background work (indexing, vector deletes) as waitUntil would."""
    while tasks:
        await tasks.pop(0)


async def search_ids(client: httpx.AsyncClient, q: str = PARAPHRASE) -> list[str]:
    response = await client.get("/api/search", params={"q": q})
    assert response.status_code == 200, response.text
    assert response.json()["fallback"] is None  # the vectors were used
    return [h["id"] for h in response.json()["hits"]]


async def chat(client: httpx.AsyncClient, content: str) -> dict:
    response = await client.post("/api/chat", json={"content": content})
    assert response.status_code == 200, response.text
    return response.json()


def shown(answer_body: dict) -> list[str]:
    return [s["id"] for s in answer_body["assistant_message"]["sources"]]


def same_direction(a: list[float], b: list[float]) -> bool:
    """The embedder normalises what the stand-in returns: compare directions."""
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot == pytest.approx(math.hypot(*a) * math.hypot(*b))


async def vector_rows(db: SqliteDatabase) -> set[str]:
    rows = (await db.prepare("SELECT unit_id FROM vector_units").all()).results
    return {str(r["unit_id"]) for r in rows}


async def test_a_forgotten_message_never_comes_back_through_the_vectors(
        client: httpx.AsyncClient, db: SqliteDatabase, semantic) -> None:
    vectors, tasks = semantic
    told = await chat(client, FACT)
    await settle(tasks)
    fact_id, reply_id = told["user_message"]["id"], told["assistant_message"]["id"]
    # The fact alone: the offline reply only said that nothing was found, which is no
    # memory (worker/offline_replies.py).
    [unit] = await vector_rows(db)
    assert unit.startswith(fact_id)
    before = vectors.vectors[vector_id(unit)].values
    assert same_direction(before, concept_vector(FACT))
    assert fact_id in await search_ids(client)
    later = await chat(client, ASK)
    assert fact_id in shown(later)
    await settle(tasks)

    response = await client.delete(f"/api/messages/{fact_id}")
    assert response.status_code == 200, response.text
    # The later answer that recalled it, and the reply it prompted (withdrawn with it).
    assert sorted(response.json()["withdrawn_ids"]) == sorted(
        [reply_id, later["assistant_message"]["id"]])
    assert not any(u.startswith(fact_id) for u in await vector_rows(db))  # in the batch
    assert vector_id(unit) in vectors.vectors
    await settle(tasks)
    assert vector_id(unit) not in vectors.vectors  # the exchange's vector left the index
    assert fact_id not in await search_ids(client)
    assert later["assistant_message"]["id"] not in await search_ids(client)
    again = await chat(client, ASK)
    assert fact_id not in shown(again)
    assert later["assistant_message"]["id"] not in shown(again)


async def test_a_forgotten_conversation_leaves_no_vector_behind(
        client: httpx.AsyncClient, db: SqliteDatabase, semantic) -> None:
    vectors, tasks = semantic
    told = await chat(client, FACT)
    await settle(tasks)
    assert await vector_rows(db)
    response = await client.delete(f"/api/conversations/{told['conversation_id']}")
    assert response.status_code == 200, response.text
    assert await vector_rows(db) == set()  # in the forget's own batch
    assert vectors.vectors  # the index is cleaned in the background (waitUntil) ...
    await settle(tasks)
    assert vectors.vectors == {}  # ... of every vector the conversation had
    assert told["user_message"]["id"] not in await search_ids(client)


async def test_a_deleted_note_and_its_withdrawn_answer_never_come_back(
        client: httpx.AsyncClient, db: SqliteDatabase, semantic) -> None:
    _, tasks = semantic
    await sync(client, POLICY, batch_id="seed")
    assert (await search_ids(client))[0] == POLICY.path
    answered = await chat(client, f"do you reimburse the full price, {PARAPHRASE}?")
    assert POLICY.path in shown(answered)
    await settle(tasks)
    answer_id = answered["assistant_message"]["id"]
    assert answer_id in await search_ids(client, "reimburse full price")

    gone = await sync(client, deletes=[{"path": POLICY.path, "deleted_at": NOW_MS}],
                      batch_id="gone")
    assert gone.json()["withdrawn"] == 1
    await settle(tasks)
    for q in (PARAPHRASE, "reimburse full price"):
        found = await search_ids(client, q)
        assert POLICY.path not in found and answer_id not in found
    again = await chat(client, f"do you reimburse the full price, {PARAPHRASE}?")
    assert POLICY.path not in shown(again) and answer_id not in shown(again)

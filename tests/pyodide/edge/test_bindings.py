"""The Worker's FFI adapters inside Pyodide against JavaScript bindings (tests/pyodide/
bindings.mjs): real D1 (Miniflare's, reached as a JS object), and JS objects shaped like
the rate-limit, Workers AI and Vectorize bindings, as raw JsProxy objects, the form an
SDK that does not wrap bindings hands over."""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import mallory_js  # type: ignore[import-not-found]  # the runner's JS bindings
import pytest
from pyodide.ffi import JsProxy  # type: ignore[import-not-found]

from shared.api.errors import TooManyRequests
from shared.api.limits import MAX_SAFE_INTEGER
from worker.config import Settings
from worker.db import ConstraintError, LimitExceeded, QueryError
from worker.db.binding import D1Database
from worker.ffi import is_js
from worker.security.ratelimit import TokenBuckets, enforce
from worker.semantic.ports import VectorFilter, VectorRecord
from worker.semantic.vectorize import VectorizeIndex
from worker.semantic.workers_ai import WorkersAIEmbedder
from worker.semantic.workers_ai_rerank import WorkersAIReranker

TABLE = ("CREATE TABLE IF NOT EXISTS kinds (id INTEGER PRIMARY KEY, note TEXT, n INTEGER, "
         "r REAL, data BLOB)")


@pytest.fixture
async def d1() -> D1Database:
    binding = await mallory_js.d1()
    assert isinstance(binding, JsProxy) and is_js(binding)
    db = D1Database(binding)
    await db.prepare("DROP TABLE IF EXISTS kinds").run()
    await db.prepare(TABLE).run()
    return db


async def test_d1_none_is_null_and_results_are_plain_python(d1: D1Database) -> None:
    written = await d1.prepare("INSERT INTO kinds (note, n, r) VALUES (?, ?, ?)").bind(
        None, 7, 2.5).run()
    assert (written.changes, written.last_row_id) == (1, 1)
    row = await d1.prepare("SELECT note, typeof(note) AS t, n, r FROM kinds").first()
    assert row == {"note": None, "t": "null", "n": 7, "r": 2.5}
    assert type(row) is dict and row["note"] is None


async def test_d1_integers_are_exact_to_2_53_and_refused_beyond(d1: D1Database) -> None:
    await d1.prepare("INSERT INTO kinds (n) VALUES (?)").bind(MAX_SAFE_INTEGER).run()
    row = await d1.prepare("SELECT n, typeof(n) AS t FROM kinds").first()
    assert row == {"n": MAX_SAFE_INTEGER, "t": "integer"}
    with pytest.raises(LimitExceeded, match="2\\^53"):
        await d1.prepare("INSERT INTO kinds (n) VALUES (?)").bind(MAX_SAFE_INTEGER + 1).run()
    assert (await d1.prepare("SELECT count(*) AS c FROM kinds").first()) == {"c": 1}


async def test_d1_bytes_are_stored_as_a_blob(d1: D1Database) -> None:
    await d1.prepare("INSERT INTO kinds (data) VALUES (?)").bind(b"\x00\x01\xfe\xff").run()
    row = await d1.prepare("SELECT hex(data) AS h, typeof(data) AS t FROM kinds").first()
    assert row == {"h": "0001FEFF", "t": "blob"}


async def test_d1_batch_is_atomic_and_errors_are_typed(d1: D1Database) -> None:
    insert = "INSERT INTO kinds (id, note) VALUES (?, ?)"
    results = await d1.batch([d1.prepare(insert).bind(1, "a"), d1.prepare(insert).bind(2, None)])
    assert [r.changes for r in results] == [1, 1]
    with pytest.raises(ConstraintError):
        await d1.batch([d1.prepare(insert).bind(3, "c"), d1.prepare(insert).bind(1, "dup")])
    rows = (await d1.prepare("SELECT id, note FROM kinds ORDER BY id").all()).results
    assert rows == [{"id": 1, "note": "a"}, {"id": 2, "note": None}]
    with pytest.raises(QueryError):
        await d1.prepare("SELEC nonsense").all()


async def test_the_rate_limit_binding_gets_a_js_object_and_decides() -> None:
    binding = mallory_js.makeRateLimiter(2)
    env = SimpleNamespace(CHAT_RATE_LIMITER=binding)
    for _ in range(2):
        await enforce("chat", "owner", Settings(), env, TokenBuckets())
    with pytest.raises(TooManyRequests) as refused:
        await enforce("chat", "owner", Settings(), env, TokenBuckets())
    assert refused.value.headers["retry-after"] == "60"
    assert list(binding.calls) == ["chat:owner"] * 3


def _norm(vector: list[float]) -> float:
    return math.sqrt(sum(x * x for x in vector))


async def test_workers_ai_embeddings_and_reranking_through_js() -> None:
    ai = mallory_js.makeAI()
    embedder = WorkersAIEmbedder(ai)
    vectors = await embedder.embed(["sourdough starter", "harbourside garage"], "passage")
    assert [len(v) for v in vectors] == [384, 384]
    assert all(abs(_norm(v) - 1) < 1e-6 for v in vectors)
    scores = await WorkersAIReranker(ai).rerank("sourdough bread",
                                                ["the garage", "", "bake sourdough bread"])
    assert scores[2] > scores[0] and scores[1] == -math.inf
    assert list(ai.calls) == ["@cf/baai/bge-small-en-v1.5", "@cf/baai/bge-reranker-base"]


async def test_vectorize_upsert_query_filter_and_delete_through_js() -> None:
    js_index = mallory_js.makeVectorize(4)
    index = VectorizeIndex(js_index, 4)
    await index.upsert([
        VectorRecord("n1", [1.0, 0.0, 0.0, 0.0], {"kind": "note", "vault": "Life"}),
        VectorRecord("m1", [0.9, 0.1, 0.0, 0.0], {"kind": "message"}),
        VectorRecord("n2", [0.0, 1.0, 0.0, 0.0], {"kind": "note", "vault": "Work"}),
    ])
    assert js_index.vectors.size == 3
    found = await index.query([1.0, 0.0, 0.0, 0.0], 2)
    assert [m.id for m in found] == ["n1", "m1"] and found[0].metadata == {
        "kind": "note", "vault": "Life"}
    notes = await index.query([1.0, 0.0, 0.0, 0.0], 5, VectorFilter(kind="note"))
    assert [m.id for m in notes] == ["n1", "n2"]
    await index.delete(["n1"])
    assert [m.id for m in await index.query([1.0, 0.0, 0.0, 0.0], 1)] == ["m1"]


def test_python_values_pass_unconverted_to_a_python_binding() -> None:
    from worker.ffi import js_arg

    class Wrapped:  # what the Workers SDK's _BindingWrapper is: a Python object
        pass

    value: dict[str, Any] = {"key": "k", "none": None}
    assert js_arg(Wrapped(), value) is value and js_arg(Wrapped(), None) is None

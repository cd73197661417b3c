"""The Workers AI embedder against a stand-in `AI` binding that answers in the documented
shapes (plain dicts, or JsProxy objects as an older SDK delivers them)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from tests.worker.semantic.fake_workers_ai import FakeWorkersAI, fake_vector
from tests.worker.semantic.js_standins import JsException
from worker.semantic.ports import EmbedderError
from worker.semantic.workers_ai import (
    BGE_BASE,
    BGE_QUERY_INSTRUCTION,
    BGE_SMALL,
    WORKERS_AI_MAX_BATCH,
    WorkersAIEmbedder,
)


def unit(v: list[float]) -> list[float]:
    n = math.hypot(*v)
    return [x / n for x in v]


@pytest.mark.parametrize("proxies", [False, True])
async def test_passages_embed_in_order_as_unit_vectors(proxies: bool) -> None:
    ai = FakeWorkersAI(proxies=proxies)
    embedder = WorkersAIEmbedder(ai)
    vectors = await embedder.embed(["refund policy", "my money back"], "passage")
    assert ai.calls == [("@cf/baai/bge-small-en-v1.5",
                         {"text": ["refund policy", "my money back"], "pooling": "cls"})]
    assert vectors == [unit(fake_vector(t, "cls", 384)) for t in ("refund policy",
                                                                 "my money back")]
    assert all(abs(math.hypot(*v) - 1.0) < 1e-9 for v in vectors)
    assert (embedder.dimensions, embedder.max_batch) == (384, 100)
    assert embedder.model == "@cf/baai/bge-small-en-v1.5?pooling=cls"


async def test_only_queries_carry_the_bge_instruction() -> None:
    ai = FakeWorkersAI()
    embedder = WorkersAIEmbedder(ai)
    await embedder.embed(["where did I park"], "query")
    await embedder.embed(["where did I park"], "passage")
    sent = [inputs["text"] for _, inputs in ai.calls]
    assert sent == [[BGE_QUERY_INSTRUCTION + "where did I park"], ["where did I park"]]
    assert BGE_QUERY_INSTRUCTION == "Represent this sentence for searching relevant passages: "


async def test_large_inputs_go_in_batches_of_the_documented_limit() -> None:
    ai = FakeWorkersAI()
    texts = [f"note number {i}" for i in range(2 * WORKERS_AI_MAX_BATCH + 50)]
    vectors = await WorkersAIEmbedder(ai).embed(texts, "passage")
    assert [len(inputs["text"]) for _, inputs in ai.calls] == [100, 100, 50]
    assert vectors[0] == unit(fake_vector(texts[0], "cls", 384))
    assert vectors[-1] == unit(fake_vector(texts[-1], "cls", 384))
    assert len(vectors) == len(texts)


async def test_base_model_gives_768_dimensions() -> None:
    ai = FakeWorkersAI()
    embedder = WorkersAIEmbedder(ai, BGE_BASE)
    [vector] = await embedder.embed(["x"], "passage")
    assert len(vector) == embedder.dimensions == 768
    assert ai.calls[0][0] == "@cf/baai/bge-base-en-v1.5"


async def test_nothing_to_embed_makes_no_call() -> None:
    ai = FakeWorkersAI()
    assert await WorkersAIEmbedder(ai).embed([], "query") == []
    assert ai.calls == []


@pytest.mark.parametrize("texts", [["ok", ""], ["ok", "   "], ["ok", None], "one string"])
async def test_unembeddable_texts_are_refused_before_any_call(texts: Any) -> None:
    ai = FakeWorkersAI()
    with pytest.raises(EmbedderError):
        await WorkersAIEmbedder(ai).embed(texts, "passage")
    assert ai.calls == []


def good(model: str, inputs: dict[str, Any]) -> dict[str, Any]:
    n = len(inputs["text"])
    return {"shape": [n, 384], "data": [fake_vector(t, "cls", 384) for t in inputs["text"]]}


def answer_with(**changes: Any):
    def answer(model: str, inputs: dict[str, Any]) -> dict[str, Any]:
        result = good(model, inputs)
        for key, value in changes.items():
            if value is None:
                result.pop(key, None)
            else:
                result[key] = value(result) if callable(value) else value
        return result
    return answer


BAD_ANSWERS = {
    "async request id": (lambda m, i: {"request_id": "abc"}, "no `data` field"),
    "not an object": (lambda m, i: [[0.1] * 384], "no `data` field"),
    "data missing a vector": (answer_with(data=lambda r: r["data"][:1], shape=None),
                              "returned 1 vectors for 2 texts"),
    "data not a list": (answer_with(data="oops", shape=None), "returned str vectors"),
    "wrong dimension": (answer_with(data=lambda r: [v[:300] for v in r["data"]], shape=None),
                        "dimension 300"),
    "shape disagrees": (answer_with(shape=[2, 768]), "shape"),
    "NaN": (answer_with(data=lambda r: [[math.nan, *v[1:]] for v in r["data"]]), "NaN"),
    "string value": (answer_with(data=lambda r: [["0.5", *v[1:]] for v in r["data"]]),
                     "non-numeric"),
    "boolean value": (answer_with(data=lambda r: [[True, *v[1:]] for v in r["data"]]),
                      "non-numeric"),
    "zero vector": (answer_with(data=lambda r: [[0.0] * 384 for _ in r["data"]]), "zero"),
    "mean pooling": (answer_with(pooling="mean"), "pooled with 'mean'"),
}


@pytest.mark.parametrize("proxies", [False, True])
@pytest.mark.parametrize("case", BAD_ANSWERS.values(), ids=BAD_ANSWERS.keys())
async def test_every_bad_answer_becomes_an_embedder_error(case, proxies: bool) -> None:
    answer, message = case
    embedder = WorkersAIEmbedder(FakeWorkersAI(answer=answer, proxies=proxies))
    with pytest.raises(EmbedderError, match=message) as caught:
        await embedder.embed(["a", "b"], "passage")
    assert caught.value.code == "embedder_failed"


async def test_a_failing_binding_becomes_an_embedder_error() -> None:
    ai = FakeWorkersAI(error=JsException("AiError: 3040: Capacity temporarily exceeded"))
    with pytest.raises(EmbedderError, match="Capacity temporarily exceeded"):
        await WorkersAIEmbedder(ai).embed(["a"], "query")


def test_a_missing_binding_is_named() -> None:
    with pytest.raises(EmbedderError, match="binding named AI"):
        WorkersAIEmbedder(None)


def test_the_default_model_matches_the_local_dimension() -> None:
    assert BGE_SMALL.dimensions == 384  # all-MiniLM-L6-v2, the local model, is 384 too

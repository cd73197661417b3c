"""The OpenAI-compatible embedder over real httpx, with respx standing in for the provider
and answering in the documented `/v1/embeddings` shape."""

from __future__ import annotations

import json
import math
from typing import Any

import httpx
import pytest
import respx

from worker.semantic.openai_embed import OpenAIEmbedder
from worker.semantic.ports import EmbedderError

BASE = "https://user:s3cret-key@llm.example.test/v1"
URL = "https://llm.example.test/v1/embeddings"
SECRETS = ("s3cret-key", "llm.example.test", "provider-private-detail")


def vec(i: int, dims: int = 4) -> list[float]:
    return [float(i + 1)] + [0.5] * (dims - 1)


def unit(v: list[float]) -> list[float]:
    n = math.hypot(*v)
    return [x / n for x in v]


def answer(request: httpx.Request, order: Any = None) -> httpx.Response:
    inputs = json.loads(request.content)["input"]
    items = [{"object": "embedding", "index": i, "embedding": vec(i)}
             for i in range(len(inputs))]
    if order is not None:
        items = order(items)
    return httpx.Response(200, json={"object": "list", "data": items, "model": "m",
                                     "usage": {"prompt_tokens": 3, "total_tokens": 3}})


def embedder(**kwargs: Any) -> OpenAIEmbedder:
    return OpenAIEmbedder(BASE, "nomic-embed-text", 4, **kwargs)


@respx.mock
async def test_request_shape_and_unit_vectors() -> None:
    route = respx.post(URL).mock(side_effect=answer)
    vectors = await embedder(api_key="sk-test").embed(["alpha", "beta"], "passage")
    assert vectors == [unit(vec(0)), unit(vec(1))]
    request = route.calls.last.request
    assert json.loads(request.content) == {"model": "nomic-embed-text", "input": ["alpha", "beta"]}
    assert request.headers["authorization"] == "Bearer sk-test"


@respx.mock
async def test_without_a_key_the_url_credentials_apply() -> None:
    route = respx.post(URL).mock(side_effect=answer)
    await embedder().embed(["x"], "query")
    assert route.calls.last.request.headers["authorization"] == \
        httpx.BasicAuth("user", "s3cret-key")._auth_header


@respx.mock
async def test_no_key_sends_no_authorization_and_trailing_slash_is_fine() -> None:
    route = respx.post("http://localhost:11434/v1/embeddings").mock(side_effect=answer)
    local = OpenAIEmbedder("http://localhost:11434/v1/", "all-minilm", 4)
    await local.embed(["x"], "query")
    assert "authorization" not in route.calls.last.request.headers


@respx.mock
async def test_answers_out_of_order_are_put_back_by_index() -> None:
    respx.post(URL).mock(side_effect=lambda r: answer(r, order=lambda items: items[::-1]))
    vectors = await embedder().embed(["a", "b", "c"], "passage")
    assert vectors == [unit(vec(0)), unit(vec(1)), unit(vec(2))]


@respx.mock
async def test_inputs_go_in_batches() -> None:
    route = respx.post(URL).mock(side_effect=answer)
    vectors = await embedder(max_batch=2).embed(["a", "b", "c", "d", "e"], "passage")
    assert [json.loads(c.request.content)["input"] for c in route.calls] == \
        [["a", "b"], ["c", "d"], ["e"]]
    assert vectors[4] == unit(vec(0))  # first of its own batch


@respx.mock
async def test_query_instruction_applies_to_queries_only() -> None:
    route = respx.post(URL).mock(side_effect=answer)
    e = embedder(query_instruction="search_query: ")
    await e.embed(["tea"], "query")
    await e.embed(["tea"], "passage")
    assert [json.loads(c.request.content)["input"] for c in route.calls] == \
        [["search_query: tea"], ["tea"]]


async def test_nothing_to_embed_sends_nothing() -> None:
    with respx.mock(assert_all_called=False) as mock:
        route = mock.post(URL)
        assert await embedder().embed([], "query") == []
        assert not route.called


def assert_discreet(error: EmbedderError) -> None:
    """Messages never quote the base URL (it may hold credentials) or the body."""
    assert not any(secret in str(error) for secret in SECRETS), str(error)


@pytest.mark.parametrize(("status", "hint"), [(401, "API key"), (404, "base URL"),
                                              (429, "rate limited"), (503, "")])
@respx.mock
async def test_http_errors_name_the_status_not_the_body(status: int, hint: str) -> None:
    respx.post(URL).mock(return_value=httpx.Response(
        status, json={"error": {"message": "provider-private-detail for s3cret-key"}}))
    with pytest.raises(EmbedderError, match=f"embedding provider answered {status}") as caught:
        await embedder().embed(["a"], "query")
    assert hint in str(caught.value)
    assert_discreet(caught.value)


@respx.mock
async def test_a_timeout_is_reported_with_the_limit() -> None:
    respx.post(URL).mock(side_effect=httpx.ReadTimeout("read timed out"))
    with pytest.raises(EmbedderError, match=r"did not answer within 2\.5 s") as caught:
        await embedder(timeout_s=2.5).embed(["a"], "query")
    assert_discreet(caught.value)


@respx.mock
async def test_an_unreachable_provider_is_named_without_its_url() -> None:
    respx.post(URL).mock(side_effect=httpx.ConnectError(f"cannot connect to {BASE}"))
    with pytest.raises(EmbedderError, match=r"could not reach the embedding provider "
                                            r"\(ConnectError\)") as caught:
        await embedder().embed(["a"], "query")
    assert_discreet(caught.value)


def body(data: Any) -> httpx.Response:
    return httpx.Response(200, json={"data": data})


BAD_BODIES = {
    "not JSON": (httpx.Response(200, text="<html>provider-private-detail</html>"), "not JSON"),
    "NaN literal": (httpx.Response(200, content=b'{"data": [{"index": 0, "embedding": '
                                                 b'[NaN, 0.1, 0.2, 0.3]}]}'), "NaN"),
    "Infinity literal": (httpx.Response(200, content=b'{"data": [{"index": 0, "embedding":'
                                                      b' [1, Infinity, 0, 0]}]}'), "infinity"),
    "data not a list": (body({"0": vec(0)}), "without a `data` list"),
    "no data": (httpx.Response(200, json={"embeddings": [vec(0)]}), "without a `data` list"),
    "wrong dimension": (body([{"index": 0, "embedding": [0.1, 0.2]}]), "dimension 2"),
    "base64 embedding": (body([{"index": 0, "embedding": "AAAAAA=="}]), "dimension str"),
    "string numbers": (body([{"index": 0, "embedding": ["1", "0", "0", "0"]}]), "non-numeric"),
    "index missing": (body([{"embedding": vec(0)}]), "index NoneType"),
    "index out of range": (body([{"index": 1, "embedding": vec(0)}]), "index 1"),
    "index twice": (body([{"index": 0, "embedding": vec(0)}, {"index": 0, "embedding": vec(1)}]),
                    "twice for index 0"),
    "too few": (body([]), "returned 0 embeddings for 1 texts"),
    "zero vector": (body([{"index": 0, "embedding": [0, 0, 0, 0]}]), "zero vector"),
}


@pytest.mark.parametrize("case", BAD_BODIES.values(), ids=BAD_BODIES.keys())
@respx.mock
async def test_every_bad_answer_becomes_an_embedder_error(case) -> None:
    response, message = case
    respx.post(URL).mock(return_value=response)
    with pytest.raises(EmbedderError, match=message) as caught:
        await embedder().embed(["a"], "passage")
    assert caught.value.code == "embedder_failed"
    assert_discreet(caught.value)


@pytest.mark.parametrize(("args", "message"), [
    (("ftp://host/v1", "m", 4), "http:// or https://"),
    (("https://host/v1", "", 4), "model name"),
    (("https://host/v1", "m", 0), "positive"),
])
def test_bad_configuration_is_refused(args: tuple, message: str) -> None:
    with pytest.raises(EmbedderError, match=message):
        OpenAIEmbedder(*args)


def test_refused_configuration_does_not_echo_the_url() -> None:
    with pytest.raises(EmbedderError) as caught:
        OpenAIEmbedder("s3cret-key@llm.example.test", "m", 4)
    assert_discreet(caught.value)

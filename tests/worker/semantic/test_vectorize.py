"""The Vectorize adapter against the in-memory stand-in, which enforces the documented
limits itself: a request the adapter shapes wrongly fails there, not only in a check here."""

from __future__ import annotations

import math
from typing import Any

import pytest

from tests.worker.semantic.fake_vectorize import FakeVectorize
from tests.worker.semantic.js_standins import JsException
from worker.semantic.ports import VectorFilter, VectorIndexError, VectorRecord, vector_id
from worker.semantic.vectorize import VectorizeIndex

DIMS = 4


def rec(i: int, **metadata: Any) -> VectorRecord:
    return VectorRecord(id=vector_id(f"unit-{i}"), values=[1.0, i / 1000, 0.0, 0.0],
                        metadata=metadata)


def index(**kwargs: Any) -> tuple[VectorizeIndex, FakeVectorize]:
    fake = FakeVectorize(DIMS, **kwargs)
    return VectorizeIndex(fake, DIMS), fake


@pytest.mark.parametrize("proxies", [False, True])
async def test_upsert_sends_documented_vectors_and_query_reads_matches(proxies: bool) -> None:
    idx, fake = index(proxies=proxies)
    await idx.upsert([VectorRecord(id="v1", values=(1, 0, 0, 0), metadata={"kind": "note"})])
    method, sent = fake.calls[0]
    assert (method, sent) == ("upsert", [{"id": "v1", "values": [1.0, 0.0, 0.0, 0.0],
                                          "metadata": {"kind": "note"}}])
    [match] = await idx.query((1.0, 0.0, 0.0, 0.0), 3, VectorFilter(kind="note"))
    assert (match.id, match.score, dict(match.metadata)) == ("v1", 1.0, {"kind": "note"})
    method, (vector, options) = fake.calls[-1]
    assert vector == [1.0, 0.0, 0.0, 0.0]  # a list: the Workers SDK refuses tuples
    assert options == {"topK": 3, "returnValues": False, "returnMetadata": "all",
                       "filter": {"kind": {"$eq": "note"}}}


async def test_upserts_go_in_chunks_of_1000_with_the_last_write_per_id() -> None:
    idx, fake = index()
    records = [rec(i) for i in range(2500)] + [rec(7, kind="chat")]
    await idx.upsert(records)
    assert [len(batch) for _, batch in fake.calls] == [1000, 1000, 500]
    assert fake.vectors[vector_id("unit-7")].metadata == {"kind": "chat"}
    assert len(fake.vectors) == 2500


async def test_deletes_are_chunked_and_deduplicated() -> None:
    idx, fake = index()
    await idx.upsert([rec(i) for i in range(3)])
    ids = [vector_id(f"unit-{i}") for i in range(1500)]
    await idx.delete([*ids, ids[0]])
    assert [(m, len(p)) for m, p in fake.calls[1:]] == [("deleteByIds", 1000),
                                                        ("deleteByIds", 500)]
    assert fake.vectors == {}


async def test_nothing_to_write_makes_no_call() -> None:
    idx, fake = index()
    await idx.upsert([])
    await idx.delete([])
    assert fake.calls == []


@pytest.mark.parametrize(("top_k", "sent_top_k", "metadata"), [
    (1, 1, "all"), (20, 20, "all"), (21, 21, "none"), (100, 100, "none"), (500, 100, "none"),
])
async def test_top_k_follows_vectorize_limits(top_k: int, sent_top_k: int, metadata: str) -> None:
    idx, fake = index()
    await idx.upsert([rec(i, kind="note") for i in range(150)])
    matches = await idx.query([1.0, 0.0, 0.0, 0.0], top_k)
    _, (_, options) = fake.calls[-1]
    assert (options["topK"], options["returnMetadata"]) == (sent_top_k, metadata)
    assert len(matches) == sent_top_k
    assert all(bool(m.metadata) == (metadata == "all") for m in matches)
    assert [m.score for m in matches] == sorted((m.score for m in matches), reverse=True)


async def test_a_query_for_nothing_makes_no_call() -> None:
    idx, fake = index()
    assert await idx.query([1.0, 0.0, 0.0, 0.0], 0) == []
    assert fake.calls == []


@pytest.mark.parametrize(("filter", "sent"), [
    (None, None),
    (VectorFilter(), None),
    (VectorFilter(vault="Personal"), {"vault": {"$eq": "Personal"}}),
    (VectorFilter(kind="chat", vault="V"), {"kind": {"$eq": "chat"}, "vault": {"$eq": "V"}}),
])
async def test_filters_become_eq_conditions(filter: VectorFilter | None, sent: Any) -> None:
    idx, fake = index()
    await idx.query([1.0, 0.0, 0.0, 0.0], 5, filter)
    _, (_, options) = fake.calls[-1]
    assert options.get("filter") == sent


async def test_vectors_written_before_their_metadata_index_do_not_filter() -> None:
    """Why the README creates the metadata indexes before the first insert."""
    idx, fake = index(metadata_indexes=())
    await idx.upsert([rec(1, kind="note")])
    fake.create_metadata_index("kind")
    await idx.upsert([rec(2, kind="note")])
    found = await idx.query([1.0, 0.0, 0.0, 0.0], 5, VectorFilter(kind="note"))
    assert [m.id for m in found] == [vector_id("unit-2")]


async def test_mutations_are_not_visible_until_vectorize_applies_them() -> None:
    idx, fake = index(lag=True)
    await idx.upsert([rec(1)])
    assert await idx.query([1.0, 0.0, 0.0, 0.0], 5) == []
    fake.process_mutations()
    assert len(await idx.query([1.0, 0.0, 0.0, 0.0], 5)) == 1


BAD_RECORDS = {
    "id over 64 bytes": (VectorRecord(id="x" * 65, values=[1, 0, 0, 0]), "65 bytes"),
    "multi-byte id over 64 bytes": (VectorRecord(id="é" * 33, values=[1, 0, 0, 0]),
                                    "66 bytes"),
    "empty id": (VectorRecord(id="", values=[1, 0, 0, 0]), "non-empty string"),
    "wrong dimension": (VectorRecord(id="a", values=[1, 0, 0]), "3 dimensions"),
    "NaN value": (VectorRecord(id="a", values=[math.nan, 0, 0, 0]), "NaN"),
    # The wrong types are the point of these three.
    "string value": (VectorRecord(id="a", values=["1", 0, 0, 0]),  # type: ignore[list-item]
                     "not a number"),
    "values as a string": (VectorRecord(id="a", values="1234"),  # type: ignore[arg-type]
                           "list of numbers"),
    "metadata over 10 KiB": (VectorRecord(id="a", values=[1, 0, 0, 0],
                                          metadata={"text": "x" * 10_240}), "10251 bytes"),
    "list metadata": (VectorRecord(id="a", values=[1, 0, 0, 0],
                                   metadata={"tags": ["a"]}),  # type: ignore[dict-item]
                      "is a list"),
    "dotted key": (VectorRecord(id="a", values=[1, 0, 0, 0], metadata={"a.b": 1}), "'a.b'"),
    "dollar key": (VectorRecord(id="a", values=[1, 0, 0, 0], metadata={"$x": 1}), "'\\$x'"),
    "NaN metadata": (VectorRecord(id="a", values=[1, 0, 0, 0], metadata={"w": math.nan}),
                     "NaN"),
    "vault over 64 bytes": (VectorRecord(id="a", values=[1, 0, 0, 0],
                                         metadata={"vault": "v" * 65}), "first 64"),
    "numeric kind": (VectorRecord(id="a", values=[1, 0, 0, 0], metadata={"kind": 3}),
                     "as a string"),
}


@pytest.mark.parametrize("case", BAD_RECORDS.values(), ids=BAD_RECORDS.keys())
async def test_a_bad_record_fails_the_whole_upsert_before_any_call(case) -> None:
    bad, message = case
    idx, fake = index()
    with pytest.raises(VectorIndexError, match=message) as caught:
        await idx.upsert([rec(1), bad])
    assert caught.value.code == "vectors_failed"
    assert fake.calls == []


async def test_metadata_of_exactly_10_kib_is_accepted() -> None:
    idx, fake = index()
    filler = "x" * (10 * 1024 - len('{"text":""}'))
    await idx.upsert([VectorRecord(id="a", values=[1, 0, 0, 0], metadata={"text": filler})])
    assert fake.vectors["a"].metadata == {"text": filler}


@pytest.mark.parametrize("top_k", [0, -3])
async def test_top_k_below_one_answers_nothing_without_a_call(top_k: int) -> None:
    """top_k is an upper bound in the port; the local index refuses it instead (the
    shared contract leaves this open)."""
    idx, fake = index()
    await idx.upsert([rec(1, kind="note")])
    assert await idx.query([1.0, 0.0, 0.0, 0.0], top_k) == []
    assert [c[0] for c in fake.calls] == ["upsert"]


@pytest.mark.parametrize(("vector", "top_k", "flt", "message"), [
    ([1.0, 0.0], 3, None, "2 dimensions"),
    ([math.inf, 0, 0, 0], 3, None, "NaN or infinity"),
    ([1, 0, 0, 0], 2.5, None, "whole number"),
    ([1, 0, 0, 0], True, None, "whole number"),
    ([1, 0, 0, 0], 3, VectorFilter(vault="v" * 65), "first 64"),
])
async def test_a_bad_query_is_refused_before_any_call(vector: Any, top_k: Any,
                                                      flt: VectorFilter | None,
                                                      message: str) -> None:
    idx, fake = index()
    with pytest.raises(VectorIndexError, match=message):
        await idx.query(vector, top_k, flt)
    assert fake.calls == []


async def test_a_refused_chunk_says_how_far_the_upsert_got() -> None:
    idx, fake = index()
    fake.fail["upsert"] = 2
    with pytest.raises(VectorIndexError, match="1000 of 1500 were accepted before"):
        await idx.upsert([rec(i) for i in range(1500)])


@pytest.mark.parametrize("method", ["upsert", "deleteByIds", "query"])
async def test_binding_failures_become_vector_index_errors(method: str) -> None:
    idx, fake = index()
    fake.fail[method] = 1
    with pytest.raises(VectorIndexError, match=f"Vectorize {method}.*internal error"):
        if method == "upsert":
            await idx.upsert([rec(1)])
        elif method == "deleteByIds":
            await idx.delete(["a"])
        else:
            await idx.query([1, 0, 0, 0], 3)


class Answers:
    """A binding whose query answers are scripted."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer

    async def query(self, vector: list[float], options: dict[str, Any]) -> Any:
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


@pytest.mark.parametrize(("answer", "message"), [
    ({"count": 0}, "without a `matches` list"),
    ([], "without a `matches` list"),
    ({"matches": [{"id": 3, "score": 0.5}]}, "string id"),
    ({"matches": [{"id": "a", "score": math.nan}]}, "finite score"),
    ({"matches": [{"id": "a"}]}, "finite score"),
    ({"matches": [{"id": "a", "score": 0.5, "metadata": "x"}]}, "not an object"),
    (JsException("VECTOR_QUERY_ERROR (code = 40006): index not found"), "index not found"),
])
async def test_malformed_query_answers_become_errors(answer: Any, message: str) -> None:
    with pytest.raises(VectorIndexError, match=message):
        await VectorizeIndex(Answers(answer), DIMS).query([1, 0, 0, 0], 3)


async def test_matches_without_metadata_and_out_of_order_are_normalised() -> None:
    answer = {"count": 2, "matches": [{"id": "low", "score": 0.1, "metadata": None},
                                      {"id": "high", "score": 0.9}]}
    matches = await VectorizeIndex(Answers(answer), DIMS).query([1, 0, 0, 0], 3)
    assert [(m.id, dict(m.metadata)) for m in matches] == [("high", {}), ("low", {})]


def test_setup_errors_are_named() -> None:
    with pytest.raises(VectorIndexError, match="binding named VECTORS"):
        VectorizeIndex(None, 384)
    with pytest.raises(VectorIndexError, match="1 to 1536"):
        VectorizeIndex(object(), 3072)


async def test_delete_refuses_a_bare_string_and_overlong_ids() -> None:
    idx, fake = index()
    with pytest.raises(VectorIndexError, match="not one string"):
        await idx.delete("abc")
    with pytest.raises(VectorIndexError, match="vector_id"):
        await idx.delete(["x" * 65])
    assert fake.calls == []

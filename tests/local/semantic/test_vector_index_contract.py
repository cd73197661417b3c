"""The VectorIndex contract: the same async tests for every adapter. Today the local
SQLite one; a Vectorize adapter joins by adding a harness to HARNESSES (its `settle`
waits out Vectorize's asynchronous mutations)."""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from local.semantic.vectors import SqliteVectorIndex
from worker.semantic.ports import (
    VectorFilter,
    VectorIndex,
    VectorIndexError,
    VectorRecord,
    vector_id,
)

DIMENSIONS = 384


@dataclass
class Harness:
    """An adapter under test: `open()` opens (or reopens) the same store."""

    open: Callable[[], VectorIndex]
    close: Callable[[VectorIndex], None]

    async def settle(self) -> None:
        """Wait until earlier writes are visible (the local index needs no wait)."""


def local_sqlite(tmp_path: Path) -> Harness:
    path = tmp_path / "vectors.sqlite"
    return Harness(open=lambda: SqliteVectorIndex(path, DIMENSIONS),
                   close=lambda index: index.close())


HARNESSES: dict[str, Callable[[Path], Harness]] = {"local-sqlite": local_sqlite}


@pytest.fixture(params=sorted(HARNESSES))
def harness(request: pytest.FixtureRequest, tmp_path: Path) -> Harness:
    return HARNESSES[request.param](tmp_path)


@pytest.fixture
async def index(harness: Harness) -> AsyncIterator[VectorIndex]:
    opened = harness.open()
    yield opened
    harness.close(opened)


def unit(seed: int) -> list[float]:
    v = np.random.default_rng(seed).standard_normal(DIMENSIONS)
    return (v / np.linalg.norm(v)).tolist()


def near(base: list[float], seed: int, noise: float) -> list[float]:
    v = np.array(base) + noise * np.array(unit(seed))
    return (v / np.linalg.norm(v)).tolist()


def rec(key: str, values: Sequence[float], kind: str = "note", vault: str = "Life",
        **extra: str | int | float | bool) -> VectorRecord:
    return VectorRecord(id=vector_id(key), values=values,
                        metadata={"kind": kind, "vault": vault, **extra})


QUERY = unit(1)
# Closest to QUERY first: a, b, c, then d (unrelated).
A, B, C, D = near(QUERY, 2, 0.3), near(QUERY, 3, 0.8), near(QUERY, 4, 1.5), unit(5)


def ids(*keys: str) -> list[str]:
    return [vector_id(k) for k in keys]


async def test_an_empty_index_finds_nothing(index: VectorIndex) -> None:
    assert await index.query(QUERY, 10) == []


async def test_query_returns_the_closest_first_with_cosine_scores(
        index: VectorIndex, harness: Harness) -> None:
    await index.upsert([rec("d", D), rec("b", B), rec("a", A), rec("c", C)])
    await harness.settle()
    got = await index.query(QUERY, 4)
    assert [m.id for m in got] == ids("a", "b", "c", "d")
    for match, values in zip(got, (A, B, C, D), strict=True):
        assert match.score == pytest.approx(float(np.dot(QUERY, values)), abs=1e-5)
    assert got[0].metadata == {"kind": "note", "vault": "Life"}


async def test_scores_are_cosines_whatever_the_vectors_length(
        index: VectorIndex, harness: Harness) -> None:
    await index.upsert([rec("a", [5 * x for x in A])])
    await harness.settle()
    (match,) = await index.query([0.5 * x for x in QUERY], 1)
    assert match.score == pytest.approx(float(np.dot(QUERY, A)), abs=1e-5)
    assert -1.0 <= match.score <= 1.0


async def test_upsert_is_idempotent(index: VectorIndex, harness: Harness) -> None:
    records = [rec("a", A), rec("b", B)]
    await index.upsert(records)
    await index.upsert(records)
    await harness.settle()
    assert [m.id for m in await index.query(QUERY, 10)] == ids("a", "b")


async def test_upsert_replaces_values_and_metadata(index: VectorIndex, harness: Harness) -> None:
    await index.upsert([rec("a", A), rec("b", B)])
    await index.upsert([rec("a", D, kind="message", vault="Work", heading="Costs")])
    await harness.settle()
    got = await index.query(QUERY, 10)
    assert [m.id for m in got] == ids("b", "a")
    assert got[1].metadata == {"kind": "message", "vault": "Work", "heading": "Costs"}
    assert [m.id for m in await index.query(QUERY, 10, VectorFilter(kind="note"))] == ids("b")


async def test_delete_removes_and_ignores_unknown_ids(index: VectorIndex,
                                                      harness: Harness) -> None:
    await index.upsert([rec("a", A), rec("b", B), rec("c", C)])
    await index.delete(ids("a", "never-stored"))
    await index.delete([])
    await harness.settle()
    assert [m.id for m in await index.query(QUERY, 10)] == ids("b", "c")


@pytest.mark.parametrize(("flt", "expected"), [
    (None, ["a", "b", "c", "d"]),
    (VectorFilter(), ["a", "b", "c", "d"]),
    (VectorFilter(kind="note"), ["a", "c"]),
    (VectorFilter(vault="Work"), ["b", "c"]),
    (VectorFilter(kind="note", vault="Work"), ["c"]),
    (VectorFilter(kind="message", vault="Life"), ["d"]),
    (VectorFilter(vault="Elsewhere"), []),
])
async def test_filters_are_equalities_on_kind_and_vault(
        index: VectorIndex, harness: Harness, flt: VectorFilter | None,
        expected: list[str]) -> None:
    await index.upsert([rec("a", A, "note", "Life"), rec("b", B, "message", "Work"),
                        rec("c", C, "note", "Work"), rec("d", D, "message", "Life")])
    await harness.settle()
    assert [m.id for m in await index.query(QUERY, 10, flt)] == ids(*expected)


@pytest.mark.parametrize("top_k", [1, 2, 3, 100])
async def test_top_k_caps_the_matches(index: VectorIndex, harness: Harness, top_k: int) -> None:
    await index.upsert([rec("a", A), rec("b", B), rec("c", C)])
    await harness.settle()
    assert [m.id for m in await index.query(QUERY, top_k)] == ids("a", "b", "c")[:top_k]


@pytest.mark.parametrize("top_k", [0, -1, 101, 2.0, True])
async def test_top_k_out_of_bounds_is_refused(index: VectorIndex, top_k: object) -> None:
    with pytest.raises(VectorIndexError, match="top_k"):
        await index.query(QUERY, top_k)  # type: ignore[arg-type]


@pytest.mark.parametrize(("values", "problem"), [
    (A[:-1], "dimension 383; the index expects 384"),
    ([*A, 0.0], "dimension 385; the index expects 384"),
    ([math.nan, *A[1:]], "NaN or infinity"),
    ([0.0] * DIMENSIONS, "zero vector"),
    ("not a vector", "not a sequence"),
])
async def test_a_bad_vector_refuses_the_whole_batch(
        index: VectorIndex, harness: Harness, values: object, problem: str) -> None:
    with pytest.raises(VectorIndexError, match=rf"\[1\] '{vector_id('bad')}': .*{problem}"):
        await index.upsert([rec("good", A), rec("bad", values)])  # type: ignore[arg-type]
    await harness.settle()
    assert await index.query(QUERY, 10) == []


@pytest.mark.parametrize("values", [A[:10], [math.inf] * DIMENSIONS, [0.0] * DIMENSIONS])
async def test_a_bad_query_vector_is_refused(index: VectorIndex, values: list[float]) -> None:
    with pytest.raises(VectorIndexError, match="query refused"):
        await index.query(values, 5)


@pytest.mark.parametrize(("record", "problem"), [
    (VectorRecord(id="x" * 65, values=A), "over 64 bytes"),
    (VectorRecord(id="", values=A), "non-empty string"),
    (VectorRecord(id="x", values=A, metadata={"big": "y" * 10_241}), "at most 10240"),
    (VectorRecord(id="x", values=A, metadata={"when": None}), r"metadata\['when'\]"),
    (VectorRecord(id="x", values=A, metadata={"n": math.nan}), r"metadata\['n'\]"),
])
async def test_what_vectorize_refuses_is_refused(index: VectorIndex, record: VectorRecord,
                                                 problem: str) -> None:
    with pytest.raises(VectorIndexError, match=problem):
        await index.upsert([record])


async def test_a_batch_over_the_upsert_limit_is_refused(index: VectorIndex) -> None:
    with pytest.raises(VectorIndexError, match="upsert of 1001 records; at most 1000"):
        await index.upsert([rec(str(i), A) for i in range(1001)])


async def test_metadata_values_round_trip(index: VectorIndex, harness: Harness) -> None:
    metadata = {"kind": "note", "vault": "Life", "path": "Money/Refunds.md", "section": 3,
                "weight": 0.25, "pinned": True, "title": "Rückerstattung ✓"}
    await index.upsert([VectorRecord(id=vector_id("m"), values=A, metadata=metadata)])
    await harness.settle()
    assert (await index.query(QUERY, 1))[0].metadata == metadata


async def test_vectors_survive_a_reopen(harness: Harness) -> None:
    first = harness.open()
    await first.upsert([rec("a", A), rec("b", B, "message"), rec("c", C)])
    await first.delete(ids("c"))
    await harness.settle()
    harness.close(first)
    again = harness.open()
    try:
        got = await again.query(QUERY, 10)
        assert [m.id for m in got] == ids("a", "b")
        assert got[0].score == pytest.approx(float(np.dot(QUERY, A)), abs=1e-5)
        assert [m.id for m in await again.query(QUERY, 10, VectorFilter(kind="message"))] \
            == ids("b")
    finally:
        harness.close(again)

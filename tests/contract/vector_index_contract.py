"""The VectorIndex contract: what every index behind the port must do, written once as
async checks that take a Harness, so every adapter runs the same suite
(`test_vector_index_contract.py`: the Vectorize adapter on its stand-in, with and without
lag, and the local SqliteVectorIndex in memory and on a file).

To add an adapter, give `test_vector_index_contract.py` a factory
`async (dimensions, folder) -> Harness` and append it to FACTORIES. `settle` makes accepted
mutations visible: a no-op for a synchronous index, `process_mutations` for the Vectorize
fake with lag (Vectorize applies upserts and deletes asynchronously). `reopen` closes the
index and opens the same store again; only persistent adapters have one, and only they run
PERSISTENCE_CHECKS.

What the contract leaves open: scores may be approximate (within TOLERANCE); matches with
equal scores come in any order; metadata may be left out when top_k > 20 (Vectorize's
limit for returning it); a top_k outside 1..100 (Vectorize caps it, the local index
refuses it); a zero vector (the local index refuses it, Vectorize's cosine is undefined);
an upsert of more than 1,000 records (Vectorize's adapter sends it in chunks, the local
index refuses it). Each adapter's own tests pin those."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from worker.semantic.ports import (
    MetadataValue,
    VectorFilter,
    VectorIndex,
    VectorIndexError,
    VectorRecord,
    vector_id,
)

DIMENSIONS = 8
TOLERANCE = 1e-3


async def _nothing() -> None:
    return None


@dataclass
class Harness:
    index: VectorIndex
    dimensions: int = DIMENSIONS
    settle: Callable[[], Awaitable[None]] = field(default=_nothing)
    # Close the index and open the same store again (persistent adapters only).
    reopen: Callable[[], VectorIndex] | None = None
    close: Callable[[], None] = lambda: None


Factory = Callable[[int, Path], Awaitable[Harness]]


def axis(i: int, scale: float = 1.0) -> list[float]:
    """The unit vector along axis i (scaled)."""
    return [scale if j == i else 0.0 for j in range(DIMENSIONS)]


def blend(weights: dict[int, float]) -> list[float]:
    v = [weights.get(j, 0.0) for j in range(DIMENSIONS)]
    n = math.hypot(*v)
    return [x / n for x in v]


def rec(name: str, values: list[float], **metadata: str | int | float | bool) -> VectorRecord:
    return VectorRecord(id=vector_id(name), values=values, metadata=metadata)


async def store(h: Harness, *records: VectorRecord) -> None:
    await h.index.upsert(list(records))
    await h.settle()


async def ids(h: Harness, vector: list[float], top_k: int,
              filter: VectorFilter | None = None) -> list[str]:
    return [m.id for m in await h.index.query(vector, top_k, filter)]


# -- the checks ------------------------------------------------------------------------

async def check_empty_index_answers_nothing(h: Harness) -> None:
    assert await h.index.query(axis(0), 5) == []


async def check_nearest_first_with_cosine_scores(h: Harness) -> None:
    await store(h, rec("a", axis(0)), rec("b", blend({0: 1, 1: 1})), rec("c", axis(1)),
                rec("d", axis(0, -1.0)))
    matches = await h.index.query(axis(0), 4)
    assert [m.id for m in matches] == [vector_id(n) for n in "abcd"]
    expected = [1.0, math.sqrt(0.5), 0.0, -1.0]
    assert all(abs(m.score - e) < TOLERANCE for m, e in zip(matches, expected, strict=True))


async def check_scores_ignore_vector_length(h: Harness) -> None:
    await store(h, rec("long", axis(2, 7.5)), rec("other", axis(3)))
    best = (await h.index.query(axis(2, 0.2), 1))[0]
    assert best.id == vector_id("long") and abs(best.score - 1.0) < TOLERANCE


async def check_top_k_bounds_the_answer(h: Harness) -> None:
    await store(h, *(rec(f"n{i}", blend({0: 1, 1: i / 10})) for i in range(6)))
    assert await ids(h, axis(0), 2) == [vector_id("n0"), vector_id("n1")]
    assert len(await h.index.query(axis(0), 50)) == 6
    assert len(await h.index.query(axis(0), 100)) == 6


async def check_many_candidates_beyond_twenty(h: Harness) -> None:
    await store(h, *(rec(f"m{i}", blend({0: 1, 1: i / 40})) for i in range(30)))
    found = await ids(h, axis(0), 25)
    assert found == [vector_id(f"m{i}") for i in range(25)]


async def check_upsert_is_idempotent(h: Harness) -> None:
    records = [rec("a", axis(0)), rec("b", blend({0: 1, 1: 1}))]
    await store(h, *records)
    await store(h, *records)
    assert await ids(h, axis(0), 10) == [vector_id("a"), vector_id("b")]


async def check_upsert_replaces_values_and_metadata(h: Harness) -> None:
    await store(h, rec("x", axis(0), kind="note", vault="V", title="old"))
    await store(h, rec("x", axis(1), kind="chat", vault="V"))
    [match] = await h.index.query(axis(1), 5)
    assert match.id == vector_id("x") and abs(match.score - 1.0) < TOLERANCE
    assert dict(match.metadata) == {"kind": "chat", "vault": "V"}  # replaced, not merged
    assert await h.index.query(axis(0), 5, VectorFilter(kind="note")) == []


async def check_last_write_wins_within_one_upsert(h: Harness) -> None:
    await store(h, rec("dup", axis(0), kind="note"), rec("dup", axis(4), kind="chat"))
    [match] = await h.index.query(axis(4), 5)
    assert abs(match.score - 1.0) < TOLERANCE and match.metadata.get("kind") == "chat"


async def check_metadata_round_trips(h: Harness) -> None:
    meta: dict[str, MetadataValue] = {"kind": "note", "vault": "Personal", "path": "a/b.md",
                                      "n": 3, "w": 0.5, "draft": True,
                                      "title": "Rückerstattung ✓"}
    await store(h, VectorRecord(id=vector_id("meta"), values=axis(5), metadata=meta))
    [match] = await h.index.query(axis(5), 3)
    assert dict(match.metadata) == meta


async def check_delete_removes_and_tolerates_unknown_ids(h: Harness) -> None:
    await store(h, rec("keep", axis(0)), rec("drop", blend({0: 1, 1: 1})))
    await h.index.delete([vector_id("drop"), vector_id("never-stored")])
    await h.index.delete([])
    await h.settle()
    assert await ids(h, axis(0), 5) == [vector_id("keep")]


async def check_filters_on_kind_and_vault(h: Harness) -> None:
    await store(h, rec("n1", axis(0), kind="note", vault="A"),
                rec("c1", blend({0: 1, 1: 0.1}), kind="chat", vault="A"),
                rec("n2", blend({0: 1, 1: 0.2}), kind="note", vault="B"))
    assert await ids(h, axis(0), 5, VectorFilter(kind="note")) == \
        [vector_id("n1"), vector_id("n2")]
    assert await ids(h, axis(0), 5, VectorFilter(vault="A")) == \
        [vector_id("n1"), vector_id("c1")]
    assert await ids(h, axis(0), 5, VectorFilter(kind="note", vault="B")) == [vector_id("n2")]
    assert await ids(h, axis(0), 5, VectorFilter(kind="chat", vault="B")) == []
    assert len(await h.index.query(axis(0), 5, VectorFilter())) == 3
    assert len(await h.index.query(axis(0), 5, None)) == 3


async def check_filter_applies_before_top_k(h: Harness) -> None:
    await store(h, *(rec(f"c{i}", blend({0: 1, 1: i / 10}), kind="chat") for i in range(5)),
                rec("far-note", axis(1), kind="note"))
    assert await ids(h, axis(0), 1, VectorFilter(kind="note")) == [vector_id("far-note")]


async def check_bad_record_stores_nothing(h: Harness) -> None:
    good = rec("good", axis(0))
    for name, values in (("short", [1.0, 0.0]), ("long", [*axis(0), 0.0]),
                         ("nan", [math.nan, *axis(0)[1:]]), ("text", "not a vector")):
        bad = VectorRecord(id=vector_id(name), values=values)  # type: ignore[arg-type]
        with pytest.raises(VectorIndexError, match=vector_id(name)):  # names the bad one
            await h.index.upsert([good, bad])
    await h.settle()
    assert await h.index.query(axis(0), 5) == []


async def check_what_vectorize_refuses_is_refused(h: Harness) -> None:
    """Vectorize's documented limits hold for every adapter, so a record the local index
    accepts is one the edge accepts too."""
    for record, problem in (
            (VectorRecord(id="x" * 65, values=axis(0)), "64"),
            (VectorRecord(id="", values=axis(0)), "non-empty"),
            (VectorRecord(id="x", values=axis(0), metadata={"big": "y" * 10_241}), "10"),
            (VectorRecord(id="x", values=axis(0), metadata={"when": None}), "when"),  # type: ignore[dict-item]
            (VectorRecord(id="x", values=axis(0), metadata={"n": math.nan}), "'n'")):
        with pytest.raises(VectorIndexError, match=problem):
            await h.index.upsert([record])
    await h.settle()
    assert await h.index.query(axis(0), 5) == []


async def check_bad_query_vector_is_refused(h: Harness) -> None:
    await store(h, rec("a", axis(0)))
    for vector in ([1.0, 0.0], [*axis(0), 0.0], [math.inf, *axis(0)[1:]]):
        with pytest.raises(VectorIndexError):
            await h.index.query(vector, 3)


async def check_top_k_that_is_not_a_whole_number_is_refused(h: Harness) -> None:
    await store(h, rec("a", axis(0)))
    for top_k in (2.0, True, "3"):
        with pytest.raises(VectorIndexError, match="top_k"):
            await h.index.query(axis(0), top_k)  # type: ignore[arg-type]


async def check_vectors_survive_a_reopen(h: Harness) -> None:
    assert h.reopen is not None
    await store(h, rec("a", axis(0), kind="note"), rec("b", blend({0: 1, 1: 1}), kind="chat"),
                rec("c", axis(1), kind="note"))
    await h.index.delete([vector_id("c")])
    await h.settle()
    h.index = h.reopen()
    matches = await h.index.query(axis(0), 10)
    assert [m.id for m in matches] == [vector_id("a"), vector_id("b")]
    assert abs(matches[0].score - 1.0) < TOLERANCE
    assert matches[1].metadata.get("kind") == "chat"
    assert await ids(h, axis(0), 10, VectorFilter(kind="chat")) == [vector_id("b")]


CONTRACT_CHECKS = [
    check_empty_index_answers_nothing,
    check_nearest_first_with_cosine_scores,
    check_scores_ignore_vector_length,
    check_top_k_bounds_the_answer,
    check_many_candidates_beyond_twenty,
    check_upsert_is_idempotent,
    check_upsert_replaces_values_and_metadata,
    check_last_write_wins_within_one_upsert,
    check_metadata_round_trips,
    check_delete_removes_and_tolerates_unknown_ids,
    check_filters_on_kind_and_vault,
    check_filter_applies_before_top_k,
    check_bad_record_stores_nothing,
    check_what_vectorize_refuses_is_refused,
    check_bad_query_vector_is_refused,
    check_top_k_that_is_not_a_whole_number_is_refused,
]

PERSISTENCE_CHECKS = [check_vectors_survive_a_reopen]

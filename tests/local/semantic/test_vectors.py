"""The local index beside the local D1 database: one file, two connections, two threads."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

from tests import embedder

embedder.require()

import numpy as np
import pytest

from local.migrate import migrate
from local.semantic import vectors
from local.semantic.vector_sql import TABLE
from local.semantic.vectors import SqliteVectorIndex
from local.sqlite_db import SqliteDatabase
from tests.conftest import ROOT
from worker.semantic.ports import VectorFilter, VectorIndexError, VectorRecord, vector_id

DIMENSIONS = 384


def unit(seed: int) -> list[float]:
    v = np.random.default_rng(seed).standard_normal(DIMENSIONS)
    return (v / np.linalg.norm(v)).tolist()


def records(start: int, count: int) -> list[VectorRecord]:
    return [VectorRecord(id=vector_id(f"u{i}"), values=unit(i), metadata={"kind": "note"})
            for i in range(start, start + count)]


async def test_it_lives_in_the_d1_file_in_its_own_table(tmp_path: Path) -> None:
    db = SqliteDatabase(tmp_path / "mallory.sqlite")
    await migrate(db)
    index = SqliteVectorIndex.beside(db, DIMENSIONS)
    await index.upsert(records(0, 3))
    with sqlite3.connect(db.path) as other:
        assert other.execute(f"SELECT count(*) FROM {TABLE}").fetchone() == (3,)
    assert len(index) == 3 and index.nbytes >= 3 * DIMENSIONS * 4
    index.close()
    db.close()


async def test_memory_databases_stay_apart(db: SqliteDatabase) -> None:
    index = SqliteVectorIndex.beside(db, DIMENSIONS)
    await index.upsert(records(0, 2))
    tables = (await db.prepare("SELECT name FROM sqlite_master WHERE name = ?")
              .bind(TABLE).all()).results
    assert tables == [] and len(index) == 2
    index.close()


async def test_vector_writes_from_another_thread_never_join_a_d1_batch(tmp_path: Path) -> None:
    """The hub's sync thread writes vectors while the event loop runs D1 batches."""
    db = SqliteDatabase(tmp_path / "mallory.sqlite")
    await migrate(db)
    index = SqliteVectorIndex.beside(db, DIMENSIONS)
    failures: list[BaseException] = []

    def vector_writer() -> None:
        try:
            for start in range(0, 200, 20):
                asyncio.run(index.upsert(records(start, 20)))
                asyncio.run(index.delete([vector_id(f"u{start}")]))
        except BaseException as exc:
            failures.append(exc)

    thread = threading.Thread(target=vector_writer)
    thread.start()
    await db.prepare("CREATE TABLE scratch (n INTEGER NOT NULL)").run()
    for i in range(30):
        await db.batch([db.prepare("INSERT INTO scratch (n) VALUES (?)").bind(i)
                        for _ in range(5)])
        await asyncio.sleep(0)
    thread.join()
    assert failures == []
    assert len(index) == 190
    count = (await db.prepare("SELECT count(*) AS n FROM scratch").all()).results
    assert count == [{"n": 150}]
    index.close()
    reopened = SqliteVectorIndex.beside(db, DIMENSIONS)
    assert len(reopened) == 190
    reopened.close()
    db.close()


async def test_concurrent_upserts_and_queries_stay_consistent(tmp_path: Path) -> None:
    index = SqliteVectorIndex(tmp_path / "v.sqlite", DIMENSIONS)
    batches = [records(start, 25) for start in range(0, 200, 25)]
    queries = [index.query(unit(i), 5, VectorFilter(kind="note")) for i in range(20)]
    await asyncio.gather(*(index.upsert(b) for b in batches), *queries)
    assert len(index) == 200
    (best,) = await index.query(unit(123), 1)
    assert best.id == vector_id("u123") and best.score == pytest.approx(1.0, abs=1e-6)
    index.close()


async def test_reopening_reloads_every_partition_as_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reload streams the table in chunks (three here) and puts each partition's rows
    in bulk: the reopened index answers every filter as the one that wrote it."""
    monkeypatch.setattr("local.semantic.vectors.LOAD_CHUNK_ROWS", 16)
    path = tmp_path / "v.sqlite"
    index = SqliteVectorIndex(path, DIMENSIONS)
    metadata: list[dict[str, str | int]] = [
        {"kind": "note", "vault": "Life"}, {"kind": "note", "vault": "Work"},
                {"kind": "message"}, {"kind": "message", "extra": 1}]
    await index.upsert([VectorRecord(id=vector_id(f"u{i}"), values=unit(i),
                                     metadata=metadata[i % 4]) for i in range(40)])
    await index.upsert([VectorRecord(id=vector_id("u3"), values=unit(99),
                                     metadata={"kind": "note", "vault": "Life"})])
    await index.delete([vector_id("u5")])
    filters = [None, VectorFilter(kind="message"), VectorFilter(kind="note", vault="Life"),
               VectorFilter(vault="Work")]
    written = [await index.query(unit(q), 12, f) for q in (99, 7) for f in filters]
    index.close()
    again = SqliteVectorIndex(path, DIMENSIONS)
    assert len(again) == 39 and again.ids() == {vector_id(f"u{i}") for i in range(40)} - {
        vector_id("u5")}
    reloaded = [await again.query(unit(q), 12, f) for q in (99, 7) for f in filters]
    # Ids and metadata exactly; scores to float32 rounding (rows may now sit elsewhere in
    # their matrix, and a BLAS scan rounds by position).
    assert [[(m.id, m.metadata) for m in r] for r in reloaded] == \
        [[(m.id, m.metadata) for m in w] for w in written]
    np.testing.assert_allclose([m.score for r in reloaded for m in r],
                               [m.score for w in written for m in w], atol=1e-6)
    assert written[2][0].id == vector_id("u3") and written[2][0].metadata == {
        "kind": "note", "vault": "Life"}
    again.close()


async def test_reopening_with_other_dimensions_is_refused(tmp_path: Path) -> None:
    index = SqliteVectorIndex(tmp_path / "v.sqlite", DIMENSIONS)
    await index.upsert(records(0, 1))
    index.close()
    with pytest.raises(VectorIndexError, match=r"dimension 384 .* expects 768"):
        SqliteVectorIndex(tmp_path / "v.sqlite", dimensions=768)


def test_an_unreadable_file_or_missing_folder_is_a_typed_error(tmp_path: Path) -> None:
    bad = tmp_path / "not-a-database.sqlite"
    bad.write_bytes(b"this is not SQLite " * 100)
    with pytest.raises(VectorIndexError, match=r"cannot open the vector table .*not a database"):
        SqliteVectorIndex(bad, DIMENSIONS)
    with pytest.raises(VectorIndexError, match=r"cannot open the vector table .*unable to open"):
        SqliteVectorIndex(tmp_path / "absent" / "v.sqlite", DIMENSIONS)


async def test_delete_takes_a_sequence_of_ids(tmp_path: Path) -> None:
    index = SqliteVectorIndex(tmp_path / "v.sqlite", DIMENSIONS)
    with pytest.raises(VectorIndexError, match="not one string"):
        await index.delete(vector_id("u1"))  # type: ignore[arg-type]
    index.close()


@pytest.mark.parametrize("top_k", [0, -1, 101])
async def test_top_k_outside_vectorize_bounds_is_refused(tmp_path: Path, top_k: int) -> None:
    """Where the shared contract leaves the adapters free (tests/contract/
    vector_index_contract.py), the local index refuses rather than capping."""
    index = SqliteVectorIndex(":memory:", DIMENSIONS)
    with pytest.raises(VectorIndexError, match=rf"top_k is {top_k}; expected an integer from 1"):
        await index.query(unit(1), top_k)
    index.close()


async def test_zero_vectors_and_oversized_batches_are_refused(tmp_path: Path) -> None:
    index = SqliteVectorIndex(":memory:", DIMENSIONS)
    with pytest.raises(VectorIndexError, match="zero vector"):
        await index.upsert([VectorRecord(id=vector_id("z"), values=[0.0] * DIMENSIONS)])
    with pytest.raises(VectorIndexError, match=r"query refused: .*zero vector"):
        await index.query([0.0] * DIMENSIONS, 3)
    with pytest.raises(VectorIndexError, match="upsert of 1001 records; at most 1000"):
        await index.upsert(records(0, 1001))
    assert len(index) == 0
    index.close()


def test_without_the_optional_stack_the_import_says_how_to_get_it() -> None:
    code = ("import sys; sys.modules['threadpoolctl'] = None\n"
            "try:\n    import local.semantic.vectors\n"
            "except ImportError as exc:\n    print(exc)\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    assert "needs threadpoolctl; install the optional local embedder with: " \
           "uv sync --group embed" in done.stdout


async def test_a_small_query_runs_on_the_callers_thread_unless_a_write_holds_the_lock(
        db: SqliteDatabase, monkeypatch: pytest.MonkeyPatch) -> None:
    index = SqliteVectorIndex.beside(db, DIMENSIONS)
    await index.upsert(records(0, 3))
    threads: list[int] = []
    query = index._matrix.query

    def spied(*args: object, **kwargs: object) -> object:
        threads.append(threading.get_ident())
        return query(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(index._matrix, "query", spied)
    here = threading.get_ident()
    inline = await index.query(unit(1), 3, VectorFilter(kind="note"))
    assert threads == [here] and inline[0].id == vector_id("u1")
    # More rows than INLINE_ROWS: a worker thread scans them, the same hits.
    monkeypatch.setattr(vectors, "INLINE_ROWS", 2)
    assert await index.query(unit(1), 3, VectorFilter(kind="note")) == inline
    assert threads[1] != here
    monkeypatch.setattr(vectors, "INLINE_ROWS", vectors.EXACT_ROWS)
    # A write holding the lock: the query waits in a worker thread, the loop runs on.
    holding, release = threading.Event(), threading.Event()

    def write() -> None:
        with index._lock.writing():
            holding.set()
            release.wait(10)

    writer = threading.Thread(target=write)
    writer.start()
    assert holding.wait(10)
    waiting = asyncio.ensure_future(index.query(unit(1), 3, VectorFilter(kind="note")))
    await asyncio.sleep(0.1)
    assert not waiting.done()
    release.set()
    assert await waiting == inline and threads[2] != here
    writer.join(10)
    index.close()

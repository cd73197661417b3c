"""The shared VectorIndex contract (vector_index_contract.py), run on every index adapter:
Vectorize on its documented-shape stand-in (with and without lag), and the local
SqliteVectorIndex in memory and on a file. Persistence checks run on the file only."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests import embedder

embedder.require()

from local.semantic.vectors import SqliteVectorIndex
from tests.contract.vector_index_contract import (
    CONTRACT_CHECKS,
    PERSISTENCE_CHECKS,
    Factory,
    Harness,
)
from tests.worker.semantic.fake_vectorize import FakeVectorize
from worker.semantic.vectorize import VectorizeIndex

DIMENSIONS = 8


async def vectorize_on_fake(dimensions: int, _folder: Path) -> Harness:
    return Harness(VectorizeIndex(FakeVectorize(dimensions), dimensions), dimensions)


async def vectorize_on_lagging_fake(dimensions: int, _folder: Path) -> Harness:
    """Mutations stay invisible until settled, as on real Vectorize; JS-proxy answers."""
    fake = FakeVectorize(dimensions, proxies=True, lag=True)

    async def settle() -> None:
        fake.process_mutations()

    return Harness(VectorizeIndex(fake, dimensions), dimensions, settle)


def _sqlite(path: str | Path, dimensions: int, persistent: bool) -> Harness:
    harness = Harness(SqliteVectorIndex(path, dimensions), dimensions)

    def close() -> None:
        harness.index.close()  # type: ignore[attr-defined]

    def reopen() -> SqliteVectorIndex:
        close()
        return SqliteVectorIndex(path, dimensions)

    harness.close = close
    harness.reopen = reopen if persistent else None
    return harness


async def sqlite_in_memory(dimensions: int, _folder: Path) -> Harness:
    return _sqlite(":memory:", dimensions, persistent=False)


async def sqlite_on_file(dimensions: int, folder: Path) -> Harness:
    return _sqlite(folder / "vectors.sqlite", dimensions, persistent=True)


FACTORIES: dict[str, Factory] = {
    "vectorize-fake": vectorize_on_fake,
    "vectorize-fake-lagging-proxies": vectorize_on_lagging_fake,
    "local-sqlite-memory": sqlite_in_memory,
    "local-sqlite-file": sqlite_on_file,
}
PERSISTENT = ("local-sqlite-file",)


async def _run(factory: Factory, check: Callable, folder: Path) -> None:
    harness = await factory(DIMENSIONS, folder)
    try:
        await check(harness)
    finally:
        harness.close()


@pytest.mark.parametrize("check", CONTRACT_CHECKS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("name", FACTORIES)
async def test_vector_index_contract(name: str, check, tmp_path: Path) -> None:
    await _run(FACTORIES[name], check, tmp_path)


@pytest.mark.parametrize("check", PERSISTENCE_CHECKS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("name", PERSISTENT)
async def test_persistent_vector_index_contract(name: str, check, tmp_path: Path) -> None:
    await _run(FACTORIES[name], check, tmp_path)

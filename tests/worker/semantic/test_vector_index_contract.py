"""The shared VectorIndex contract, run on every adapter factory below. The local SQLite
index joins by appending its factory to FACTORIES."""

from __future__ import annotations

import pytest

from tests.worker.semantic.fake_vectorize import FakeVectorize
from tests.worker.semantic.vector_index_contract import CONTRACT_CHECKS, Factory, Harness
from worker.semantic.vectorize import VectorizeIndex


async def vectorize_on_fake(dimensions: int) -> Harness:
    return Harness(VectorizeIndex(FakeVectorize(dimensions), dimensions), dimensions)


async def vectorize_on_lagging_fake(dimensions: int) -> Harness:
    """Mutations stay invisible until settled, as on real Vectorize; JS-proxy answers."""
    fake = FakeVectorize(dimensions, proxies=True, lag=True)

    async def settle() -> None:
        fake.process_mutations()

    return Harness(VectorizeIndex(fake, dimensions), dimensions, settle)


FACTORIES: dict[str, Factory] = {
    "vectorize-fake": vectorize_on_fake,
    "vectorize-fake-lagging-proxies": vectorize_on_lagging_fake,
}


@pytest.mark.parametrize("check", CONTRACT_CHECKS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("factory", FACTORIES.values(), ids=FACTORIES.keys())
async def test_vector_index_contract(factory: Factory, check) -> None:
    harness = await factory(8)
    await check(harness)

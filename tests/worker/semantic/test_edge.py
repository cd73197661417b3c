"""Building the edge adapters from the Worker's bindings."""

from __future__ import annotations

import pytest

from tests.worker.semantic.fake_vectorize import FakeVectorize
from tests.worker.semantic.fake_workers_ai import FakeWorkersAI
from worker.semantic.edge import edge_semantics
from worker.semantic.ports import SemanticError, VectorRecord
from worker.semantic.workers_ai import BGE_BASE


async def test_embeddings_flow_into_the_index_and_back() -> None:
    ai, vectors = FakeWorkersAI(), FakeVectorize(384)
    edge = edge_semantics(ai, vectors)
    assert edge.index.dimensions == edge.embedder.dimensions == 384
    texts = ["refund policy", "opening hours", "the weather"]
    embedded = await edge.embedder.embed(texts, "passage")
    await edge.index.upsert([VectorRecord(id=f"v{i}", values=v, metadata={"kind": "note"})
                             for i, v in enumerate(embedded)])
    [best, *_] = await edge.index.query(embedded[1], 3)
    assert best.id == "v1" and abs(best.score - 1.0) < 1e-9
    scores = await edge.reranker.rerank("opening hours", texts)
    assert max(range(3), key=scores.__getitem__) == 1


def test_the_index_dimension_follows_the_model() -> None:
    assert edge_semantics(object(), object(), BGE_BASE).index.dimensions == 768


@pytest.mark.parametrize(("ai", "vectors", "message"), [
    (None, object(), "binding named AI"),
    (object(), None, "binding named VECTORS"),
])
def test_a_missing_binding_is_named(ai: object, vectors: object, message: str) -> None:
    with pytest.raises(SemanticError, match=message):
        edge_semantics(ai, vectors)

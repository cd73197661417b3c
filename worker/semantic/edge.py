"""The edge's semantic adapters, built from the Worker's bindings: Workers AI (`AI`) for
embeddings and reranking, Vectorize (`VECTORS`) for the index. The index dimension follows
the embedding model, so the two cannot drift apart."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from worker.semantic.vectorize import VectorizeIndex
from worker.semantic.workers_ai import BGE_SMALL, EmbeddingModel, WorkersAIEmbedder
from worker.semantic.workers_ai_rerank import WorkersAIReranker


@dataclass(frozen=True)
class EdgeSemantics:
    embedder: WorkersAIEmbedder
    index: VectorizeIndex
    reranker: WorkersAIReranker


def edge_semantics(ai: Any, vectors: Any, model: EmbeddingModel = BGE_SMALL) -> EdgeSemantics:
    """Raises a SemanticError subclass naming the missing binding."""
    return EdgeSemantics(embedder=WorkersAIEmbedder(ai, model),
                         index=VectorizeIndex(vectors, model.dimensions),
                         reranker=WorkersAIReranker(ai))

"""The semantic side of a Runtime: an embedder, a vector index and (maybe) a reranker,
behind the ports. Built from the Worker's bindings at the edge, from the optional local
stack in `mallory serve`; absent when neither is there (recall is then lexical)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from worker.semantic.ports import Embedder, Reranker, SemanticError, VectorIndex
from worker.semantic.progress import IndexProgress


@dataclass(frozen=True)
class Semantics:
    embedder: Embedder
    index: VectorIndex
    reranker: Reranker | None = None
    source: str = "local"  # where the models run: "workers-ai", "openai", "local"
    progress: IndexProgress = field(default_factory=IndexProgress, compare=False)


def from_bindings(ai: Any, vectors: Any) -> Semantics | None:
    """Workers AI + Vectorize when both bindings exist; None otherwise."""
    if ai is None or vectors is None:
        return None
    from worker.semantic.edge import edge_semantics

    try:
        edge = edge_semantics(ai, vectors)
    except SemanticError:
        return None
    return Semantics(embedder=edge.embedder, index=edge.index, reranker=edge.reranker,
                     source="workers-ai")

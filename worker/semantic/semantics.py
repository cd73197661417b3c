"""The semantic side of a Runtime: an embedder, a vector index and (maybe) a reranker,
behind the ports. Built from the Worker's bindings at the edge, from the optional local
stack in `mallory serve`; absent when neither is there (recall is then lexical)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from worker.semantic.ports import Embedder, Reranker, SemanticError, VectorIndex
from worker.semantic.progress import IndexProgress

# The embedding call plus the vector query (they run beside the D1 batch, not after it).
# Workers AI answers bge-small in ~50-150 ms and Vectorize in ~30-80 ms; beyond this, the
# owner waits for nothing better than lexical recall.
SEMANTIC_BUDGET_S = 0.3
RERANK_BUDGET_S = 0.3


@dataclass(frozen=True)
class Semantics:
    embedder: Embedder
    index: VectorIndex
    reranker: Reranker | None = None
    source: str = "local"  # where the models run: "workers-ai", "openai", "local"
    # How long recall waits for the semantic list, and for the reranker, before it steps
    # down (worker/recall/modes.py); a benchmark that measures relevance, not latency,
    # gives itself more.
    budget_s: float = SEMANTIC_BUDGET_S
    rerank_budget_s: float = RERANK_BUDGET_S
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

"""The ports of semantic recall. Pure standard library, so they run in Python Workers.

    Embedder     texts → unit vectors          Workers AI · OpenAI-compatible · local ONNX
    VectorIndex  upsert / delete / query        Vectorize · local SQLite
    Reranker     (query, passages) → scores     Workers AI bge-reranker · local cross-encoder

Every adapter raises only the errors below, so recall can fall back to a cheaper mode
with a diagnostic code instead of failing the chat:

    SemanticError            (code "semantic_failed")
     ├── EmbedderError       (code "embedder_failed")  error, timeout, wrong dimension, NaN
     ├── VectorIndexError    (code "vectors_failed")   missing index, refused upsert/query
     └── RerankerError       (code "reranker_failed")
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

EmbedKind = Literal["query", "passage"]
MetadataValue = str | int | float | bool

# Vectorize refuses ids over 64 bytes (developers.cloudflare.com/vectorize/platform/limits).
MAX_VECTOR_ID_BYTES = 64


class SemanticError(Exception):
    code = "semantic_failed"


class EmbedderError(SemanticError):
    code = "embedder_failed"


class VectorIndexError(SemanticError):
    code = "vectors_failed"


class RerankerError(SemanticError):
    code = "reranker_failed"


@dataclass(frozen=True)
class VectorRecord:
    id: str
    values: Sequence[float]
    metadata: Mapping[str, MetadataValue] = field(default_factory=dict)


@dataclass(frozen=True)
class VectorMatch:
    id: str
    score: float  # cosine similarity: higher is closer
    metadata: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class VectorFilter:
    """Equality filters on indexed metadata; None means "any"."""

    kind: str | None = None
    vault: str | None = None

    def as_dict(self) -> dict[str, str]:
        return {k: v for k, v in (("kind", self.kind), ("vault", self.vault)) if v is not None}


class Embedder(Protocol):
    model: str  # the identity recorded beside the vectors; a change marks them stale
    dimensions: int
    max_batch: int  # texts per call

    async def embed(self, texts: Sequence[str], kind: EmbedKind) -> list[list[float]]: ...


class VectorIndex(Protocol):
    async def upsert(self, records: Sequence[VectorRecord]) -> None: ...

    async def delete(self, ids: Sequence[str]) -> None: ...

    async def query(self, vector: Sequence[float], top_k: int,
                    filter: VectorFilter | None = None) -> list[VectorMatch]: ...


class Reranker(Protocol):
    model: str

    async def rerank(self, query: str, passages: Sequence[str]) -> list[float]: ...


def vector_id(unit_key: str) -> str:
    """A stable id within Vectorize's 64-byte limit for any unit key (vault, path, section)."""
    return "v" + hashlib.sha256(unit_key.encode("utf-8")).hexdigest()[:40]


def checked_vectors(vectors: Any, expected: int, dimensions: int, who: str) -> list[list[float]]:
    """The embedder's answer as float lists, or EmbedderError naming what is wrong."""
    if not isinstance(vectors, list) or len(vectors) != expected:
        got = len(vectors) if isinstance(vectors, list) else type(vectors).__name__
        raise EmbedderError(f"{who} returned {got} vectors for {expected} texts")
    checked = []
    for i, vector in enumerate(vectors):
        if not isinstance(vector, list | tuple) or len(vector) != dimensions:
            size = len(vector) if isinstance(vector, list | tuple) else type(vector).__name__
            raise EmbedderError(f"{who} returned a vector of dimension {size} at {i}; "
                                f"the index expects {dimensions}")
        values = [float(v) for v in vector]
        if not all(math.isfinite(v) for v in values):
            raise EmbedderError(f"{who} returned a vector with NaN or infinity at {i}")
        checked.append(values)
    return checked

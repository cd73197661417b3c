"""Embeddings from Workers AI through the Worker's `AI` binding.

    await env.AI.run("@cf/baai/bge-small-en-v1.5", {"text": [...], "pooling": "cls"})
    → {"shape": [n, d], "data": [[...], ...], "pooling": "cls"}

Shapes from the model pages and the `Ai_Cf_Baai_Bge_*_Input/Output` types in
@cloudflare/workers-types: `text` is a string or an array of at most 100 non-empty strings;
`pooling` is "mean" (the default, kept for compatibility) or "cls" (recommended: "more
accurate embeddings on larger inputs"); the two are not compatible with each other.

Model choice — bge-small-en-v1.5 (384 dimensions) by default:
- quality: MTEB retrieval 51.68 small vs 53.25 base (BAAI model card), a 1.6-point gap that
  the lexical ranking and the reranker sit on top of;
- cost: 1841 vs 6058 neurons per million input tokens (Workers AI pricing), 3.3× cheaper,
  which matters when a full vault is re-embedded after a model change;
- storage and latency: half the floats per vector in Vectorize (billed by stored
  dimensions) and in every query;
- the local model (all-MiniLM-L6-v2) is 384-dimensional too, so local and edge indexes share
  one dimension and one schema.
bge-base stays one constructor argument away (BGE_BASE) for a later A/B on the judged set.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from worker.ffi import js_arg
from worker.semantic.embed_io import batches, checked_texts, for_kind, unit_vectors
from worker.semantic.js_results import error_detail, to_py
from worker.semantic.ports import EmbedderError, EmbedKind

# The BGE model card (FlagOpen/FlagEmbedding, "query instruction for retrieval") gives this
# prefix for short queries against passages in the English v1.5 models; passages go bare.
BGE_QUERY_INSTRUCTION = "Represent this sentence for searching relevant passages: "
# `maxItems: 100` on the `text` array in the bge-*-en-v1.5 input schema.
WORKERS_AI_MAX_BATCH = 100
# The BGE authors use the [CLS] state ("if you use mean pooling, there will be a significant
# decrease in performance"); Workers AI defaults to mean only for backward compatibility.
POOLING = "cls"


@dataclass(frozen=True)
class EmbeddingModel:
    name: str
    dimensions: int
    query_instruction: str


BGE_SMALL = EmbeddingModel("@cf/baai/bge-small-en-v1.5", 384, BGE_QUERY_INSTRUCTION)
BGE_BASE = EmbeddingModel("@cf/baai/bge-base-en-v1.5", 768, BGE_QUERY_INSTRUCTION)


class WorkersAIEmbedder:
    """Embedder over `env.AI`. Batches run one after another: an embedding call is short and
    a Worker may hold only six connections open at once."""

    max_batch = WORKERS_AI_MAX_BATCH

    def __init__(self, binding: Any, model: EmbeddingModel = BGE_SMALL) -> None:
        if binding is None:
            raise EmbedderError("Workers AI embeddings need an [ai] binding named AI; "
                                "check wrangler.toml")
        self._binding = binding
        self._spec = model
        # Pooling changes every stored vector, so it is part of the recorded identity.
        self.model = f"{model.name}?pooling={POOLING}"
        self.dimensions = model.dimensions

    async def embed(self, texts: Sequence[str], kind: EmbedKind) -> list[list[float]]:
        who = f"Workers AI {self._spec.name}"
        prepared = for_kind(checked_texts(texts, who), kind, self._spec.query_instruction)
        vectors: list[list[float]] = []
        for batch in batches(prepared, self.max_batch):
            vectors.extend(await self._embed_batch(batch, who))
        return vectors

    async def _embed_batch(self, batch: list[str], who: str) -> list[list[float]]:
        try:
            raw = await self._binding.run(self._spec.name, js_arg(
                self._binding, {"text": batch, "pooling": POOLING}))
        except Exception as exc:  # pyodide.ffi.JsException carries the AI error text
            raise EmbedderError(f"{who} failed: {error_detail(exc)}") from exc
        answer = to_py(raw)
        if not isinstance(answer, dict) or "data" not in answer:
            raise EmbedderError(f"{who} answered without embeddings (no `data` field)")
        _check_envelope(answer, len(batch), self.dimensions, who)
        return unit_vectors(answer["data"], len(batch), self.dimensions, who)


def _check_envelope(answer: dict[str, Any], count: int, dimensions: int, who: str) -> None:
    """`shape` and `pooling` are optional in the schema; when present they must agree."""
    shape = answer.get("shape")
    if shape is not None and shape != [count, dimensions]:
        raise EmbedderError(f"{who} answered with shape {shape}; expected "
                            f"[{count}, {dimensions}]")
    pooling = answer.get("pooling")
    if pooling is not None and pooling != POOLING:
        raise EmbedderError(f"{who} pooled with {pooling!r}, not {POOLING!r}; those "
                            "vectors do not compare with the stored ones")

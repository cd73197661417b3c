"""A stand-in for the `AI` binding that answers the bge embedding models and the bge
reranker exactly in their documented shapes (Workers AI model pages; the
`Ai_Cf_Baai_Bge_*` and `Ai_Cf_Baai_Bge_Reranker_Base_*` types in @cloudflare/workers-types),
and refuses inputs their JSON schemas refuse. Vectors are deterministic per (text, pooling),
so a test can compare a batched answer with single ones."""

from __future__ import annotations

import hashlib
import math
import struct
from collections.abc import Callable
from typing import Any

from tests.worker.semantic.js_standins import JsException, JsProxy, refuse_tuples

EMBEDDING_DIMENSIONS = {"@cf/baai/bge-small-en-v1.5": 384, "@cf/baai/bge-base-en-v1.5": 768}
RERANKER = "@cf/baai/bge-reranker-base"
MAX_TEXTS = 100  # `maxItems` of the `text` array


def fake_vector(text: str, pooling: str, dimensions: int) -> list[float]:
    """Deterministic, not normalised (so the adapter's normalising is visible)."""
    out: list[float] = []
    counter = 0
    while len(out) < dimensions:
        digest = hashlib.sha256(f"{pooling}|{counter}|{text}".encode()).digest()
        out.extend(v / 2**31 for v in struct.unpack("<8i", digest))
        counter += 1
    return [3.0 * v for v in out[:dimensions]]


def overlap_score(query: str, text: str) -> float:
    """A relevance stand-in: shared words, as a logit-like number."""
    q, t = set(query.lower().split()), set(text.lower().split())
    return len(q & t) - 0.01 * len(t)


class FakeWorkersAI:
    def __init__(self, *, proxies: bool = False, error: Exception | None = None,
                 answer: Callable[[str, dict[str, Any]], Any] | None = None) -> None:
        self.proxies, self.error, self.answer = proxies, error, answer
        self.calls: list[tuple[str, dict[str, Any]]] = []

    async def run(self, model: str, inputs: dict[str, Any]) -> Any:
        refuse_tuples(inputs, "AI.run")
        self.calls.append((model, inputs))
        if self.error is not None:
            raise self.error
        if self.answer is not None:
            result = self.answer(model, inputs)
        elif model in EMBEDDING_DIMENSIONS:
            result = self._embed(model, inputs)
        elif model == RERANKER:
            result = self._rerank(inputs)
        else:
            raise JsException(f"AiError: No such model {model} or task")
        return JsProxy(result) if self.proxies else result

    def _embed(self, model: str, inputs: dict[str, Any]) -> dict[str, Any]:
        text = inputs.get("text")
        texts = [text] if isinstance(text, str) else text
        pooling = inputs.get("pooling", "mean")
        if not isinstance(texts, list) or not 1 <= len(texts) <= MAX_TEXTS \
                or not all(isinstance(t, str) and t for t in texts) \
                or pooling not in ("mean", "cls"):
            raise JsException("AiError: 5006: Error: oneOf at '/text' not met")
        dims = EMBEDDING_DIMENSIONS[model]
        return {"shape": [len(texts), dims], "pooling": pooling,
                "data": [fake_vector(t, pooling, dims) for t in texts]}

    def _rerank(self, inputs: dict[str, Any]) -> dict[str, Any]:
        query, contexts, top_k = inputs.get("query"), inputs.get("contexts"), inputs.get("top_k")
        if not isinstance(query, str) or not query or not isinstance(contexts, list) \
                or not all(isinstance(c, dict) and isinstance(c.get("text"), str) and c["text"]
                           for c in contexts) \
                or (top_k is not None and (not isinstance(top_k, int) or top_k < 1)):
            raise JsException("AiError: 5006: Error: required properties at '/' are 'query', "
                              "'contexts'")
        ranked = sorted(({"id": i, "score": overlap_score(query, c["text"])}
                         for i, c in enumerate(contexts)), key=lambda r: -r["score"])
        return {"response": ranked[:top_k] if top_k else ranked}


def norm(vector: list[float]) -> float:
    return math.hypot(*vector)

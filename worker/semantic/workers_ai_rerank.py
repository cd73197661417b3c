"""Reranking with Workers AI's cross-encoder through the Worker's `AI` binding.

    await env.AI.run("@cf/baai/bge-reranker-base",
                     {"query": q, "contexts": [{"text": p}, ...], "top_k": n})
    → {"response": [{"id": <index into contexts>, "score": <number>}, ...]}

Shapes from the model page (developers.cloudflare.com/workers-ai/models/bge-reranker-base):
`query` and each context `text` are strings of at least one character; `top_k` (≥ 1) is the
"number of returned results starting with the best score", so it is set to the number of
contexts to get a score for every passage. The answer is ordered by score; this adapter
puts the scores back in input order.

The page says the score "can be mapped to a float value in [0,1] by sigmoid", so treat it
as a relevance order, not a calibrated probability. A blank passage is not sent (the
schema refuses empty text) and scores minus infinity: it ranks below everything.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from worker.ffi import js_arg
from worker.semantic.embed_io import batches
from worker.semantic.js_results import error_detail, to_py
from worker.semantic.ports import RerankerError

RERANKER_MODEL = "@cf/baai/bge-reranker-base"
# The schema sets no limit on `contexts`; 100 per call mirrors the embedding models'
# documented `maxItems` and keeps one call's work bounded. Cross-encoder scores are per
# (query, passage) pair, so splitting a list changes no score.
RERANK_MAX_BATCH = 100
BLANK_PASSAGE_SCORE = -math.inf


class WorkersAIReranker:
    def __init__(self, binding: Any, model: str = RERANKER_MODEL) -> None:
        if binding is None:
            raise RerankerError("Workers AI reranking needs an [ai] binding named AI; "
                                "check wrangler.toml")
        self._binding = binding
        self.model = model

    async def rerank(self, query: str, passages: Sequence[str]) -> list[float]:
        if not isinstance(query, str) or not query.strip():
            raise RerankerError("the reranker needs a non-empty query")
        if isinstance(passages, str):
            raise RerankerError("the reranker takes a list of passages, not one string")
        for i, passage in enumerate(passages):
            if not isinstance(passage, str):
                raise RerankerError(f"passage {i} is a {type(passage).__name__}, not a string")
        scores = [BLANK_PASSAGE_SCORE] * len(passages)
        sent = [i for i, p in enumerate(passages) if p.strip()]
        for chunk in batches(sent, RERANK_MAX_BATCH):
            chunk_scores = await self._score(query, [passages[i] for i in chunk])
            for i, score in zip(chunk, chunk_scores, strict=True):
                scores[i] = score
        return scores

    async def _score(self, query: str, passages: list[str]) -> list[float]:
        payload = {"query": query, "contexts": [{"text": p} for p in passages],
                   "top_k": len(passages)}
        try:
            raw = await self._binding.run(self.model, js_arg(self._binding, payload))
        except Exception as exc:  # pyodide.ffi.JsException carries the AI error text
            raise RerankerError(f"Workers AI {self.model} failed: {error_detail(exc)}") from exc
        return _scores_in_input_order(to_py(raw), len(passages), self.model)


def _scores_in_input_order(answer: Any, count: int, model: str) -> list[float]:
    who = f"Workers AI {model}"
    ranked = answer.get("response") if isinstance(answer, dict) else None
    if not isinstance(ranked, list):
        raise RerankerError(f"{who} answered without a `response` list")
    scores: dict[int, float] = {}
    for item in ranked:
        ident = item.get("id") if isinstance(item, dict) else None
        score = item.get("score") if isinstance(item, dict) else None
        if not isinstance(ident, int) or isinstance(ident, bool) or not 0 <= ident < count:
            raise RerankerError(f"{who} answered with context id {ident!r}; "
                                f"expected 0..{count - 1}")
        if not isinstance(score, int | float) or isinstance(score, bool) \
                or not math.isfinite(score):
            raise RerankerError(f"{who} answered with score {score!r} for context {ident}")
        if ident in scores:
            raise RerankerError(f"{who} scored context {ident} twice")
        scores[ident] = float(score)
    if len(scores) != count:
        missing = sorted(set(range(count)) - scores.keys())
        raise RerankerError(f"{who} left contexts {missing[:10]} unscored")
    return [scores[i] for i in range(count)]

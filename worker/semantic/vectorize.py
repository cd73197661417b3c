"""VectorIndex over a Cloudflare Vectorize (V2) index, through the Worker's binding.

    await env.VECTORS.upsert([{"id", "values", "metadata"?}, …])  → {"mutationId": …}
    await env.VECTORS.deleteByIds([id, …])                        → {"mutationId": …}
    await env.VECTORS.query(vector, {"topK", "returnValues", "returnMetadata", "filter"})
        → {"count": n, "matches": [{"id", "score", "metadata"?}, …]}

Shapes from developers.cloudflare.com/vectorize/reference/client-api and the `Vectorize`
class in @cloudflare/workers-types. Mutations are asynchronous: the call returns once
Vectorize has accepted the change, and it "typically takes a few seconds" to show up in
queries. Nothing here waits for it; callers must not read their own writes at once.
An upsert replaces a vector in full (values and metadata are not merged).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from worker.ffi import js_arg
from worker.semantic.embed_io import batches
from worker.semantic.js_results import error_detail, to_py
from worker.semantic.ports import VectorFilter, VectorIndexError, VectorMatch, VectorRecord
from worker.semantic.vectorize_limits import (
    MAX_DELETE_BATCH,
    MAX_DIMENSIONS,
    MAX_UPSERT_BATCH,
    check_id,
    check_values,
    query_options,
    record_payload,
)


class VectorizeIndex:
    def __init__(self, binding: Any, dimensions: int) -> None:
        if binding is None:
            raise VectorIndexError("semantic recall at the edge needs a [[vectorize]] binding "
                                   "named VECTORS; see README 'Semantic recall at the edge'")
        if not 1 <= dimensions <= MAX_DIMENSIONS:
            raise VectorIndexError(f"Vectorize indexes hold 1 to {MAX_DIMENSIONS} dimensions, "
                                   f"not {dimensions}")
        self._binding = binding
        self.dimensions = dimensions

    async def upsert(self, records: Sequence[VectorRecord]) -> None:
        # Check every record before sending any, and keep the last record per id so that
        # chunk boundaries cannot reorder two writes of one vector.
        payloads = {p["id"]: p for p in (record_payload(r, self.dimensions) for r in records)}
        await self._mutate("upsert", list(payloads.values()), MAX_UPSERT_BATCH)

    async def delete(self, ids: Sequence[str]) -> None:
        if isinstance(ids, str):
            raise VectorIndexError("delete takes a list of vector ids, not one string")
        unique = list(dict.fromkeys(check_id(i) for i in ids))
        await self._mutate("deleteByIds", unique, MAX_DELETE_BATCH)

    async def query(self, vector: Sequence[float], top_k: int,
                    filter: VectorFilter | None = None) -> list[VectorMatch]:
        values = check_values(vector, self.dimensions, "the query vector")
        if not isinstance(top_k, int) or isinstance(top_k, bool):
            raise VectorIndexError(f"top_k must be a whole number, not {top_k!r}")
        if top_k < 1:
            return []
        options = query_options(top_k, filter)
        try:
            raw = await self._binding.query(js_arg(self._binding, values),
                                            js_arg(self._binding, options))
        except Exception as exc:  # pyodide.ffi.JsException carries Vectorize's message
            raise VectorIndexError(f"Vectorize query failed: {error_detail(exc)}") from exc
        return _matches(to_py(raw), options["topK"])

    async def _mutate(self, method: str, items: list[Any], size: int) -> None:
        done = 0
        for chunk in batches(items, size):
            try:
                await getattr(self._binding, method)(js_arg(self._binding, chunk))
            except Exception as exc:
                accepted = f"; {done} of {len(items)} were accepted before" if done else ""
                raise VectorIndexError(f"Vectorize {method} failed: {error_detail(exc)}"
                                       f"{accepted} (the operation is idempotent: retry it "
                                       "whole)") from exc
            done += len(chunk)


def _matches(answer: Any, top_k: int) -> list[VectorMatch]:
    found = answer.get("matches") if isinstance(answer, dict) else None
    if not isinstance(found, list):
        raise VectorIndexError("Vectorize answered a query without a `matches` list")
    matches = []
    for item in found:
        ident = item.get("id") if isinstance(item, dict) else None
        score = item.get("score") if isinstance(item, dict) else None
        if not isinstance(ident, str) or not isinstance(score, int | float) \
                or isinstance(score, bool) or not math.isfinite(score):
            raise VectorIndexError("Vectorize answered a match without a string id and a "
                                   "finite score")
        metadata = item.get("metadata") or {}
        if not isinstance(metadata, dict):
            raise VectorIndexError(f"Vectorize answered match {ident} with metadata that is "
                                   "not an object")
        matches.append(VectorMatch(id=ident, score=float(score), metadata=metadata))
    # Vectorize returns best first; sorting again costs nothing and makes it a guarantee.
    matches.sort(key=lambda m: m.score, reverse=True)
    return matches[:top_k]

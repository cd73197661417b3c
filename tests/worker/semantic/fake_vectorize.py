"""An in-memory stand-in for a Vectorize (V2) binding with the documented semantics:

- `upsert(vectors)` / `deleteByIds(ids)` return `{"mutationId": …}`; with `lag=True` they
  are queued and only become visible after `process_mutations()` ("typically takes a few
  seconds");
- an upsert replaces a vector in full; `insert` is not modelled (the adapter never uses it);
- `query(vector, options)` returns `{"count", "matches": [{"id", "score", "metadata"?,
  "values"?}]}` best first by cosine similarity; `topK` defaults to 5, and is at most 100,
  or 20 when values or all metadata are returned;
- filters (`$eq $ne $in $nin`, or a bare value for `$eq`) apply before topK and see only
  properties that had a metadata index when the vector was written, each string cut to
  its first 64 bytes;
- limits from /vectorize/platform/limits: ids ≤ 64 bytes, metadata ≤ 10 KiB, ≤ 1000 vectors
  per upsert, values matching the index dimension.
Errors are raised as JsException with Vectorize-style text (the exact wording of real
errors is not documented)."""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from tests.worker.semantic.js_standins import JsException, JsProxy, refuse_tuples

MAX_ID_BYTES, MAX_METADATA_BYTES, MAX_BATCH = 64, 10 * 1024, 1000
MAX_TOP_K, MAX_TOP_K_WITH_DETAILS, DEFAULT_TOP_K = 100, 20, 5
INDEXED_PREFIX_BYTES = 64


@dataclass(frozen=True)
class Stored:
    values: list[float]
    metadata: dict[str, Any]
    indexed: dict[str, Any]  # what the metadata indexes saw when this vector was written


def _prefix(value: Any) -> Any:
    if isinstance(value, str):
        return value.encode()[:INDEXED_PREFIX_BYTES].decode(errors="ignore")
    return value


FILTER_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "$eq": lambda have, want: have == _prefix(want),
    "$ne": lambda have, want: have != _prefix(want),
    "$in": lambda have, want: have in [_prefix(w) for w in want],
    "$nin": lambda have, want: have not in [_prefix(w) for w in want],
}


def _cosine(a: list[float], b: list[float]) -> float:
    na, nb = math.hypot(*a), math.hypot(*b)
    return 0.0 if na == 0 or nb == 0 else sum(x * y for x, y in zip(a, b, strict=True)) / na / nb


class FakeVectorize:
    def __init__(self, dimensions: int, metadata_indexes: Iterable[str] = ("kind", "vault"), *,
                 proxies: bool = False, lag: bool = False) -> None:
        self.dimensions, self.proxies, self.lag = dimensions, proxies, lag
        self.metadata_indexes = set(metadata_indexes)
        self.vectors: dict[str, Stored] = {}
        self.pending: list[tuple[str, Any]] = []
        self.calls: list[tuple[str, Any]] = []
        self.fail: dict[str, int] = {}  # method → fail on its n-th call (1-based)
        self._ids = itertools.count(1)

    # -- test controls (not part of the binding) ---------------------------------------
    def create_metadata_index(self, prop: str) -> None:
        self.metadata_indexes.add(prop)

    def process_mutations(self) -> None:
        for kind, payload in self.pending:
            self._apply(kind, payload)
        self.pending.clear()

    # -- the binding --------------------------------------------------------------------
    async def upsert(self, vectors: Any) -> Any:
        self._called("upsert", vectors)
        if not isinstance(vectors, list) or len(vectors) > MAX_BATCH:
            raise JsException(f"VECTOR_UPSERT_ERROR: at most {MAX_BATCH} vectors per batch")
        return self._mutation("upsert", [self._stored(v) for v in vectors])

    async def deleteByIds(self, ids: Any) -> Any:
        self._called("deleteByIds", ids)
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise JsException("VECTOR_DELETE_ERROR: ids must be a list of strings")
        return self._mutation("delete", list(ids))

    async def query(self, vector: Any, options: Any = None) -> Any:
        self._called("query", vector, options)
        opts = dict(options or {})
        self._check_values(vector)
        top_k = opts.get("topK", DEFAULT_TOP_K)
        values, metadata = opts.get("returnValues", False), opts.get("returnMetadata", "none")
        if metadata not in (True, False, "all", "indexed", "none"):
            raise JsException(f"VECTOR_QUERY_ERROR: invalid returnMetadata {metadata!r}")
        detailed = values or metadata in (True, "all")
        limit = MAX_TOP_K_WITH_DETAILS if detailed else MAX_TOP_K
        if not isinstance(top_k, int) or isinstance(top_k, bool) or not 1 <= top_k <= limit:
            raise JsException(f"VECTOR_QUERY_ERROR: topK must be 1..{limit}, got {top_k!r}")
        where = opts.get("filter")
        if where is not None and (not isinstance(where, dict) or not where):
            raise JsException("VECTOR_QUERY_ERROR: filter must be a non-empty object")
        hits = [(i, s) for i, s in self.vectors.items() if self._passes(s, where or {})]
        hits.sort(key=lambda h: _cosine(vector, h[1].values), reverse=True)
        matches = [self._match(i, s, vector, values, metadata) for i, s in hits[:top_k]]
        return self._out({"count": len(matches), "matches": matches})

    # -- internals ----------------------------------------------------------------------
    def _called(self, method: str, *args: Any) -> None:
        refuse_tuples(list(args), f"Vectorize.{method}")
        self.calls.append((method, args[0] if len(args) == 1 else args))
        if self.fail.get(method) == sum(1 for m, _ in self.calls if m == method):
            raise JsException(f"VECTOR_{method.upper()}_ERROR: internal error")

    def _check_values(self, values: Any) -> None:
        if not isinstance(values, list) or len(values) != self.dimensions \
                or not all(isinstance(v, int | float) and math.isfinite(v) for v in values):
            raise JsException(f"VECTOR_ERROR: expected {self.dimensions} finite numbers")

    def _stored(self, vector: Any) -> tuple[str, Stored]:
        if not isinstance(vector, dict) or not isinstance(vector.get("id"), str):
            raise JsException("VECTOR_UPSERT_ERROR: each vector needs a string id")
        ident = vector["id"]
        if not ident or len(ident.encode()) > MAX_ID_BYTES:
            raise JsException(f"VECTOR_UPSERT_ERROR: id longer than {MAX_ID_BYTES} bytes")
        self._check_values(vector.get("values"))
        metadata = vector.get("metadata") or {}
        if len(json.dumps(metadata, separators=(",", ":")).encode()) > MAX_METADATA_BYTES:
            raise JsException("VECTOR_UPSERT_ERROR: metadata over 10 KiB")
        indexed = {k: _prefix(v) for k, v in metadata.items() if k in self.metadata_indexes}
        return ident, Stored([float(v) for v in vector["values"]], dict(metadata), indexed)

    def _mutation(self, kind: str, payload: Any) -> Any:
        if self.lag:
            self.pending.append((kind, payload))
        else:
            self._apply(kind, payload)
        return self._out({"mutationId": f"mutation-{next(self._ids)}"})

    def _apply(self, kind: str, payload: Any) -> None:
        if kind == "upsert":
            self.vectors.update(payload)
        else:
            for ident in payload:
                self.vectors.pop(ident, None)

    def _passes(self, stored: Stored, where: dict[str, Any]) -> bool:
        for key, cond in where.items():
            if key not in stored.indexed:
                return False
            have = stored.indexed[key]
            ops = cond if isinstance(cond, dict) else {"$eq": cond}
            for op, want in ops.items():
                if op not in FILTER_OPS:
                    raise JsException(f"VECTOR_QUERY_ERROR: unsupported operator {op}")
                if not FILTER_OPS[op](have, want):
                    return False
        return True

    def _match(self, ident: str, stored: Stored, vector: list[float], values: bool,
               metadata: Any) -> dict[str, Any]:
        match: dict[str, Any] = {"id": ident, "score": _cosine(vector, stored.values)}
        if values:
            match["values"] = list(stored.values)
        if metadata in (True, "all"):
            match["metadata"] = dict(stored.metadata)
        elif metadata == "indexed":
            match["metadata"] = dict(stored.indexed)
        return match

    def _out(self, value: Any) -> Any:
        return JsProxy(value) if self.proxies else value

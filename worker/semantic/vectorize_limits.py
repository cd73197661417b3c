"""Vectorize's documented limits, and the pure functions that check records and build the
binding's arguments before anything is sent.

Figures from developers.cloudflare.com/vectorize/platform/limits (V2 table) and
/vectorize/reference/metadata-filtering. Checking here means a bad record fails the whole
upsert with a message naming it, instead of Vectorize refusing a chunk half-way through.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import fields
from typing import Any

from worker.semantic.ports import (
    MAX_VECTOR_ID_BYTES,
    VectorFilter,
    VectorIndexError,
    VectorRecord,
)

MAX_DIMENSIONS = 1536
MAX_METADATA_BYTES = 10 * 1024
MAX_TOP_K = 100  # without values and metadata
MAX_TOP_K_WITH_METADATA = 20
MAX_UPSERT_BATCH = 1000  # from a Worker; the HTTP API takes 5000
# deleteByIds has no documented batch limit; the upsert figure keeps every call the same size.
MAX_DELETE_BATCH = MAX_UPSERT_BATCH
# A string metadata index holds only the first 64 bytes of each value, so two values that
# share those bytes would filter alike. Filtered properties are refused past that length.
MAX_INDEXED_STRING_BYTES = 64
# The properties that get a metadata index (README: `wrangler vectorize
# create-metadata-index`), which are exactly the fields VectorFilter can filter on.
FILTER_PROPERTIES = tuple(f.name for f in fields(VectorFilter))


def check_id(vector_id: Any) -> str:
    if not isinstance(vector_id, str) or not vector_id:
        raise VectorIndexError(f"vector id {vector_id!r} must be a non-empty string")
    size = len(vector_id.encode("utf-8"))
    if size > MAX_VECTOR_ID_BYTES:
        raise VectorIndexError(f"vector id {vector_id[:20]!r}… is {size} bytes; Vectorize "
                               f"allows {MAX_VECTOR_ID_BYTES}: derive ids with vector_id()")
    return vector_id


def check_values(values: Any, dimensions: int, what: str) -> list[float]:
    """A plain list of finite floats (the Workers SDK refuses tuples over RPC)."""
    if isinstance(values, str | bytes) or not isinstance(values, Sequence):
        raise VectorIndexError(f"{what} must be a list of numbers")
    if len(values) != dimensions:
        raise VectorIndexError(f"{what} has {len(values)} dimensions; the index has "
                               f"{dimensions}")
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        raise VectorIndexError(f"{what} holds a value that is not a number")
    floats = [float(v) for v in values]
    if not all(math.isfinite(v) for v in floats):
        raise VectorIndexError(f"{what} holds NaN or infinity")
    return floats


def check_metadata(metadata: Mapping[str, Any], what: str) -> dict[str, Any]:
    checked: dict[str, Any] = {}
    for key, value in metadata.items():
        if not isinstance(key, str) or not key or key.startswith("$") or "." in key \
                or '"' in key:
            raise VectorIndexError(f"{what}: metadata key {key!r} must be non-empty and "
                                   "hold no '.', '\"' or leading '$'")
        if isinstance(value, float) and not math.isfinite(value):
            raise VectorIndexError(f"{what}: metadata {key!r} is NaN or infinity")
        if not isinstance(value, str | int | float | bool):
            raise VectorIndexError(f"{what}: metadata {key!r} is a {type(value).__name__}; "
                                   "use a string, number or boolean")
        if key in FILTER_PROPERTIES:
            check_indexed_string(key, value, what)
        checked[key] = value
    size = len(json.dumps(checked, separators=(",", ":")).encode("utf-8"))
    if size > MAX_METADATA_BYTES:
        raise VectorIndexError(f"{what}: metadata is {size} bytes; Vectorize allows "
                               f"{MAX_METADATA_BYTES}")
    return checked


def check_indexed_string(key: str, value: Any, what: str) -> None:
    if not isinstance(value, str):
        raise VectorIndexError(f"{what}: {key!r} is filtered on as a string; got "
                               f"{type(value).__name__}")
    size = len(value.encode("utf-8"))
    if size > MAX_INDEXED_STRING_BYTES:
        raise VectorIndexError(f"{what}: {key!r} is {size} bytes; its metadata index holds "
                               f"only the first {MAX_INDEXED_STRING_BYTES}")


def record_payload(record: VectorRecord, dimensions: int) -> dict[str, Any]:
    vector_id = check_id(record.id)
    what = f"vector {vector_id}"
    payload: dict[str, Any] = {"id": vector_id,
                               "values": check_values(record.values, dimensions, what)}
    metadata = check_metadata(record.metadata, what)
    if metadata:
        payload["metadata"] = metadata
    return payload


def vectorize_filter(filter: VectorFilter | None) -> dict[str, dict[str, str]] | None:
    """`{"kind": {"$eq": …}, "vault": {"$eq": …}}`, or None: Vectorize wants a non-empty
    filter object or none at all."""
    wanted = filter.as_dict() if filter is not None else {}
    for key, value in wanted.items():
        check_indexed_string(key, value, "filter")
    return {key: {"$eq": value} for key, value in wanted.items()} or None


def query_options(top_k: int, filter: VectorFilter | None) -> dict[str, Any]:
    """Options for `query()`. top_k is an upper bound in the port, so a larger one is
    capped at Vectorize's MAX_TOP_K. Metadata comes back only when top_k fits Vectorize's
    lower limit for it (20); past that, matches carry ids and scores, which is all fusion
    needs, rather than cutting a 50-candidate pool down to 20."""
    top_k = min(top_k, MAX_TOP_K)
    options: dict[str, Any] = {
        "topK": top_k,
        "returnValues": False,
        "returnMetadata": "all" if top_k <= MAX_TOP_K_WITH_METADATA else "none",
    }
    where = vectorize_filter(filter)
    if where is not None:
        options["filter"] = where
    return options

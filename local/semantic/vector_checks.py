"""What the local vector index accepts: Vectorize's limits, so a local run refuses what
production would (developers.cloudflare.com/vectorize/platform/limits, docs/platform.md).
Pure functions; each refusal is a VectorIndexError naming the record, the field and the
limit, and a refused batch stores nothing."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from worker.semantic.ports import MAX_VECTOR_ID_BYTES, VectorIndexError, VectorRecord

MAX_UPSERT_BATCH = 1_000  # records per upsert from a Worker
MAX_TOP_K = 100  # Vectorize's topK ceiling (without returned values)
MAX_METADATA_BYTES = 10 * 1024  # per vector, as JSON
MAX_PROBLEMS_LISTED = 10
METADATA_TYPES = (str, int, float, bool)


@dataclass(frozen=True)
class CheckedRecord:
    id: str
    vector: np.ndarray  # float32, unit length
    metadata: dict[str, Any]
    metadata_json: str


def unit_vector(values: Any, dimensions: int) -> tuple[np.ndarray | None, str | None]:
    """The values as a float32 unit vector, or None and the reason they are not one."""
    if isinstance(values, str | bytes) or not isinstance(values, Sequence | np.ndarray):
        return None, f"values is {type(values).__name__}, not a sequence of floats"
    if len(values) != dimensions:
        return None, f"values has dimension {len(values)}; the index expects {dimensions}"
    try:
        vector = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        return None, "values holds something that is not a number"
    if not np.isfinite(vector).all():
        return None, "values holds NaN or infinity"
    norm = float(np.linalg.norm(vector))
    if norm == 0.0:
        return None, "values is the zero vector, which has no direction to compare"
    return (vector / norm).astype(np.float32), None


def _metadata_problem(metadata: Any) -> str | None:
    if not isinstance(metadata, Mapping):
        return f"metadata is {type(metadata).__name__}, not a mapping"
    for key, value in metadata.items():
        if not isinstance(key, str):
            return f"metadata key {key!r} is not a string"
        if not isinstance(value, METADATA_TYPES) or (
                isinstance(value, float) and not math.isfinite(value)):
            return f"metadata[{key!r}] is {value!r}; expected a string, number or bool"
    return None


def _id_problem(vector_id: Any) -> str | None:
    if not isinstance(vector_id, str) or not vector_id:
        return f"id {vector_id!r} is not a non-empty string"
    if len(vector_id.encode("utf-8")) > MAX_VECTOR_ID_BYTES:
        return f"id is over {MAX_VECTOR_ID_BYTES} bytes (use worker.semantic.ports.vector_id)"
    return None


def checked_records(records: Sequence[VectorRecord], dimensions: int) -> list[CheckedRecord]:
    """Every record checked; VectorIndexError listing each bad one (index, id, reason)."""
    if len(records) > MAX_UPSERT_BATCH:
        raise VectorIndexError(f"upsert of {len(records)} records; at most {MAX_UPSERT_BATCH} "
                               "per call")
    checked, problems = [], []
    for i, record in enumerate(records):
        if not isinstance(record, VectorRecord):
            problems.append(f"[{i}] is {type(record).__name__}, not a VectorRecord")
            continue
        problem = _id_problem(record.id) or _metadata_problem(record.metadata)
        vector, vector_problem = unit_vector(record.values, dimensions)
        text = "" if problem else json.dumps(dict(record.metadata), separators=(",", ":"),
                                             ensure_ascii=False)
        if not problem and len(text.encode("utf-8")) > MAX_METADATA_BYTES:
            problem = f"metadata is {len(text.encode('utf-8'))} bytes as JSON; at most " \
                      f"{MAX_METADATA_BYTES}"
        problem = problem or vector_problem
        if problem:
            problems.append(f"[{i}] {record.id!r}: {problem}")
        else:
            assert vector is not None  # unit_vector gives one whenever it finds no problem
            checked.append(CheckedRecord(record.id, vector, dict(record.metadata), text))
    if problems:
        shown = "; ".join(problems[:MAX_PROBLEMS_LISTED])
        more = f" (and {len(problems) - MAX_PROBLEMS_LISTED} more)" \
            if len(problems) > MAX_PROBLEMS_LISTED else ""
        raise VectorIndexError(f"upsert refused, nothing stored: {shown}{more}")
    return checked


def checked_ids(ids: Sequence[str]) -> list[str]:
    if isinstance(ids, str):
        raise VectorIndexError("delete takes a sequence of ids, not one string")
    problems = [f"[{i}] {p}" for i, v in enumerate(ids) if (p := _id_problem(v))]
    if problems:
        raise VectorIndexError(f"delete refused: {'; '.join(problems[:MAX_PROBLEMS_LISTED])}")
    return list(ids)


def checked_query(vector: Any, top_k: Any, dimensions: int) -> np.ndarray:
    if isinstance(top_k, bool) or not isinstance(top_k, int) or not 1 <= top_k <= MAX_TOP_K:
        raise VectorIndexError(f"top_k is {top_k!r}; expected an integer from 1 to {MAX_TOP_K}")
    unit, problem = unit_vector(vector, dimensions)
    if unit is None:
        raise VectorIndexError(f"query refused: {problem}")
    return unit

"""What every embedder adapter does around its provider call: check the texts going in,
split them into batches, prefix queries, and turn the answer into unit vectors or an
EmbedderError that says what was wrong."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Any, TypeVar

from worker.semantic.ports import EmbedderError, EmbedKind, checked_vectors

T = TypeVar("T")


def checked_texts(texts: Sequence[str], who: str) -> list[str]:
    """The texts as a list, or EmbedderError naming the first one a provider would refuse.
    Workers AI (`minLength: 1`) and OpenAI ("cannot be an empty string") both refuse empty
    input, and a blank text has nothing to embed."""
    if isinstance(texts, str):
        raise EmbedderError(f"{who} takes a list of texts, not one string")
    checked = list(texts)
    for i, text in enumerate(checked):
        if not isinstance(text, str):
            raise EmbedderError(f"text {i} for {who} is a {type(text).__name__}, not a string")
        if not text.strip():
            raise EmbedderError(f"text {i} for {who} is empty; leave blank units out")
    return checked


def for_kind(texts: Sequence[str], kind: EmbedKind, query_instruction: str) -> list[str]:
    """Queries carry the model's retrieval instruction; passages never do."""
    if kind == "query" and query_instruction:
        return [query_instruction + t for t in texts]
    return list(texts)


def batches(items: Sequence[T], size: int) -> Iterator[list[T]]:
    if size < 1:
        raise ValueError(f"batch size must be at least 1, not {size}")
    for start in range(0, len(items), size):
        yield list(items[start:start + size])


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def unit_vectors(raw: Any, expected: int, dimensions: int, who: str) -> list[list[float]]:
    """The provider's vectors, checked (count, dimension, numbers, finite) and scaled to
    length 1, so cosine similarity is a dot product for every index behind the port."""
    if isinstance(raw, list):
        # checked_vectors would let True or "0.5" through as floats and raise ValueError
        # (not EmbedderError) on "abc": refuse anything that is not a JSON number first.
        for i, vector in enumerate(raw):
            if isinstance(vector, list | tuple) and not all(_is_number(v) for v in vector):
                raise EmbedderError(f"{who} returned a non-numeric value in vector {i}")
    vectors = checked_vectors(raw, expected, dimensions, who)
    return [_unit(vector, i, who) for i, vector in enumerate(vectors)]


def _unit(vector: list[float], i: int, who: str) -> list[float]:
    norm = math.hypot(*vector)  # hypot does not overflow where a sum of squares would
    if norm == 0.0 or not math.isfinite(norm):
        raise EmbedderError(f"{who} returned a zero vector at {i}; it has no direction")
    return [v / norm for v in vector]

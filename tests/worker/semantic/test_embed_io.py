"""The helpers every embedder shares, on hand-built inputs."""

from __future__ import annotations

import math

import pytest

from worker.semantic.embed_io import batches, checked_texts, for_kind, unit_vectors
from worker.semantic.ports import EmbedderError


def test_batches_cover_everything_in_order() -> None:
    assert list(batches(list(range(7)), 3)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(batches([], 3)) == []
    with pytest.raises(ValueError, match="at least 1"):
        list(batches([1], 0))


def test_only_queries_get_the_instruction() -> None:
    assert for_kind(["a"], "query", "Q: ") == ["Q: a"]
    assert for_kind(["a"], "passage", "Q: ") == ["a"]
    assert for_kind(["a"], "query", "") == ["a"]


def test_checked_texts_names_the_bad_one() -> None:
    assert checked_texts(("a", "b"), "p") == ["a", "b"]
    with pytest.raises(EmbedderError, match="text 2 for p is empty"):
        checked_texts(["a", "b", "\n "], "p")
    with pytest.raises(EmbedderError, match="text 0 for p is a bytes"):
        checked_texts([b"a"], "p")  # type: ignore[list-item]  # the bad input is the point


def test_unit_vectors_scale_to_length_one_without_overflow() -> None:
    assert unit_vectors([[3, 4]], 1, 2, "p") == [[0.6, 0.8]]
    [big] = unit_vectors([[1e200, 1e200]], 1, 2, "p")  # a sum of squares would overflow
    assert math.isclose(big[0], math.sqrt(0.5))


@pytest.mark.parametrize(("raw", "message"), [
    ([[1, None]], "non-numeric value in vector 0"),
    ([[1, 0], ["abc", 1]], "non-numeric value in vector 1"),
    ([[False, 1]], "non-numeric"),
    ([[0, 0]], "zero vector at 0"),
    ([[1, math.nan]], "NaN or infinity at 0"),
    ([[1, 2, 3]], "dimension 3 at 0"),
    ([[1, 2], [1, 2]], "returned 2 vectors for 1 texts"),
    ({"data": [[1, 2]]}, "returned dict vectors"),
])
def test_unit_vectors_refuse_what_is_not_a_vector(raw: object, message: str) -> None:
    with pytest.raises(EmbedderError, match=message):
        unit_vectors(raw, 1, 2, "p")

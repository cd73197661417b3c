"""Splitting text into units: limits, boundaries, overlap, tiny tails."""

from __future__ import annotations

import itertools
import re

from hypothesis import given
from hypothesis import strategies as st

from shared.text.chunking import (
    MAX_UNIT_CHARS,
    MIN_UNIT_CHARS,
    OVERLAP_CHARS,
    _cut,
    split_spans,
    split_text,
)


def paragraphs(n: int, size: int) -> str:
    return "\n\n".join(f"Paragraph {i}. " + "word " * (size // 5) for i in range(n))


def test_short_text_is_one_part_and_blank_text_none() -> None:
    assert split_text("A short note.") == ["A short note."]
    assert split_text("  \n\n ") == []


def test_long_text_is_cut_at_paragraph_boundaries() -> None:
    parts = split_text(paragraphs(8, 600))
    assert len(parts) > 1
    assert all(len(p) <= MAX_UNIT_CHARS for p in parts)
    assert all(p.startswith("Paragraph") or p.split()[0] == "word" for p in parts)


def test_consecutive_parts_overlap() -> None:
    text = " ".join(f"w{i}" for i in range(2_000))
    parts = split_text(text)
    for first, second in itertools.pairwise(parts):
        tail = first[-OVERLAP_CHARS // 2:].split()[-1]
        assert tail in second[:OVERLAP_CHARS + 20]


def test_a_one_megabyte_paragraph_is_split_without_separators() -> None:
    parts = split_text("x" * 1_000_000)
    assert all(len(p) <= MAX_UNIT_CHARS for p in parts)
    assert sum(len(p) for p in parts) >= 1_000_000


def test_a_tiny_tail_joins_the_previous_part() -> None:
    text = "a" * 1_000 + "\n\n" + "b" * 600 + "\n\n" + "tail."
    parts = split_text(text)
    assert parts[-1].endswith("tail.") and len(parts[-1]) > MIN_UNIT_CHARS


@given(st.text(min_size=0, max_size=6_000))
def test_every_word_survives_and_parts_respect_the_limit(text: str) -> None:
    parts = split_text(text)
    assert all(0 < len(p) <= MAX_UNIT_CHARS for p in parts)
    joined = " ".join(parts)
    for word in text.split()[:50]:
        if len(word) <= MAX_UNIT_CHARS // 2:
            assert word in joined or any(word[:20] in p for p in parts)


@given(st.text(alphabet=st.sampled_from("ab \n.x"), min_size=0, max_size=8_000))
def test_spans_cover_every_non_blank_character_in_order(text: str) -> None:
    spans = split_spans(text)
    covered: set[int] = set()
    for s, e in spans:
        assert 0 <= s < e <= len(text) and e - s <= MAX_UNIT_CHARS
        assert not text[s].isspace() and not text[e - 1].isspace()
        covered.update(range(s, e))
    assert all(i in covered for i, c in enumerate(text) if not c.isspace())
    assert [s for s, _ in spans] == sorted(s for s, _ in spans)


def test_spans_of_a_slice_stay_inside_it() -> None:
    text = "head\n\n" + "word " * 800 + "\n\ntail"
    spans = split_spans(text, 6, len(text) - 6)
    assert spans[0][0] >= 6 and spans[-1][1] <= len(text) - 6


# The breaks as forward patterns, every match listed: what _cut's reversed searches replace.
_FORWARD_BREAKS = (re.compile(r"\n\s*\n"), re.compile(r"\n"), re.compile(r"(?<=[.!?])\s+"),
                   re.compile(r"\s+"))


def _reference_cut(text: str, start: int, limit: int) -> int:
    window_end = start + limit
    for pattern in _FORWARD_BREAKS:
        ends = [m.start() for m in pattern.finditer(text, start + limit // 2, window_end + 1)]
        if ends:
            return ends[-1]
    return window_end


@given(st.text(alphabet=st.sampled_from("ab.!? \n\t\r\x0b\x85\xa0\u2028"), max_size=300),
       st.integers(0, 320), st.integers(2, 200))
def test_the_cut_is_the_last_match_of_the_strongest_break(text: str, start: int,
                                                          limit: int) -> None:
    assert _cut(text, start, limit) == _reference_cut(text, start, limit)

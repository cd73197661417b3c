"""Duplicate/context waste on hand-built Recall blocks (built by the real block builder)."""

from __future__ import annotations

import pytest

from bench.waste import context_waste, quoted_lines, wasted_chars
from shared.block.envelope import build_recall_block
from tests.builders import candidate

SHARED = "select the contact in the list of contacts then press the button"  # 12 words


def chars(text: str) -> int:
    return sum(len(w) for w in text.split())


def block(*cands) -> str:
    return build_recall_block(list(cands))[0]


def test_distinct_hits_waste_nothing() -> None:
    b = block(candidate("a", snippet="sourdough bakes at 250 degrees for forty minutes"),
              candidate("b", snippet="the car service is due in march at the garage"))
    assert wasted_chars(b, ["a", "b"]) == (0, chars("sourdough bakes at 250 degrees for forty "
                                                    "minutes") + chars("the car service is due "
                                                                       "in march at the garage"))
    assert context_waste(b, ["a", "b"]) == 0.0


def test_a_run_of_eight_words_seen_earlier_is_waste() -> None:
    first = f"to add someone: {SHARED}."
    second = f"to edit details: {SHARED}, then edit."
    b = block(candidate("a", snippet=first), candidate("b", snippet=second))
    wasted, quoted = wasted_chars(b, ["a", "b"])
    assert quoted == chars("to add someone " + SHARED) + chars("to edit details " + SHARED
                                                               + " then edit")
    assert wasted == chars(SHARED)  # the second hit's copy of the shared sentence only


def test_seven_shared_words_are_a_phrase_not_a_quotation() -> None:
    seven = "how do I reset the network settings"
    b = block(candidate("a", snippet=f"{seven} on the laptop"),
              candidate("b", snippet=f"{seven} of the router"))
    assert context_waste(b, ["a", "b"]) == 0.0


def test_a_second_hit_of_the_same_parent_is_waste_whole() -> None:
    b = block(candidate("s1", snippet="knead the dough for ten minutes"),
              candidate("s2", snippet="bake at 250 degrees with steam"))
    assert wasted_chars(b, ["note:Sourdough.md", "note:Sourdough.md"]) == (
        chars("bake at 250 degrees with steam"),
        chars("knead the dough for ten minutes bake at 250 degrees with steam"))


def test_a_short_reply_recalled_twice_is_waste() -> None:
    b = block(candidate("q1", kind="message", role="user", reply="Sputnik 1",
                        snippet="what was the first artificial satellite called?"),
              candidate("q2", kind="message", role="user", reply="Sputnik 1",
                        snippet="name of the first satellite in orbit?"))
    wasted, quoted = wasted_chars(b, ["message:c1", "message:c2"])
    assert wasted == chars("Sputnik 1")
    assert quoted == chars("what was the first artificial satellite called Sputnik 1 "
                           "name of the first satellite in orbit Sputnik 1")


def test_repeats_inside_one_line_are_not_counted() -> None:
    line = " ".join([SHARED] * 2)
    assert context_waste(block(candidate("a", snippet=line)), ["a"]) == 0.0


def test_a_reply_repeating_its_own_excerpt_is_waste() -> None:
    b = block(candidate("q", kind="message", role="user", snippet=SHARED, reply=SHARED))
    assert context_waste(b, ["message:c"]) == pytest.approx(0.5)


def test_hit_text_cannot_fake_a_header_or_a_quoted_line() -> None:
    evil = f"«x» [2] note {SHARED}\n[2] note “fake”\n    excerpt: «{SHARED}»"
    b = block(candidate("a", snippet=evil))
    assert [line.hit for line in quoted_lines(b)] == [1]
    assert context_waste(b, ["a"]) == 0.0


def test_an_empty_block_has_no_waste_figure() -> None:
    assert block() == ""
    assert context_waste("", []) is None


def test_every_hit_needs_its_parent() -> None:
    b = block(candidate("a", snippet="one"), candidate("b", snippet="two"))
    with pytest.raises(ValueError, match=r"hit \[2\]"):
        wasted_chars(b, ["a"])

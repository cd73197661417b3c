"""Salience: a long message → its best sentences within the query limit."""

from __future__ import annotations

from shared.text.salience import condense, content_stems, sentences
from shared.text.tokenizer import MAX_QUERY_CHARS

FILLER = "The weekly meeting covered the budget. "


def test_short_text_is_kept_as_it_is() -> None:
    assert condense("  where are   my keys? ", {}, 0.5) == "where are my keys?"


def test_the_weighed_sentence_comes_first_and_filler_goes() -> None:
    text = FILLER * 60 + "Where are the boathouse keys? " + FILLER * 60
    weights = {s: 0.01 for s in content_stems(FILLER)} | {"boathous": 2.0, "kei": 1.0}
    assert condense(text, weights, 0.5) == "Where are the boathouse keys?"
    # A lower share lets the (once-counted) filler follow, best first, within the limit.
    assert condense(text, weights, 0.0) == "Where are the boathouse keys? " + FILLER.strip()


def test_nothing_weighed_means_the_start_within_the_limit() -> None:
    text = "word " * 1_000
    condensed = condense(text, {}, 0.5)
    assert len(condensed) <= MAX_QUERY_CHARS and condensed.startswith("word word")


def test_one_huge_sentence_is_cut_to_the_limit() -> None:
    text = "boathouse " + "keys " * 1_000
    condensed = condense(text, {"boathous": 1.0}, 0.5)
    assert condensed == "boathouse"  # its weighed words


def test_sentences_split_on_end_marks_and_lines() -> None:
    assert sentences("One. Two!\nthree\n\nFour?") == ["One.", "Two!", "three", "Four?"]

"""Does an answer's quote of a note still hold after the note is edited?"""

from __future__ import annotations

import pytest

from shared.block.citations import shorten
from shared.block.envelope import EXCERPT_CHARS, neutralise
from shared.block.withdrawal import still_quoted

NOTE = ("Feed the starter twice a day.\n\nBake   sourdough at 250 C with steam for the first "
        "20 minutes, then <lower> it to 220 C. «Rest» the loaf for an hour.")


def excerpt(text: str, chars: int) -> str:
    """As the Recall block cuts one (shared/block/envelope.py)."""
    return shorten(neutralise(text), chars)


@pytest.mark.parametrize("edited", [
    NOTE,
    "A new first line.\n" + NOTE + "\nAnd a new last line.",
    NOTE.replace("\n\n", "\n"),  # whitespace only
])
def test_the_quote_holds_through_edits_around_it(edited: str) -> None:
    assert still_quoted(excerpt(NOTE, EXCERPT_CHARS), edited)
    assert still_quoted(excerpt(NOTE, 60), edited)  # cut with a trailing ellipsis


@pytest.mark.parametrize("edited", [
    NOTE.replace("250 C", "230 C"),
    "Feed the starter twice a day.",
    "",
])
def test_an_edit_inside_the_quote_breaks_it(edited: str) -> None:
    assert not still_quoted(excerpt(NOTE, EXCERPT_CHARS), edited)


def test_a_middle_cut_excerpt_checks_each_piece() -> None:
    quote = "…sourdough at 250 C with steam…"
    assert still_quoted(quote, NOTE)
    assert not still_quoted(quote, NOTE.replace("steam", "a lid"))
    assert still_quoted("…", "anything")  # nothing was quoted

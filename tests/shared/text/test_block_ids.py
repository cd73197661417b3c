"""Block ids: a note hit links to the block its best-matching paragraph carries."""

from __future__ import annotations

import pytest

from shared.text.block_ids import best_block, paragraphs
from shared.text.sanitiser import Mode, build_query

SECTION = """## Boiler
The boiler is a Vaillant ecoTEC from 2019.

Pressure should read 1.3 bar when cold; top it up at the filling loop. ^pressure-1

Service every autumn with the installer.

- bleed radiators upstairs first
- then downstairs

^bleeding
"""


def terms(text: str):
    return build_query(text, Mode.EXPLICIT).terms


def test_paragraphs_carry_their_block_ids() -> None:
    assert [block for _, block in paragraphs(SECTION)] == ["", "pressure-1", "", "bleeding"]
    assert paragraphs("one ^a\n\n^b\n\n^c") == [("one ^a", "a"), ("^b", "b"), ("^c", "c")]


@pytest.mark.parametrize(("query", "block"), [
    ("what pressure should the boiler read", "pressure-1"),  # best paragraph has an id
    ("filling loop", "pressure-1"),
    ("bleed radiators", "bleeding"),  # an id on its own line after a list
    ("when is the boiler serviced by the installer", ""),  # best paragraph has none
    ("Vaillant", ""),
    ("nothing here matches", ""),
])
def test_the_best_matching_paragraph_decides(query: str, block: str) -> None:
    assert best_block(SECTION, terms(query)) == block


@pytest.mark.parametrize("text", [
    "caret inside^word is no id", "an id ^with_underscore is not Obsidian's",
    "mid ^abc sentence", "ends with a bare caret ^",
])
def test_what_is_not_a_block_id(text: str) -> None:
    assert paragraphs(text) == [(text, "")]
    assert best_block(text, terms(text)) == ""

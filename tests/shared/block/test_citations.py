"""Links, snippets and the citation guard."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from shared.api.wire import Source
from shared.block.citations import (
    encode_uri_component,
    guard_citations,
    message_href,
    note_href,
    strip_citations,
)


def test_obsidian_href_encodes_like_encode_uri_component() -> None:
    assert note_href("My Vault", "Projects/Q3 plan (draft).md") == \
        "obsidian://open?vault=My%20Vault&file=Projects%2FQ3%20plan%20(draft)"
    assert note_href("v", "a&b=c?#ü.md") == "obsidian://open?vault=v&file=a%26b%3Dc%3F%23%C3%BC"
    assert note_href("v", "it's ~*!.md") == "obsidian://open?vault=v&file=it's%20~*!"


def test_a_block_link_takes_the_caret_after_the_hash() -> None:
    """docs/design.md, "Links": the URI takes `file=Note%23Heading`, and `%23%5E` for a block."""
    assert note_href("V", "Home/Boiler.md", "Pressure") == \
        "obsidian://open?vault=V&file=Home%2FBoiler%23Pressure"
    assert note_href("V", "Home/Boiler.md", "Pressure", "abc123") == \
        "obsidian://open?vault=V&file=Home%2FBoiler%23%5Eabc123"
    assert note_href("V", "Boiler.md", block="x-1") == "obsidian://open?vault=V&file=Boiler%23%5Ex-1"


def test_every_ascii_character_encodes_as_quote_does() -> None:
    for code in range(128):
        text = f"a{chr(code)}/b {chr(code)}"
        assert encode_uri_component(text) == quote(text, safe="-_.!~*'()"), code
    assert encode_uri_component("Café/Été #1") == "Caf%C3%A9%2F%C3%89t%C3%A9%20%231"


def test_message_href() -> None:
    assert message_href("abc-123") == "/?msg=abc-123"
    assert message_href("a/b c") == "/?msg=a%2Fb%20c"


def _sources(*numbers: int) -> list[Source]:
    return [Source(n=n, kind="note", id=f"{n}.md", label=f"Note {n}", snippet="s",
                   href=f"obsidian://open?vault=v&file={n}") for n in numbers]


def test_fabricated_citations_are_removed() -> None:
    answer, cited = guard_citations("WAL helps [1]. Also see [7] and [2, 9].", _sources(1, 2))
    assert answer == "WAL helps [1]. Also see and [2]."
    assert [s.n for s in cited] == [1, 2]


def test_no_citations_means_no_sources() -> None:
    answer, cited = guard_citations("Nothing cited here.", _sources(1))
    assert (answer, cited) == ("Nothing cited here.", [])


def test_code_indexes_and_wiki_links_are_not_citations() -> None:
    answer, cited = guard_citations("x = arr[3] and [[Note]] and [[2]] [1]", _sources(1))
    assert answer == "x = arr[3] and [[Note]] and [[2]] [1]"
    assert [s.n for s in cited] == [1]


@pytest.mark.parametrize(("text", "expected"), [
    ("Bake it at 250 C [1].", "Bake it at 250 C."),
    ("Both [1][2], and again [3, 4]!", "Both, and again!"),
    ("keep arr[3], [[Wiki]] and [[3]] and [x]", "keep arr[3], [[Wiki]] and [[3]] and [x]"),
    ("no markers at all", "no markers at all"),
    ("[12] at the start", "at the start"),
])
def test_strip_citations_removes_every_marker_and_nothing_else(text: str, expected: str
                                                                ) -> None:
    assert strip_citations(text) == expected

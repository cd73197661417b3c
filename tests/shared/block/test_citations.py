"""Links, snippets and the citation guard."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shared.api.wire import Source
from shared.block.citations import (
    encode_uri_component,
    guard_citations,
    message_href,
    moved_to,
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


def test_adjacent_markers_are_each_guarded() -> None:
    """A marker right after another is a citation too: the invented [7] goes, the real
    [2] stays cited (and so in the footer)."""
    answer, cited = guard_citations("Two notes disagree [1][2]; an invented one [1][7].",
                                    _sources(1, 2))
    assert answer == "Two notes disagree [1][2]; an invented one [1]."
    assert [s.n for s in cited] == [1, 2]


def test_a_marker_right_after_a_wiki_link_is_a_citation() -> None:
    answer, cited = guard_citations("See [[Note]][7] and [[Other]][1].", _sources(1))
    assert answer == "See [[Note]] and [[Other]][1]."
    assert [s.n for s in cited] == [1]


def test_a_marker_after_a_stray_bracket_is_a_citation() -> None:
    """Hypothesis found these: only a word before a chain of [...] makes code."""
    assert guard_citations("][7] and [[0, 1] and (a)[7]", _sources(1))[0] == "] and [[1] and (a)"


def test_repeated_numbers_in_one_run_are_said_once() -> None:
    assert guard_citations("Yes [1][1, 1].", _sources(1))[0] == "Yes [1]."


# What the web client links (worker/static/messages.js renderContent), and the list form
# guard_citations reads.
_CLIENT_MARKER = re.compile(r"\[(\d{1,3})\]")
# A list marker is closed: "[12 , " (prose "[" then "12 ") is no marker, found by Hypothesis.
_LIST_MARKER = re.compile(r"\[\s*\d{1,3}\s*,[\d\s,]*\]")
_markers = st.lists(st.lists(st.integers(0, 12), min_size=1, max_size=3), min_size=1,
                    max_size=4).map(lambda run: "".join(
                        "[" + ", ".join(map(str, m)) + "]" for m in run))
# A marker glued to a word (arr[3], C[7]) reads as code and is kept: the prose pieces end
# in a space or punctuation, as prose before a citation does.
_prose = st.sampled_from(["Two notes disagree ", "an invented one ", "yes, ", "x ", "12 ",
                          "(", ")", "[", "]", "[[Note]]", "— ", "\n", "ok."])
_separators = st.sampled_from(["", " ", ", ", "; ", ". ", "\n"])


@given(pieces=st.lists(st.tuples(st.one_of(_markers, _prose), _separators), max_size=12),
       injected=st.sets(st.integers(1, 10), max_size=10))
def test_the_stored_answer_cites_only_injected_sources_and_the_footer_holds_them(
        pieces: list[tuple[str, str]], injected: set[int]) -> None:
    """For any prose and marker runs and any injected sources: every marker left in the
    answer names an injected source that the footer lists, and every injected source the
    model cited is in the footer."""
    text = "".join(piece + sep for piece, sep in pieces)
    answer, cited = guard_citations(text, _sources(*sorted(injected)))
    footer = {s.n for s in cited}
    assert footer <= injected
    left = {int(m.group(1)) for m in _CLIENT_MARKER.finditer(answer)
            if not answer[:m.start()].endswith("[")}
    assert left <= footer, (text, answer)
    assert not _LIST_MARKER.search(answer), (text, answer)
    asked = {int(n) for m in re.finditer(r"(?<!\[)\[(\d{1,3}(?:, \d{1,3})*)\](?!\])", text)
             for n in m.group(1).split(", ")}
    assert asked & injected <= footer, (text, answer)


_code = st.sampled_from(["arr[7]", "m[1][7]", "x[3, 4]", "[[7]]", "[[Note]]"])


@given(pieces=st.lists(st.one_of(_code, _markers), max_size=10),
       injected=st.sets(st.integers(1, 10), max_size=10))
def test_code_indexes_and_wiki_links_survive_any_neighbouring_markers(
        pieces: list[str], injected: set[int]) -> None:
    answer, _ = guard_citations(" ".join(pieces), _sources(*sorted(injected)))
    for token in {p for p in pieces if p[0] != "[" or p.startswith("[[")}:
        assert answer.count(token) >= sum(p == token for p in pieces), (pieces, answer)


def test_a_moved_notes_link_opens_its_new_path_at_the_same_place() -> None:
    old = note_href("Life", "Recipes/Sourdough.md")
    assert moved_to(old, "Life", "Recipes/Sourdough.md", "Archive/Bread.md") == note_href(
        "Life", "Archive/Bread.md")
    for heading, block in (("Method", ""), ("", "b1x9")):
        at = note_href("Home Vault", "Recipes/Sourdough.md", heading, block)
        assert moved_to(at, "New Name", "Recipes/Sourdough.md", "Archive/Bread.md") == \
            note_href("New Name", "Archive/Bread.md", heading, block)
    # A link that opens another file (whose name merely starts the same) is left alone.
    other = note_href("Life", "Recipes/Sourdough starter.md")
    assert moved_to(other, "Life", "Recipes/Sourdough.md", "Archive/Bread.md") == other
    assert moved_to("/?msg=m1", "Life", "Recipes/Sourdough.md", "Archive/Bread.md") == "/?msg=m1"

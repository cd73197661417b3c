"""Snippets cut in Python around the query's words."""

from __future__ import annotations

from shared.text.matcher import highlighter
from shared.text.sanitiser import build_query
from shared.text.snippets import SEARCH_SNIPPET_CHARS as SNIPPET_CHARS
from shared.text.snippets import make_snippet


def marks(text: str):
    return highlighter(build_query(text).terms)


def test_window_centres_on_the_densest_matches() -> None:
    text = ("Intro words " * 40) + "Enabling WAL mode makes SQLite readers concurrent. " + \
        ("Outro words " * 40)
    snippet, spans = make_snippet(text, marks("enable wal mode sqlite"))
    assert snippet.startswith("…") and snippet.endswith("…")
    assert len(snippet) <= SNIPPET_CHARS + 2
    assert [snippet[a:b] for a, b in spans] == ["Enabling", "WAL", "mode", "SQLite"]


def test_stems_match_inflections_and_phrases() -> None:
    snippet, spans = make_snippet("Run heroku pg:pull to copy it; pulls are slow.",
                                  marks("heroku pg:pull"))
    assert [snippet[a:b] for a, b in spans] == ["heroku", "pg:pull"]


def test_no_match_returns_the_start() -> None:
    snippet, spans = make_snippet("short text here", marks("absent"))
    assert (snippet, spans) == ("short text here", [])


def test_words_are_not_matched_inside_other_words() -> None:
    _, spans = make_snippet("a reward for the award", marks("war"))
    assert spans == []

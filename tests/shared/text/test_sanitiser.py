"""The sanitiser: chat text → a safe FTS5 MATCH expression."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shared.api.errors import QueryTooLong
from shared.text.sanitiser import (
    _APOSTROPHE,
    _CHUNK,
    _CONTRACTION,
    Mode,
    _chunk_terms,
    _dropped,
    build_query,
)
from shared.text.tokenizer import MAX_QUERY_CHARS, normalize, tokens

HOSTILE = [
    '"', '""', '"unterminated', "'", "*", "**", "^", "-", "+", ":", "(", ")", "()", "(((",
    "AND", "OR", "NOT", "NEAR", "NEAR(a b, 2)", "a AND", "OR b", "NOT NOT", "col:value",
    "title:secret", "{title body}:x", "-excluded +required", "^start", "prefix*", "a*b*c",
    "a OR b AND NOT c", "\x00", "\x00nul\x00", "\u200b", "\ufeff", "🙂", "é", "ﬁ", "Ａｂｃ",
    "'; DROP TABLE vault_notes; --", "rowid:1", "vault_notes_fts:x", "\\", "\\\"",
    "\u202e evil", "NEAR/3", "a NEAR/3 b", "x" * 500, "\n\t\r", "   ", "",
]


@pytest.fixture(scope="module")
def fts() -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(title, body, "
                 "tokenize='porter unicode61 remove_diacritics 2')")
    conn.executemany("INSERT INTO t VALUES (?, ?)", [
        ("Enabling WAL mode", "PRAGMA journal_mode=wal makes SQLite readers concurrent"),
        ("pg:pull on Heroku", "heroku pg:pull copies a database down"),
        ("snake_case names", "use snake_case and dotted.names in paths/like/this.md"),
        ("Café notes", "the café serves crème brûlée"),
    ])
    yield conn
    conn.close()  # Python 3.13+ warns about an unclosed connection (an error here)


def search(conn: sqlite3.Connection, text: str, mode: Mode = Mode.EXPLICIT) -> list[int]:
    """Run text through the sanitiser into real FTS5. Over-long text is a clean refusal."""
    try:
        query = build_query(text, mode)
    except QueryTooLong:
        assert len(normalize(text)) > MAX_QUERY_CHARS
        return []
    if query.is_empty:
        return []
    return [r[0] for r in conn.execute(
        "SELECT rowid FROM t WHERE t MATCH ? ORDER BY bm25(t)", (query.match,)).fetchall()]


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_input_never_raises_in_real_fts5(fts: sqlite3.Connection, text: str) -> None:
    search(fts, text)
    search(fts, text, Mode.AUTOMATIC)


@settings(max_examples=400, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=300))
def test_random_unicode_never_raises_in_real_fts5(fts: sqlite3.Connection, text: str) -> None:
    search(fts, text)


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from([*HOSTILE, "wal", "sqlite", "pg", "snake_case", "*", '"']),
                max_size=12).map(" ".join))
def test_hostile_combinations_never_raise(fts: sqlite3.Connection, text: str) -> None:
    search(fts, text)


def test_fts5_syntax_is_inert() -> None:
    query = build_query('wal AND NOT sqlite* "journal')
    assert query.match == '"wal" OR "sqlite" OR "journal"*'


def test_identifiers_stay_whole_as_phrases(fts: sqlite3.Connection) -> None:
    assert build_query("snake_case").match == '"snake case"'
    assert '"pg pull"' in build_query("heroku pg:pull").match
    assert '"paths like this md"' in build_query("paths/like/this.md").match
    assert '"ctrl p"' in build_query("press Ctrl+P now").match
    assert '"v1 2 3"' in build_query("release v1.2.3 notes").match
    assert search(fts, "pg:pull") == [2]
    assert search(fts, "paths/like/this.md") == [3]


def test_tags_are_terms() -> None:
    assert '"project"' in build_query("notes tagged #project please").match


def test_stopwords_and_meta_words_are_dropped() -> None:
    assert build_query("what was that thing you told me about").is_empty
    assert build_query("the and of to").is_empty


def test_phatic_words_dropped_only_for_automatic_recall() -> None:
    assert build_query("thanks so much!", Mode.AUTOMATIC).is_empty
    assert build_query("hi there!", Mode.AUTOMATIC).is_empty
    assert not build_query("thanks", Mode.EXPLICIT).is_empty


def test_prefix_only_on_last_word_typed_midword_in_explicit_mode() -> None:
    assert build_query("enabling wal mo").match.endswith('"mo"')  # too short to prefix
    assert build_query("enabling wal mod").match.endswith('"mod"*')
    assert build_query("enabling wal mode?").match.endswith('"mode"')
    assert build_query("enabling wal mode", Mode.AUTOMATIC).match.endswith('"mode"')


def test_terms_are_unique_and_ored() -> None:
    assert build_query("sqlite SQLite sqlite wal").match == '"sqlite" OR "wal"*'


def test_stems_are_the_set_of_its_terms_stems() -> None:
    query = build_query("Kitchen renovations, renovating pg:pull", Mode.AUTOMATIC)
    assert query.stems == {("kitchen",), ("renov",), ("pg", "pull")}
    assert query.stems == frozenset(t.stems for t in query.terms)


def test_diacritics_fold(fts: sqlite3.Connection) -> None:
    assert search(fts, "cafe creme") == [4]
    assert search(fts, "café") == [4]


def test_normalisation() -> None:
    assert normalize("  a\u00a0\tb\n\nc  ") == "a b c"
    assert normalize("ﬁle") == "file"


def test_over_long_text_is_a_clear_error() -> None:
    with pytest.raises(QueryTooLong, match="2000"):
        build_query("word " * (MAX_QUERY_CHARS // 4))
    build_query("w" * MAX_QUERY_CHARS)  # exactly at the limit is fine


def _general_chunk_terms(chunk: str, mode: Mode) -> list[tuple[str, ...]]:
    """The chunk steps without the plain-word shortcut, as they were before it."""
    if chunk[0] in "#@":
        words = tokens(chunk)
        return [tuple(words)] if words else []
    words = tokens(_APOSTROPHE.sub("", _CONTRACTION.sub("", chunk)))
    if len(words) > 1:
        return [tuple(words)]
    return [(w,) for w in words if not _dropped(w, mode, frozenset())]


@settings(max_examples=200)
@given(st.text(alphabet=st.sampled_from("aZ09_'’#@.:-é ĀΣ"), min_size=1, max_size=12)
       | st.text(max_size=12))
def test_the_plain_word_shortcut_makes_what_the_general_steps_make(text: str) -> None:
    for chunk in [m.group(0) for m in _CHUNK.finditer(text)] + ["Kitchen", "THE", "a", "42"]:
        for mode in Mode:
            assert _chunk_terms(chunk, mode, frozenset()) == _general_chunk_terms(chunk, mode)

"""matched_terms: the one-scan matcher finds exactly what one pattern per term finds."""

from __future__ import annotations

import re
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from shared.text.matcher import (
    _is_match,
    matched_in_each,
    matched_terms,
    stem_prefix_only,
    term_pattern,
)
from shared.text.sanitiser import Mode, Term, build_query


def one_scan_per_term(terms: Sequence[Term], texts: Sequence[str]) -> frozenset[str]:
    """The matcher before the single scan: each term's own pattern over each text."""
    def term_in(term: Term) -> bool:
        pattern = re.compile(r"(?<![^\W_])" + term_pattern(term), re.IGNORECASE)
        return any(_is_match(term, m.group(0)) for text in texts if text
                   for m in pattern.finditer(text))
    return frozenset(t.fts for t in terms if term_in(t))


def terms_of(text: str) -> tuple[Term, ...]:
    return build_query(text, Mode.EXPLICIT).terms


def test_stems_prefixes_and_phrases_match_as_the_index_does() -> None:
    terms = terms_of("running pg:pull glacier ent")
    assert matched_terms(terms, ["She was running up the glacier."]) == {
        '"running"', '"glacier"'}
    assert matched_terms(terms, ["runner", "pg pull", "entirely"]) == {
        '"pg pull"', '"ent"*'}  # the word typed last is a prefix
    assert matched_terms(terms, ["", "nothing here"]) == frozenset()
    assert matched_terms((), ["running"]) == frozenset()


def test_a_word_a_shorter_term_ends_is_not_taken_from_a_longer_one() -> None:
    """'run' and 'runner' both start at "runners": each term judges its own match."""
    terms = terms_of("run runner.")
    assert matched_terms(terms, ["three runners"]) == {'"runner"'}
    assert matched_terms(terms, ["run_runners ran"]) == one_scan_per_term(
        terms, ["run_runners ran"])


WORDS = ["run", "running", "runner", "Glacier", "glaciers", "pg", "pull", "PG:pull", "café",
         "cafe", "x_y", "İstanbul", "ſun", "sun", "KELVIN", "kelvin", "éte", "été", "a",
         "the", "Ent", "entirely", "snake_case", "v1.2.3", "12", "1_2"]
SEPARATORS = [" ", "_", ":", ".", "-", "\n", "", "/"]
text_strategy = st.lists(st.tuples(st.sampled_from(WORDS), st.sampled_from(SEPARATORS)),
                         max_size=20).map(lambda parts: "".join(w + s for w, s in parts))


@settings(max_examples=400, deadline=None)
@given(query=st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join),
       texts=st.lists(text_strategy | st.text(max_size=40), max_size=4))
def test_the_single_scan_agrees_with_one_scan_per_term(query: str, texts: list[str]) -> None:
    terms = terms_of(query)
    assert matched_terms(terms, texts) == one_scan_per_term(terms, texts)


@settings(max_examples=200, deadline=None)
@given(query=st.lists(st.sampled_from(WORDS), min_size=1, max_size=5).map(" ".join),
       texts=st.lists(text_strategy | st.text(max_size=40), max_size=4))
def test_matching_each_text_apart_finds_what_matching_them_together_does(
        query: str, texts: list[str]) -> None:
    terms = terms_of(query)
    assert matched_in_each(terms, texts) == matched_terms(terms, texts)


def test_a_text_found_only_through_the_stem_of_the_word_typed_last() -> None:
    typed = terms_of("flat lease")
    assert stem_prefix_only(typed, typed, ["at least once"])
    assert not stem_prefix_only(typed, typed, ["we are leasing a van"])  # an inflection
    assert not stem_prefix_only(typed, typed, ["Leasehold papers"])  # starts as typed
    assert not stem_prefix_only(typed, typed, ["a flat, at least"])  # another term
    assert not stem_prefix_only(typed, typed, ["nothing of it here"])  # not this way
    assert not stem_prefix_only(terms_of("lease?"), terms_of("lease?"), ["at least"])
    assert not stem_prefix_only(terms_of("leas"), terms_of("leas"), ["at least"])  # typing
    assert stem_prefix_only(typed, typed, ["au moins: leastwise, éte"])  # not ASCII

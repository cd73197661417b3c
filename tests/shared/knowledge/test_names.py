"""A note's name keys: one per title, file name and alias, equal exactly when their sets
of query stems are (the identity check's old comparison, held here as the oracle), and
their stored form read back only by the version that wrote it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from shared.api.errors import QueryTooLong
from shared.knowledge.names import VERSION, holds, key_of, keys_of, name_key, read, stored
from shared.text.sanitiser import Mode, build_query

NAMES = ["Kitchen renovation", "kitchen Renovations", "The kitchen renovation", "Kitchen reno",
         "Crème brûlée", "creme brulee", "pg:pull", "pg pull", "snake_case notes",
         "Notes on snake case", "v1.2.3", "the", "", "  ", "Ünïcode Café", "unicode cafe",
         "2026-03-14 Daily", "Daily 2026 03 14", "Paths/like/this.md", "a b c d e f g"]


def stems(text: str) -> frozenset[tuple[str, ...]]:
    return frozenset(t.stems for t in build_query(text, Mode.AUTOMATIC).terms)


def test_two_names_share_a_key_exactly_when_their_stems_are_equal() -> None:
    # Every ordered pair in one test: 400 cases of microseconds each, where a parametrised
    # case costs pytest (and the Pyodide run) far more than the check.
    for a in NAMES:
        assert name_key(a) == key_of(stems(a)), a
        for b in NAMES:
            assert (name_key(a) == name_key(b)) is (stems(a) == stems(b)), (a, b)


def _oracle(name: str) -> str:
    """The key as recall's query side makes it: build_query's terms, stemmed."""
    try:
        return key_of(stems(name))
    except QueryTooLong:
        return ""


@settings(max_examples=200)
@given(st.text(alphabet=st.sampled_from("aB7_'’#@.:-/ éΣﬁ\t\n\x00"), max_size=40)
       | st.text(max_size=40))
def test_a_key_is_made_of_the_terms_build_query_makes(name: str) -> None:
    assert name_key(name) == _oracle(name)


def test_a_name_of_no_terms_has_no_key() -> None:
    assert keys_of(["the", "  ", "Kitchen\n\nthe\nreno"]) == {name_key("Kitchen"),
                                                             name_key("reno")}


def test_a_name_past_the_query_limit_once_normalised_has_no_key() -> None:
    title = "\ufdfa" * 500  # a 500-character title NFKC spells in 9,000 characters
    assert keys_of([title, "Kitchen"]) == {name_key("Kitchen")}


def test_the_stored_form_reads_back_for_its_version_only() -> None:
    text = stored(["Kitchen renovation", "Kitchen", "Kitchen reno\nreno"])
    assert text.split("\n")[0] == VERSION
    assert read(text) == keys_of(["Kitchen renovation", "Kitchen", "Kitchen reno\nreno"])
    assert read(stored(["the"])) == frozenset()  # keys were stored: there are none
    assert read(None) is None and read("") is None
    assert read(text.replace(VERSION, "names/0", 1)) is None  # another version's keys


def test_holds_answers_as_membership_of_the_keys_read() -> None:
    texts = [stored(NAMES), stored(["Kitchen renovation", "Kitchen"]), stored(["the"]),
             stored([]), None, "", stored(NAMES).replace(VERSION, "names/0", 1)]
    keys = [name_key(n) for n in NAMES] + ["", "kitchen", "renov", "kitchen\trenov"]
    for text in texts:
        held = read(text)
        for key in keys:
            assert holds(text, key) == (None if held is None else key in held), (text, key)

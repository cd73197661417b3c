"""The recall policies: the automatic gate and the explicit list."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from shared.rank.policy import (
    AUTOMATIC,
    COSINE_BARS,
    EXPLICIT,
    NAMES_MAX_TERMS,
    cosine_bar,
    lexical_pass_floor,
    names_only,
    passes,
    select,
)
from shared.rank.scoring import RECENCY_WEIGHT, idf
from tests.builders import candidate


def test_gate_drops_hits_under_the_relevance_floor() -> None:
    assert select([candidate("a", AUTOMATIC.min_relevance - 0.01)], AUTOMATIC) == []
    assert len(select([candidate("a", AUTOMATIC.min_relevance)], AUTOMATIC)) == 1


def test_gate_caps_the_number_of_hits() -> None:
    strong = [candidate(f"id{i}", 0.9) for i in range(10)]
    assert len(select(strong, AUTOMATIC)) == AUTOMATIC.max_hits


def test_gate_keeps_only_hits_near_the_best() -> None:
    mixed = [candidate("a", 0.9), candidate("b", 0.9 * AUTOMATIC.relative_floor - 0.01)]
    assert [c.identity.id for c in select(mixed, AUTOMATIC)] == ["a"]


def test_gate_never_trusts_a_spelling_guess_but_search_shows_it() -> None:
    guess = [candidate("a", 0.9, fuzzy=True)]
    assert select(guess, AUTOMATIC) == []
    assert [c.identity.id for c in select(guess, EXPLICIT)] == ["a"]


def test_one_hit_per_group_in_chat_every_exchange_in_search() -> None:
    same = [candidate(f"m{i}", 0.9 - i / 100, kind="message", group="conv") for i in range(3)]
    assert [c.identity.id for c in select(same, AUTOMATIC)] == ["m0"]
    assert [c.identity.id for c in select(same, EXPLICIT)] == ["m0", "m1", "m2"]
    sections = [candidate(f"s{i}", 0.9 - i / 100, group="note") for i in range(3)]
    assert [c.identity.id for c in select(sections, EXPLICIT)] == ["s0"]  # a note: its best section


def test_explicit_limit_and_no_floor() -> None:
    weak = [candidate(f"id{i}", 0.05) for i in range(30)]
    assert len(select(weak, EXPLICIT, limit=25)) == 25


MINILM = "local/all-MiniLM-L6-v2-int8@8199be6f699a.be50c3628f2b/t256"


def test_the_cosine_bar_is_looked_up_by_model_and_absent_for_unmeasured_models() -> None:
    assert cosine_bar(MINILM) is COSINE_BARS[0]
    assert cosine_bar("@cf/baai/bge-small-en-v1.5?pooling=cls") is None
    assert cosine_bar(None) is None


def test_with_a_bar_the_cosine_decides() -> None:
    bar = cosine_bar(MINILM)
    assert bar is not None
    similar = candidate("a", 0.0, cosine=bar.accept)  # vector-only, similar enough
    supported = candidate("b", AUTOMATIC.min_relevance, cosine=bar.support)
    unsupported = candidate("c", AUTOMATIC.min_relevance, cosine=bar.support - 0.01)
    strong_words_far_meaning = candidate("d", 0.9, cosine=bar.support - 0.01)
    for cand, ok in ((similar, True), (supported, True), (unsupported, False),
                     (strong_words_far_meaning, False)):
        assert passes(cand, AUTOMATIC, bar) is ok, cand.identity.id
    # without a bar the same hits are judged by their BM25 relevance alone
    assert passes(similar, AUTOMATIC, None) is False
    assert passes(strong_words_far_meaning, AUTOMATIC, None) is True


def test_a_hit_the_vectors_missed_needs_more_relevance_with_a_bar() -> None:
    bar = cosine_bar(MINILM)
    floor = AUTOMATIC.lexical_only_relevance
    assert passes(candidate("a", floor), AUTOMATIC, bar)
    assert not passes(candidate("b", floor - 0.01), AUTOMATIC, bar)
    assert passes(candidate("b", floor - 0.01), AUTOMATIC, None)


def test_names_only_wants_few_rare_terms() -> None:
    docs = {"notes": 1_000, "messages": 100}
    rare, common = idf(1_000, 2), idf(1_000, 300)
    assert names_only(['"700x28c"'], {"notes": {'"700x28c"': rare}}, docs)
    assert not names_only(['"tips"'], {"notes": {'"tips"': common}}, docs)
    many = [f'"w{i}"' for i in range(NAMES_MAX_TERMS + 1)]
    assert not names_only(many, {"notes": dict.fromkeys(many, rare)}, docs)
    assert not names_only([], {}, docs)
    # rare in the notes but common in the messages: not a name
    assert not names_only(['"nas"'], {"notes": {'"nas"': rare},
                                      "messages": {'"nas"': idf(100, 40)}}, docs)


@settings(max_examples=300, deadline=None)
@given(relevance=st.floats(0, 1), boost=st.floats(1, 1 + RECENCY_WEIGHT),
       standing=st.floats(AUTOMATIC.standing.floor, AUTOMATIC.standing.ceiling),
       fuzzy=st.booleans())
def test_a_hit_the_lexical_gate_passes_scores_at_least_its_floor(
        relevance: float, boost: float, standing: float, fuzzy: bool) -> None:
    """The lexical retriever skips rows below lexical_pass_floor: it must bound every
    candidate `passes` lets through, whatever its recency and standing."""
    cand = candidate("n", relevance, boost=boost, standing=standing, fuzzy=fuzzy)
    if passes(cand, AUTOMATIC, None):
        assert cand.scores.final >= lexical_pass_floor(AUTOMATIC)
    assert lexical_pass_floor(AUTOMATIC) > 0  # the automatic gate does skip rows

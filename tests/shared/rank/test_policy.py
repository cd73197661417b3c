"""The recall policies: the automatic gate and the explicit list."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from shared.rank.confidence import ConfidenceModel
from shared.rank.confidence_models import LEXICAL
from shared.rank.policy import (
    AUTOMATIC,
    EXPLICIT,
    Gauge,
    judge,
    lexical_pass_floor,
    select,
    verdict,
)
from shared.rank.scoring import RECENCY_WEIGHT
from shared.text.sanitiser import Mode, build_query
from tests.builders import candidate

# A model that reads relevance alone: P = 0.5 exactly at relevance 0.5.
BY_RELEVANCE = ConfidenceModel(name="test", model_prefixes=("test/",), bias=-5.0,
                               weights={"relevance": 10.0}, threshold=0.5,
                               related_floor=0.3)


def gauge(model: ConfidenceModel = BY_RELEVANCE, text: str = "some text") -> Gauge:
    return Gauge(model, build_query(text, Mode.AUTOMATIC).terms, {}, {})


def test_the_gate_injects_a_hit_whose_estimate_reaches_the_threshold() -> None:
    assert [c.identity.id for c in select([candidate("a", 0.5)], AUTOMATIC, gauge())] == ["a"]
    assert select([candidate("a", 0.49)], AUTOMATIC, gauge()) == []
    [decision] = judge([candidate("a", 0.49)], AUTOMATIC, gauge())
    assert decision.verdict.rule == "unconfident"
    assert decision.confidence is not None and decision.confidence < 0.5
    assert "0.50" in decision.verdict.reason  # the threshold, in words


def test_each_kind_of_hit_is_held_to_its_own_threshold() -> None:
    units_lower = ConfidenceModel(name="kinds", model_prefixes=(), bias=-5.0,
                                  weights={"relevance": 10.0}, threshold=0.5,
                                  related_floor=0.0, kind_thresholds={"message": 0.3})
    # P ~ 0.38 for both: enough for a conversation unit, not for a note.
    hits = [candidate("n", 0.45), candidate("m", 0.45, kind="message")]
    decisions = {d.candidate.identity.id: d for d in judge(hits, AUTOMATIC, gauge(units_lower))}
    assert decisions["m"].chosen and decisions["m"].verdict.rule == "confident"
    assert not decisions["n"].chosen and decisions["n"].verdict.rule == "unconfident"
    assert "0.30" in decisions["m"].verdict.reason and "0.50" in decisions["n"].verdict.reason


def test_gate_caps_the_number_of_hits() -> None:
    strong = [candidate(f"id{i}", 0.9) for i in range(10)]
    decisions = judge(strong, AUTOMATIC, gauge())
    assert sum(d.chosen for d in decisions) == AUTOMATIC.max_hits
    assert {d.verdict.rule for d in decisions if not d.chosen} <= {"max_hits", "depth"}


def test_only_the_first_candidates_are_weighed() -> None:
    many = [candidate(f"id{i}", 0.9 - i / 100) for i in range(AUTOMATIC.depth + 3)]
    weighed = [d.confidence is not None for d in judge(many, AUTOMATIC, gauge())]
    assert weighed == [True] * AUTOMATIC.depth + [False] * 3


def test_gate_never_trusts_a_spelling_guess_but_search_shows_it() -> None:
    guess = [candidate("a", 0.9, fuzzy=True)]
    assert select(guess, AUTOMATIC, gauge()) == []
    assert [c.identity.id for c in select(guess, EXPLICIT, gauge())] == ["a"]


def test_one_hit_per_group_in_chat_every_exchange_in_search() -> None:
    same = [candidate(f"m{i}", 0.9 - i / 100, kind="message", group="conv") for i in range(3)]
    assert [c.identity.id for c in select(same, AUTOMATIC, gauge())] == ["m0"]
    assert [c.identity.id for c in select(same, EXPLICIT, gauge())] == ["m0", "m1", "m2"]
    sections = [candidate(f"s{i}", 0.9 - i / 100, group="note") for i in range(3)]
    best = select(sections, EXPLICIT, gauge())
    assert [c.identity.id for c in best] == ["s0"]  # a note: its best section


def test_explicit_limit_and_no_floor_for_lexical_hits() -> None:
    weak = [candidate(f"id{i}", 0.05, lexical_rank=i + 1) for i in range(30)]
    assert len(select(weak, EXPLICIT, gauge(), limit=25)) == 25


def test_search_drops_a_hit_only_the_vectors_hold_under_the_related_floor() -> None:
    vector_only = candidate("v", 0.0, vector_rank=1, cosine=0.2)
    both = candidate("b", 0.0, vector_rank=2, lexical_rank=1, cosine=0.2)
    decisions = {d.candidate.identity.id: d for d in judge([vector_only, both], EXPLICIT, gauge())}
    assert decisions["v"].verdict.rule == "unrelated" and not decisions["v"].chosen
    assert decisions["b"].chosen  # a word of the query is in it: listed
    related = candidate("r", 0.0, vector_rank=1, cosine=0.6)
    floor = BY_RELEVANCE.related_floor
    assert verdict(related, EXPLICIT, floor - 0.01, BY_RELEVANCE).rule == "unrelated"
    assert verdict(related, EXPLICIT, floor, BY_RELEVANCE).passed


def test_search_lists_no_hit_only_the_vectors_hold_past_the_depth_weighed() -> None:
    # Every weighed vector-only hit is under the floor; those past the depth have no
    # estimate and rank lower still: none may fill the list in their place.
    far = [candidate(f"v{i}", 0.0, vector_rank=i + 1, cosine=0.2, group=f"n{i}")
           for i in range(EXPLICIT.depth + 5)]
    decisions = judge(far, EXPLICIT, gauge())
    assert not any(d.chosen for d in decisions)
    beyond = [d.verdict.rule for d in decisions if d.confidence is None]
    assert beyond == ["depth"] * 5
    # A lexical hit past the depth is listed all the same: a word of the query is in it.
    lexical = [candidate(f"l{i}", 0.05, lexical_rank=i + 1, group=f"l{i}")
               for i in range(EXPLICIT.depth + 5)]
    assert len(select(lexical, EXPLICIT, gauge(), limit=EXPLICIT.depth + 5)) == EXPLICIT.depth + 5
    # With no related floor (a mode the model was not fitted on), every hit is listed.
    no_floor = ConfidenceModel(name="hybrid", model_prefixes=("test/",), bias=-5.0,
                               weights={"relevance": 10.0}, threshold=0.5, related_floor=0.0)
    listed = judge(far, EXPLICIT, gauge(no_floor), limit=len(far))
    assert all(d.chosen for d in listed)


def test_a_unit_still_being_embedded_is_weighed_by_the_lexical_model() -> None:
    pending = candidate("p", 0.9, pending=True)
    [decision] = judge([pending], AUTOMATIC, gauge(text="some text"))
    assert decision.verdict.args[2] == LEXICAL.name


def test_an_uncalibrated_embedder_is_weighed_by_the_lexical_model() -> None:
    assert Gauge.model_of("@cf/baai/bge-small-en-v1.5?pooling=cls") is LEXICAL
    assert Gauge.model_of(None) is LEXICAL


@settings(max_examples=300, deadline=None)
@given(relevance=st.floats(0, 1), boost=st.floats(1, 1 + RECENCY_WEIGHT),
       standing=st.floats(AUTOMATIC.standing.floor, AUTOMATIC.standing.ceiling),
       fuzzy=st.booleans())
def test_a_hit_the_lexical_gate_passes_scores_at_least_its_floor(
        relevance: float, boost: float, standing: float, fuzzy: bool) -> None:
    """The lexical retriever skips rows below lexical_pass_floor: it must bound every
    candidate the lexical model may pass, whatever its recency, standing and estimate."""
    cand = candidate("n", relevance, boost=boost, standing=standing, fuzzy=fuzzy)
    if verdict(cand, AUTOMATIC, 1.0, LEXICAL).passed:
        assert cand.scores.final >= lexical_pass_floor(AUTOMATIC)
    assert lexical_pass_floor(AUTOMATIC) > 0  # the automatic gate does skip rows

"""The recall policies: the automatic gate and the explicit list."""

from __future__ import annotations

from shared.recall_policy import AUTOMATIC, EXPLICIT, select
from tests.builders import candidate


def test_gate_drops_hits_under_the_relevance_floor() -> None:
    assert select([candidate("a", AUTOMATIC.min_relevance - 0.01)], AUTOMATIC) == []
    assert len(select([candidate("a", AUTOMATIC.min_relevance)], AUTOMATIC)) == 1


def test_gate_caps_the_number_of_hits() -> None:
    strong = [candidate(f"id{i}", 0.9) for i in range(10)]
    assert len(select(strong, AUTOMATIC)) == AUTOMATIC.max_hits


def test_gate_keeps_only_hits_near_the_best() -> None:
    mixed = [candidate("a", 0.9), candidate("b", 0.9 * AUTOMATIC.relative_floor - 0.01)]
    assert [c.id for c in select(mixed, AUTOMATIC)] == ["a"]


def test_gate_never_trusts_a_spelling_guess_but_search_shows_it() -> None:
    guess = [candidate("a", 0.9, fuzzy=True)]
    assert select(guess, AUTOMATIC) == []
    assert [c.id for c in select(guess, EXPLICIT)] == ["a"]


def test_one_hit_per_group_in_chat_two_in_search() -> None:
    same = [candidate(f"m{i}", 0.9 - i / 100, kind="message", group="conv") for i in range(3)]
    assert [c.id for c in select(same, AUTOMATIC)] == ["m0"]
    assert [c.id for c in select(same, EXPLICIT)] == ["m0", "m1"]


def test_explicit_limit_and_no_floor() -> None:
    weak = [candidate(f"id{i}", 0.05) for i in range(30)]
    assert len(select(weak, EXPLICIT, limit=25)) == 25

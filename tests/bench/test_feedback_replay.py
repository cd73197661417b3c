"""bench/feedback_replay.py: how a replayed source is judged."""

from __future__ import annotations

from bench.evalset import Query
from bench.feedback_replay import judgment
from tests.builders import candidate

QUERY = Query("q1", "where did I park?", "conversation", {"msg:a": 3, "note:Car.md": 1})


def test_a_source_is_relevant_when_any_document_it_holds_is_graded() -> None:
    unit = candidate("q", kind="message")
    assert judgment(unit, QUERY) == "irrelevant"
    assert judgment(candidate("q", kind="message", covers=("q", "a")), QUERY) == "relevant"
    assert judgment(candidate("Car.md"), QUERY) == "relevant"
    assert judgment(candidate("Boat.md"), QUERY) == "irrelevant"

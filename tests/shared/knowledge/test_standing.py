"""Standing: one bounded multiplier from typed signals, and the identity match."""

from __future__ import annotations

from dataclasses import replace

import pytest

from shared.knowledge.names import read, stored
from shared.knowledge.standing import (
    Signals,
    adjustments,
    document_key,
    multiplier,
    names,
    span,
    stand,
)
from shared.rank.policy import NEUTRAL, STANDING
from shared.text.sanitiser import Mode, build_query
from tests.builders import candidate


@pytest.mark.parametrize(("signals", "expected"), [
    (Signals(), 1.0),
    (Signals(identity=True), 1.05),
    (Signals(role="canonical", status="stable"), 1.03),
    (Signals(role="canonical", status="draft"), 1.0),
    (Signals(role="evidence"), 0.98),
    (Signals(role="evidence", conversation=True), 1.0),  # measured: README, "Standing"
    (Signals(role="evidence", status="stable"), 0.98),  # only canonical notes gain
    (Signals(status="deprecated"), 0.92),
    (Signals(role="canonical", status="deprecated"), 0.92),
    (Signals(identity=True, role="canonical", status="stable"), 1.08),
    (Signals(feedback=0.015), 1.015),
    (Signals(feedback=0.5), 1.02),  # feedback is bounded on its own …
    (Signals(feedback=-0.5), 0.98),
    (Signals(identity=True, role="canonical", status="stable", feedback=0.5), 1.10),
    (Signals(role="evidence", status="deprecated", feedback=-0.5), 0.90),  # … and all
])
def test_multiplier_adds_the_deltas_that_apply_and_clamps(signals, expected) -> None:
    assert multiplier(signals) == pytest.approx(expected)


def test_the_clamp_binds_when_deltas_sum_past_it() -> None:
    steep = replace(STANDING, identity=0.5, deprecated=-0.5)
    assert multiplier(Signals(identity=True), steep) == STANDING.ceiling
    assert multiplier(Signals(status="deprecated"), steep) == STANDING.floor
    assert multiplier(Signals(identity=True, status="deprecated"), NEUTRAL) == 1.0


def test_adjustments_name_each_delta() -> None:
    assert adjustments(Signals(identity=True, role="evidence", feedback=0.01)) == [
        ("names this note", 0.05), ("evidence", -0.02), ("feedback", 0.01)]
    seed = replace(STANDING, conversation=-0.02)
    assert adjustments(Signals(role="evidence", conversation=True), seed) == [
        ("past conversation", -0.02)]


def fields(title: str, name: str = "", aliases: str = "") -> tuple[tuple[str, str], ...]:
    return (("title", title), ("file name", name), ("aliases", aliases), ("tags", "x"))


@pytest.mark.parametrize(("query", "named"), [
    ("kitchen renovation", True),
    ("Kitchen Renovations", True),  # inflection and case
    ("the kitchen renovation", True),  # stopwords
    ("kitchen reno", True),  # an alias
    ("kitchen", False),  # part of the title
    ("kitchen 2026", True),  # the file name
    ("kitchen renovation budget", False),
    ("x", False),  # a tag is no name
])
def test_identity_is_the_query_naming_a_title_file_name_or_alias(query, named) -> None:
    values = ("Kitchen renovation", "Kitchen 2026", "Kitchen reno\nreno")
    cand = candidate("Projects/Kitchen.md", fields=fields(*values))
    assert names(build_query(query, Mode.EXPLICIT), cand) is named
    # The keys stored at sync decide the same way.
    keyed = candidate("Projects/Kitchen.md", name_keys=read(stored(values)))
    assert names(build_query(query, Mode.EXPLICIT), keyed) is named


def test_stored_keys_are_what_the_identity_check_reads() -> None:
    cand = candidate("Garden.md", fields=fields("Kitchen renovation"),
                     name_keys=read(stored(["Garden plans"])))
    assert names(build_query("garden plans", Mode.EXPLICIT), cand)
    assert not names(build_query("kitchen renovation", Mode.EXPLICIT), cand)


def test_stand_sets_each_candidates_multiplier_with_its_feedback() -> None:
    a = candidate("a", group="1:a.md", knowledge_role="canonical", status="stable",
                  fields=fields("Alpha"))
    b = candidate("b", kind="message", knowledge_role="evidence")
    query = build_query("alpha", Mode.EXPLICIT)
    stood = stand([a, b], query, feedback={"message:b": -0.01})
    assert [c.scores.standing for c in stood] == pytest.approx([1.08, 0.99])
    assert stood[0].scores.final == pytest.approx(a.scores.relevance * a.scores.boost * 1.08)
    assert (document_key(a), document_key(b)) == ("note:1:a.md", "message:b")


@pytest.mark.parametrize(("signals", "least", "most"), [
    (Signals(), 0.98, 1.02),
    (Signals(identity=True, role="canonical", status="stable"), 1.06, 1.10),  # clamped
    (Signals(role="evidence", status="deprecated"), 0.90, 0.92),  # clamped
    (Signals(conversation=True, role="evidence"), 0.98, 1.02),
])
def test_span_is_the_multiplier_at_either_end_of_the_feedback_bound(signals, least, most
                                                                    ) -> None:
    low, high = span(signals)
    assert (low, high) == (pytest.approx(least), pytest.approx(most))
    for feedback in (-1.0, -STANDING.feedback / 2, 0.0, 0.5 * STANDING.feedback, 1.0):
        assert low <= multiplier(replace(signals, feedback=feedback)) <= high

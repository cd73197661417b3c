"""shared/rank/feedback.py: the query hash, and the bounded, decaying delta per document."""

from __future__ import annotations

import pytest

from shared.knowledge.standing import Signals, multiplier
from shared.rank.feedback import (
    FEEDBACK_HALF_LIFE_DAYS,
    FEEDBACK_MAX,
    FEEDBACK_STEP,
    Vote,
    delta,
    normalised_query,
    query_hash,
)
from shared.rank.policy import STANDING
from shared.time.durations import MS_PER_DAY

NOW = 1_780_000_000_000


def test_the_hash_is_of_the_normalised_query_never_the_text() -> None:
    assert normalised_query("What about the backups?") == "backup"
    assert query_hash("What about the backups?") == query_hash("backup, what about it")
    assert query_hash("backups") != query_hash("backups nas")
    digest = query_hash("my secret recipe for sourdough")
    assert len(digest) == 64 and "sourdough" not in digest


def test_one_judgment_is_a_step_and_two_reach_the_bound() -> None:
    assert delta([Vote("relevant", NOW)], NOW) == pytest.approx(FEEDBACK_STEP)
    assert delta([Vote("irrelevant", NOW)] * 2, NOW) == pytest.approx(-FEEDBACK_MAX)
    assert delta([Vote("relevant", NOW)] * 50, NOW) == FEEDBACK_MAX
    assert delta([Vote("irrelevant", NOW)] * 50, NOW) == -FEEDBACK_MAX
    assert delta([Vote("relevant", NOW), Vote("irrelevant", NOW)], NOW) == 0


def test_judgments_halve_every_half_life() -> None:
    half_life_ago = NOW - int(FEEDBACK_HALF_LIFE_DAYS * MS_PER_DAY)
    assert delta([Vote("relevant", half_life_ago)], NOW) == pytest.approx(FEEDBACK_STEP / 2)
    two_years_ago = NOW - 730 * MS_PER_DAY
    assert delta([Vote("relevant", two_years_ago)], NOW) < FEEDBACK_STEP / 200
    # A judgment "from the future" (a clock step back) counts as fresh, never more.
    assert delta([Vote("relevant", NOW + MS_PER_DAY)], NOW) == pytest.approx(FEEDBACK_STEP)


def test_feedback_enters_ranking_through_the_bounded_standing_multiplier() -> None:
    assert STANDING.feedback == FEEDBACK_MAX
    assert multiplier(Signals(feedback=0.5)) == pytest.approx(1.0 + FEEDBACK_MAX)
    assert multiplier(Signals(feedback=-0.5)) == pytest.approx(1.0 - FEEDBACK_MAX)
    assert multiplier(Signals()) == 1.0

"""In explicit search a conversation unit borrows a share of its best adjacent retrieved
unit's score (shared/rank/adjacency.py): the answer beside a strong match rises toward
it, never above it, and nothing else moves."""

from __future__ import annotations

import pytest

from shared.rank.adjacency import lent
from shared.rank.policy import AUTOMATIC, EXPLICIT, judge
from tests.builders import candidate
from tests.shared.rank.test_partners import unit
from tests.shared.rank.test_policy import gauge

ASKED = unit("q1", "a1", 1, 0.8, "We went to the shelter to adopt a puppy.",
             "Which breed did you choose?")
ANSWERED = unit("q3", "a3", 3, 0.2, "A border collie.", "Clever dogs.")
ELSEWHERE = unit("q7", "a7", 21, 0.3, "The shelter was busy.", "Weekends are.",
                 conversation="c2")


def test_a_unit_gains_its_best_neighbours_share_and_stays_below_it() -> None:
    far = unit("q9", "a9", 9, 0.6, "The puppy sleeps a lot.", "Puppies do.")
    asked, answered, other, far_after = lent([ASKED, ANSWERED, ELSEWHERE, far], 0.3)
    assert answered.scores.adjacent == pytest.approx(0.3 * ASKED.scores.own)
    assert asked.scores.adjacent == pytest.approx(0.3 * ANSWERED.scores.own)
    assert other.scores.adjacent == 0.0 and far_after.scores.adjacent == 0.0
    # Lifted over the better unit of another conversation, still under its neighbour.
    assert other.scores.final < answered.scores.final < asked.scores.final
    assert answered.scores.own == ANSWERED.scores.own  # its own evidence is unchanged


def test_notes_and_a_zero_share_are_left_alone() -> None:
    note = candidate("n.md", 0.7, seq=2)
    assert lent([ASKED, note], 0.3)[1] == note
    assert lent([ASKED, ANSWERED], 0.0) == [ASKED, ANSWERED]


def test_explicit_search_ranks_the_neighbour_up_and_automatic_recall_does_not() -> None:
    listed = judge([ASKED, ELSEWHERE, ANSWERED], EXPLICIT, gauge())
    assert [d.candidate.identity.id for d in listed if d.chosen] == ["q1", "q3", "q7"]
    assert AUTOMATIC.adjacent_share == 0.0

"""worker/recall/depth.py: which groups the gate's depth leaves unbuilt, and the check on
the real scores that the bound held."""

from __future__ import annotations

from dataclasses import replace

from tests.builders import candidate
from worker.recall.depth import Bounds, cut, holds


def rows(*groups: tuple[str, float, float]) -> list[Bounds]:
    return [Bounds(("note", g), least, most) for g, least, most in groups]


def test_a_group_every_row_of_which_ranks_after_the_depth_is_left_out() -> None:
    found = rows(("a", 0.8, 0.9), ("b", 0.7, 0.8), ("a", 0.1, 0.2), ("c", 0.3, 0.65),
                 ("d", 0.2, 0.4), ("d", 0.5, 0.75))
    # the 2nd best least is b's 0.7: c (at most 0.65) cannot take a top-2 slot, d (0.75) can
    build, left = cut(found, depth=2)
    assert build == [0, 1, 2, 4, 5]
    assert left is not None and left.best == 0.65 and left.groups == {("note", "c")}


def test_nothing_is_left_out_within_the_depth_or_of_a_kept_group() -> None:
    assert cut(rows(("a", 0.9, 1.0), ("b", 0.1, 0.2)), depth=2) == ([0, 1], None)
    assert cut(rows(("a", 0.9, 1.0), ("b", 0.1, 0.2)), depth=0) == ([0, 1], None)
    related = [Bounds(("note", "a"), 0.9, 1.0), Bounds(("note", "b"), 0.1, 0.2, kept=True)]
    assert cut(related, depth=1) == ([0, 1], None)


def test_a_group_at_the_bar_within_rounding_is_kept() -> None:
    assert cut(rows(("a", 0.5, 0.6), ("b", 0.5 - 1e-12, 0.5 - 1e-12)), depth=1)[1] is None


def test_the_bound_holds_while_depth_groups_still_score_above_the_cut() -> None:
    _, left = cut(rows(("a", 0.8, 0.9), ("b", 0.7, 0.8), ("c", 0.3, 0.6)), depth=2)
    assert left is not None
    both = [candidate("a1", 0.8, group="a"), candidate("a2", 0.75, group="a"),
            candidate("b1", 0.7, group="b")]
    assert holds(both, left, depth=2)
    # two candidates of one group are one slot: a dropped b1 leaves one group above
    assert not holds(both[:2], left, depth=2)
    assert not holds([candidate("a1", 0.8, group="a"), candidate("b1", 0.6, group="b")],
                     left, depth=2)
    assert holds([], None, depth=2)


def test_the_bound_fails_once_its_anchor_is_gone() -> None:
    # worker/recall/fused_depth.py: the hit that keeps the best cosine among the slot
    # holders must survive echoes and feedback.
    _, left = cut(rows(("a", 0.8, 0.9), ("b", 0.7, 0.8), ("c", 0.3, 0.6)), depth=2)
    assert left is not None
    both = [candidate("a1", 0.8, group="a", unit="ua"), candidate("b1", 0.7, group="b")]
    assert holds(both, replace(left, anchor="ua"), depth=2)
    assert not holds([*both[1:], candidate("a2", 0.8, group="a")],
                     replace(left, anchor="ua"), depth=2)

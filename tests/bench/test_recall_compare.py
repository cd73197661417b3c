"""bench/recall_compare.py: the same recall, or only unweighed decisions left out."""

from __future__ import annotations

from bench.recall_compare import compare_decisions


def decision(unit: str, rank: int | None, confidence: float | None, rule: str,
             chosen: bool = False) -> list:
    return ["note", unit, unit, unit, rank, 1, None, 0.5, None, None, 0.5, confidence, rule,
            chosen]


WEIGHED = [decision("a", 1, 0.9, "confident", True), decision("b", 2, 0.2, "unconfident")]
TAIL = [decision("c", 3, None, "depth"), decision("d", None, None, "group_taken"),
        decision("e", 4, None, "depth")]


def test_a_shorter_tail_of_unweighed_decisions_is_the_same_recall() -> None:
    before = WEIGHED + TAIL
    assert compare_decisions(before, before) is None
    # c left out: e's rank among the slot holders moves up, nothing else may change
    assert compare_decisions(before, [*WEIGHED, TAIL[1], decision("e", 3, None, "depth")]) is None


def test_a_changed_weighed_decision_or_an_order_change_is_not() -> None:
    before = WEIGHED + TAIL
    assert compare_decisions(before, [WEIGHED[0], decision("b", 2, 0.3, "unconfident"),
                                      *TAIL]) is not None
    assert compare_decisions(before, TAIL) is not None
    assert compare_decisions(before, [*WEIGHED, TAIL[2], TAIL[0]]) is not None
    assert compare_decisions(before, [*WEIGHED, decision("f", 5, None, "depth")]) is not None

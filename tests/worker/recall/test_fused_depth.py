"""worker/recall/fused_depth.py: which groups a semantic mode's bound leaves unbuilt, what
it keeps whole, and the left-out rows whose place in the lexical list must be read."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from worker.recall.fused_depth import Fusion, Span, VectorSpan, cut, settle, surely_built


def span(group: str, relevance: float, *, high: float | None = None, unit: str | None = None,
         boost: float = 1.0, ts: int = 0, kept: bool = False) -> Span:
    """A note row; `high`: the largest relevance its correction allows (none: exact)."""
    return Span(("note", group), unit or f"u-{group}-{relevance}", relevance,
                relevance if high is None else high, boost, ts, 1.0, 1.0, kept,
                exact=high is None)


def ladder(n: int) -> list[Span]:
    """n groups of one row each, relevance falling from 0.9."""
    return [span(f"g{i}", 0.9 - i * 0.02) for i in range(n)]


def embedded(spans: list[Span]) -> set[str]:
    return {s.unit for s in spans}


def test_hybrid_leaves_out_the_groups_sure_to_rank_past_the_depth() -> None:
    rows = ladder(40)
    build, left, unsure = cut(rows, 3, Fusion.RANKS, (), embedded(rows))
    # The third group's least fused score is 1/(60 + 3); rank r scores 1/(60 + r).
    assert build == [0, 1, 2]
    assert left is not None and left.groups == {("note", f"g{i}") for i in range(3, 40)}
    assert left.skipped == tuple(sorted(s.key for s in rows[3:])) and unsure == []
    assert left.best == 1 / (60 + 4)


def test_nothing_is_left_out_within_the_depth() -> None:
    rows = ladder(3)
    assert cut(rows, 3, Fusion.RANKS, (), embedded(rows)) == ([0, 1, 2], None, [])
    assert cut(ladder(40), 0, Fusion.RANKS, (), set())[1] is None


def test_a_group_with_a_vector_hit_a_relation_or_a_repeated_unit_is_built_whole() -> None:
    rows = ladder(40)
    rows[20] = span("g20", rows[20].low, kept=True)  # a note with relations
    rows[30] = span("g30", rows[30].low, unit="twice")
    rows[31] = span("g31", rows[31].low, unit="twice")
    build, left, _ = cut(rows, 3, Fusion.RANKS, {("note", "g10")}, embedded(rows))
    assert build == [0, 1, 2, 10, 20, 30, 31]
    assert left is not None and not left.groups & {("note", f"g{i}") for i in build}


def test_a_unit_still_being_embedded_counts_its_lexical_rank_twice() -> None:
    rows = ladder(40)
    pending = embedded(rows) - {rows[5].unit}
    build, _, _ = cut(rows, 3, Fusion.RANKS, (), pending)
    # 2/(60 + 6) is above every embedded row's: it takes the third slot from g2's 1/(60 + 3)
    assert build == [0, 1, 5]


def test_a_left_out_row_that_may_cross_a_built_one_is_placed_by_its_text() -> None:
    # g0 is built whole: its second row sits among the left-out ones. A left-out row whose
    # relevance is known only within its correction, and that may cross it, is returned to
    # be read; one sure to rank above or below it is not.
    rows = ladder(40)
    rows.append(span("g0", 0.3))
    rows[25] = span("g25", 0.29, high=0.31)  # may cross g0's 0.3
    rows[26] = span("g26", 0.27, high=0.28)  # surely below it
    build, left, unsure = cut(rows, 3, Fusion.RANKS, (), embedded(rows))
    assert build == [0, 1, 2, 40] and unsure == [25]
    assert left is not None and rows[25].key not in left.skipped
    assert rows[26].key in left.skipped


def test_adaptive_builds_every_row_that_may_hold_the_best_relevance() -> None:
    rows = ladder(40)
    rows[30] = span("g30", 0.5, high=0.95)  # its correction may make it the best
    build, left, _ = cut(rows, 3, Fusion.SCORES, (), embedded(rows))
    assert 30 in build and 0 in build
    assert left is not None and ("note", "g39") in left.groups


def test_a_recent_row_lower_in_the_lexical_list_may_still_take_a_slot() -> None:
    rows = ladder(40)
    rows[6] = span("g6", rows[6].low, boost=1.15)  # recency lifts its fused score
    build, _, _ = cut(rows, 3, Fusion.RANKS, (), embedded(rows))
    assert 6 in build


def hit(group: str, cosine: float, *, unit: str | None = None, boost: float = 1.0
        ) -> VectorSpan:
    return VectorSpan(("note", group), unit or f"v-{group}-{cosine}", cosine, boost, 1.0, 1.0)


def test_hits_alone_in_their_groups_and_sure_to_rank_past_the_depth_are_left_out() -> None:
    rows = ladder(40)
    # Vector ranks 1..30: hybrid scores rank r 1/(60 + r) at least. The bar is the third
    # best least score of any group, rows' or hits': 1/(60 + 2) (g0 and h0 at 1/61, g1 and
    # h1 at 1/62), which h2 (1/63) cannot reach.
    hits = [hit(f"h{i}", 0.9 - i * 0.01) for i in range(30)]
    hits.append(hit("g1", 0.1))  # in a group with a lexical row: built with it
    build, left, _ = cut(rows, 3, Fusion.RANKS, {("note", "g1")}, embedded(rows), hits)
    assert left is not None and 1 in build
    out = {g for g in left.groups if g[1].startswith("h")}
    assert out == {("note", f"h{i}") for i in range(2, 30)} and ("note", "g1") not in left.groups
    assert left.vector_skipped == tuple(sorted(h.key for h in hits[2:30]))
    # the best cosine among the slot holders stays a built hit's: h0, alone in its group
    assert left.anchor == hits[0].unit


def test_no_hit_is_left_out_without_a_built_hit_alone_above_it() -> None:
    rows = ladder(40)
    # h0 and h1 share a group (two candidates: either may hold its slot)
    hits = [hit("h", 0.9), hit("h", 0.85), *(hit(f"h{i}", 0.8 - i * 0.01) for i in range(30))]
    _, left, _ = cut(rows, 3, Fusion.RANKS, (), embedded(rows), hits)
    assert left is not None and ("note", "h") not in left.groups
    # h0 of the rest ranks 3rd: it is built, and anchors every hit under its cosine
    assert left.anchor == hits[2].unit
    assert ("note", "h1") in left.groups


def test_the_rows_built_whatever_the_hits_are_settle_before_the_hits() -> None:
    rows = ladder(40)
    settled = settle(rows, 3, Fusion.RANKS, embedded(rows))
    assert settled is not None and surely_built(rows, settled) == [0, 1, 2]
    # A vector hit in a left-out group brings it back: the early rows are still built.
    build, _, _ = cut(rows, 3, Fusion.RANKS, {("note", "g10")}, embedded(rows))
    assert build == [0, 1, 2, 10]
    # Within the depth no row is left out whatever the hits are.
    within = settle(ladder(3), 3, Fusion.RANKS, embedded(ladder(3)))
    assert within is not None and within.out == frozenset()
    assert surely_built(ladder(3), within) == surely_built(ladder(3), None) == [0, 1, 2]
    assert settle(ladder(3), 0, Fusion.RANKS, embedded(ladder(3))) is None


def test_hits_past_the_depth_are_left_out_when_the_rows_are_within_it() -> None:
    # Two lexical groups and 30 hits alone in theirs: the hits set the bar themselves,
    # the third best least score, 1/(60 + 2) (g0 and h0 at 1/61, g1 and h1 at 1/62).
    rows = ladder(2)
    hits = [hit(f"h{i}", 0.9 - i * 0.01) for i in range(30)]
    build, left, _ = cut(rows, 3, Fusion.RANKS, (), embedded(rows), hits)
    assert build == [0, 1] and left is not None
    assert left.groups == {("note", f"h{i}") for i in range(2, 30)}
    assert left.best == 1 / (60 + 3) and left.anchor == hits[0].unit
    # With no lexical row at all, the hits alone: h2 (1/63) is the third.
    _, alone, _ = cut([], 3, Fusion.RANKS, (), set(), hits)
    assert alone is not None and alone.groups == {("note", f"h{i}") for i in range(3, 30)}
    # The blend: a hit's vector part is its cosine scaled over the list, 0.4 at the best,
    # under the rows' 0.6 and 0.587: h0 is the third.
    _, blended, _ = cut(rows, 3, Fusion.SCORES, (), embedded(rows), hits)
    assert blended is not None
    assert blended.groups == {("note", f"h{i}") for i in range(1, 30)}
    # Within the depth, rows and hits together, nothing is left out.
    assert cut(ladder(1), 3, Fusion.RANKS, (), embedded(ladder(1)), hits[:2])[1] is None


@settings(max_examples=300, deadline=None)
@given(data=st.data(), fusion=st.sampled_from(list(Fusion)), depth=st.integers(0, 5))
def test_what_settles_early_is_built_whatever_the_vector_side_says(
        data: st.DataObject, fusion: Fusion, depth: int) -> None:
    # recall builds `surely_built`'s rows while the query is embedded (worker/recall/
    # lexical.fused): each must be among the rows `cut` builds for any hits that come.
    groups = [f"g{i}" for i in range(12)]
    relevance = st.floats(0.0, 1.0, allow_nan=False)
    rows = [span(data.draw(st.sampled_from(groups)), data.draw(relevance),
                 boost=data.draw(st.floats(0.8, 1.2)),
                 unit=data.draw(st.sampled_from([None, "shared"])),
                 kept=data.draw(st.booleans()))
            for _ in range(data.draw(st.integers(0, 25)))]
    have = {s.unit for s in rows if data.draw(st.booleans())}
    hits = [hit(data.draw(st.sampled_from([*groups, "h0", "h1", "h2"])), data.draw(relevance))
            for _ in range(data.draw(st.integers(0, 8)))]
    hit_groups = {h.group for h in hits}
    settled = settle(rows, depth, fusion, have)
    build, _, _ = cut(rows, depth, fusion, hit_groups, have, hits)
    assert set(surely_built(rows, settled)) <= set(build)


@settings(max_examples=400, deadline=None)
@given(data=st.data(), fusion=st.sampled_from(list(Fusion)), depth=st.integers(1, 5))
def test_what_is_left_out_scores_under_depth_built_groups_whatever_standing_is(
        data: st.DataObject, fusion: Fusion, depth: int) -> None:
    # Each row in a group of its own, its relevance exact; hits in groups of their own,
    # shared with other hits or with a row, each hit's standing drawn within its span: every
    # score is then known, a group scoring its best candidate's, and at least `depth` built
    # groups must score above every left-out one (what depth.holds checks at run time).
    unit = st.floats(0.0, 1.0, allow_nan=False)
    n_rows = data.draw(st.integers(0, 12))
    rows = [span(f"g{i}", data.draw(unit), boost=data.draw(st.floats(1.0, 1.15)))
            for i in range(n_rows)]
    groups = [*(f"g{i}" for i in range(n_rows)), *(f"h{i}" for i in range(12))]
    hits = []
    for i in range(data.draw(st.integers(0, 30))):
        low = data.draw(st.floats(0.85, 1.0))
        hits.append(VectorSpan(("note", data.draw(st.sampled_from(groups))), f"v{i}",
                               data.draw(unit), data.draw(st.floats(1.0, 1.15)), low,
                               data.draw(st.floats(low, 1.15))))
    build, left, _ = cut(rows, depth, fusion, {h.group for h in hits}, embedded(rows), hits)
    score: dict[tuple[str, str], float] = {}
    best = max((s.low for s in rows), default=0.0)
    for rank, s in enumerate(sorted(rows, key=lambda s: s.key), 1):
        part = 1 / (60 + rank) if fusion is Fusion.RANKS else 0.6 * s.low / best if best else 0
        score[s.group] = max(score.get(s.group, 0.0), part * s.boost)
    cosines = [h.cosine for h in hits]
    for rank, h in enumerate(sorted(hits, key=lambda h: h.key), 1):
        scaled = (h.cosine - min(cosines)) / (max(cosines) - min(cosines)) \
            if max(cosines) > min(cosines) else 1.0
        part = 1 / (60 + rank) if fusion is Fusion.RANKS else 0.4 * scaled
        drawn = part * h.boost * data.draw(st.floats(h.standing_low, h.standing_high))
        score[h.group] = max(score.get(h.group, 0.0), drawn)
    if left is None:
        return
    assert set(build) == {i for i, s in enumerate(rows) if s.group not in left.groups}
    top = max(score[g] for g in left.groups)
    above = [g for g in score if g not in left.groups and score[g] > top * (1 + 1e-9)]
    assert len(above) >= depth
    out = [h for h in hits if h.group in left.groups]
    if out:  # the best cosine among the slot holders stays a built hit's
        (anchor,) = [h for h in hits if h.unit == left.anchor]
        assert anchor.group not in left.groups
        assert all(h.cosine <= anchor.cosine for h in out)

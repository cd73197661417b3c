"""The gate's depth as a bound on what recall builds (pure).

Automatic recall's lexical gate weighs only the best candidates of its first `depth`
groups (shared.rank.policy.judge: one slot per note and per conversation, the first
GATE_DEPTH slot holders get an estimate, no other can be chosen). Before a row becomes a
candidate its score is known within bounds: its BM25 relevance with the least and the
largest self-match correction, its recency, and standing's floor and ceiling. When
`depth` groups are sure to score above everything a group can reach, none of that
group's rows can be weighed or chosen, nor take a slot, a partner or a rank from one that
can: the group is not built (at 100k messages + 10k notes nearly every fetched row could
reach the lexical floor, and building, standing and ordering them was most of recall's
Python time, bench.latency --profile).

The bound assumes every candidate it counted on survives to the gate. Echoes, bare
questions and the owner's "irrelevant" drop some (worker/recall/automatic.py), so
`holds` checks the real scores once standing is set, and recall searches again without
the bound when fewer than `depth` groups still score above the cut.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from shared.rank.candidate import Candidate

# A group is left out only when it falls short by more than rounding (the merged list
# orders by scores rounded to 12 digits, shared.rank.scoring.ranked_in_groups).
MARGIN = 1e-9


@dataclass(frozen=True, slots=True)
class Bounds:
    """A row before it is a candidate: its group (kind, group column value) and the least
    and the most its final score can be. `kept`: never left out (a note with relations:
    the gate's bundles take a retrieved partner's candidate, worker/recall/together.py)."""

    group: tuple[str, str]
    least: float
    most: float
    kept: bool = False


@dataclass(frozen=True)
class Cut:
    """What the bound left out of a search: the most any left-out row could score, and
    the groups left out (an echo of a note left out is still an echo,
    worker/recall/echoes.py); in a semantic mode, each left-out row's place in the
    lexical list, (−relevance × recency, −timestamp, unit), ascending, as far as a built
    row's rank needs it (worker/recall/fused_depth.py, shared.rank.fusion)."""

    best: float
    groups: frozenset[tuple[str, str]]
    skipped: tuple[tuple[float, int, str], ...] = ()
    # The left-out vector hits' places in the vector list, (−cosine, unit), ascending; and
    # the unit whose candidate must survive for the best cosine among the slot holders to
    # stay what it is (worker/recall/fused_depth.py).
    vector_skipped: tuple[tuple[float, str], ...] = ()
    anchor: str | None = None


def cut(rows: Sequence[Bounds], depth: int) -> tuple[list[int], Cut | None]:
    """The indexes of the rows to build, in order, and what was left out (None: nothing).

    A group is left out when the depth-th best of the groups' least scores is above the
    most any of its rows can score."""
    least: dict[tuple[str, str], float] = {}
    most: dict[tuple[str, str], float] = {}
    kept: set[tuple[str, str]] = set()
    for r in rows:
        least[r.group] = max(least.get(r.group, 0.0), r.least)
        most[r.group] = max(most.get(r.group, 0.0), r.most)
        if r.kept:
            kept.add(r.group)
    if depth <= 0 or len(least) <= depth:
        return list(range(len(rows))), None
    bar = sorted(least.values(), reverse=True)[depth - 1]
    out = {g for g, m in most.items() if g not in kept and m * (1 + MARGIN) + MARGIN < bar}
    if not out:
        return list(range(len(rows))), None
    return ([i for i, r in enumerate(rows) if r.group not in out],
            Cut(best=max(most[g] for g in out), groups=frozenset(out)))


def holds(candidates: Sequence[Candidate], found: Cut | None, depth: int) -> bool:
    """Whether at least `depth` groups of the candidates (their standing set) score above
    everything the cut left out, and its anchor is still among them: then no left-out row
    could have been weighed, nor changed what the weighed ones are measured against."""
    if found is None:
        return True
    if found.anchor is not None and all(c.identity.unit != found.anchor for c in candidates):
        return False
    above = found.best * (1 + MARGIN) + MARGIN
    groups = {(c.identity.kind, c.identity.group) for c in candidates
              if c.scores.final > above}
    return len(groups) >= depth

"""A conversation unit borrows from its neighbours: in explicit search, each unit's score
gains a share of the best score of an adjacent unit of its conversation that was
retrieved too (pure).

An exchange runs over the units' edges (shared/rank/partners.py): Mallory asks "what got
you into running?" in one unit and the owner answers in the next, in words the query may
not hold. The unit beside a strong match is likelier to answer than an equally scored
unit elsewhere, so it is lifted toward it, never above it. Measured on LoCoMo samples 0–4
and the vault sets' tuning data (README, "The gate's confidence").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from shared.rank.candidate import Candidate
from shared.rank.partners import adjacent


def lent(candidates: Sequence[Candidate], share: float) -> list[Candidate]:
    """The candidates, each conversation unit's `adjacent` score set to `share` of the
    best own score among its adjacent retrieved units (0 without one)."""
    if share <= 0:
        return list(candidates)
    by_group: dict[str, list[Candidate]] = {}
    for cand in candidates:
        if cand.identity.kind == "message" and cand.message.seq is not None:
            by_group.setdefault(cand.identity.group, []).append(cand)
    out = []
    for cand in candidates:
        near = [o.scores.own for o in by_group.get(cand.identity.group, ())
                if o is not cand and adjacent(o, cand)] if cand.identity.kind == "message" \
            else []
        out.append(replace(cand, scores=replace(cand.scores, adjacent=share * max(near)))
                   if near else cand)
    return out

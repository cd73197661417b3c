"""Contradictions together (memory bundles, docs/design.md "Knowledge model"): the hits automatic
recall chose, each followed one hop along its conflict relations (contradicts,
supersedes, qualifies; either direction), so a competing claim is never injected apart
from the one it competes with.

- A bundle is a chosen hit (its seed) and the notes its conflict edges reach. It holds at
  most BUNDLE_MAX_CANONICAL canonical note and BUNDLE_MAX_EVIDENCE others; a further
  canonical claim is a bundle of its own, placed right after.
- Among a seed and its partners the current claim comes first: a superseding note before
  the one it supersedes, then stable before unlabelled, draft, stale and deprecated, then
  score. The top bundle is cut to the budget after this order, so the seed itself may be
  what gives way to its current replacement.
- Bundles keep the order of their seeds and share the hit budget (max_hits): the top
  bundle is cut to fit; a lower bundle that does not fit whole is left out rather than
  shown without its competitor; a seed already shown as a partner is not repeated.
- A bundle whose current claim is a stable canonical note leads the block when every
  note that competes with it is shown too (docs/design.md: the best reviewed conclusion first,
  any competing claim beside it): an evidence page that merely matched better, or
  a bundle found through a lower seed, comes after it. Nothing is added for this.
  Explicit search keeps its own order: the same rule there cost a question about the
  superseded decision its target (mixed-vault tune mv-052, "why did we stop doing the usb
  disk backups": nDCG@10 1.000 → 0.834; tune nDCG@10 0.809 → 0.807 lexical) and gained only
  the regression set's canonical_first_explicit (0.667 → 1.000, lexical).
- Every placed hit carries `links` to the others it relates to, for labels.

Pure: the edges and the partner candidates come from worker/recall/together.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from shared.block.envelope import Injected
from shared.knowledge.relations import BY_NAME
from shared.rank.candidate import Candidate, Link
from shared.rank.policy import BUNDLE_MAX_CANONICAL, BUNDLE_MAX_EVIDENCE

# The order of statuses when competing claims are shown together: the current claim first.
STATUS_ORDER: Mapping[str | None, int] = {"stable": 0, None: 1, "draft": 2, "stale": 3,
                                          "deprecated": 4}


@dataclass(frozen=True)
class Edge:
    """A conflict relation between two notes, by group (vault and path)."""

    source: str  # the note that declares it
    target: str
    type: str


def _touching(group: str, edges: Sequence[Edge]) -> list[str]:
    found = [e.target if e.source == group else e.source for e in edges
             if group in (e.source, e.target)]
    return list(dict.fromkeys(g for g in found if g != group))


def _historical(cand: Candidate, members: Sequence[Candidate], edges: Sequence[Edge]
                ) -> bool:
    """Another member holds the current claim over this one (e.g. supersedes it)."""
    groups = {m.identity.group for m in members} - {cand.identity.group}
    for e in edges:
        kind = BY_NAME.get(e.type)
        if kind is None or kind.current is None:
            continue
        current, old = (e.source, e.target) if kind.current == "out" else (e.target, e.source)
        if old == cand.identity.group and current in groups:
            return True
    return False


def ordered(members: Sequence[Candidate], edges: Sequence[Edge]) -> list[Candidate]:
    return sorted(members, key=lambda c: (_historical(c, members, edges),
                                          STATUS_ORDER.get(c.note.status, 1), -c.scores.final))


def _bundles(seed: Candidate, partners: Sequence[Candidate]) -> list[list[Candidate]]:
    """The seed's bundle, then a bundle for each canonical partner beyond the cap."""
    members, extra = [seed], []
    canonical = int(seed.identity.knowledge_role == "canonical")
    others = len(members) - canonical
    for p in partners:
        if p.identity.knowledge_role == "canonical":
            if canonical < BUNDLE_MAX_CANONICAL:
                members.append(p)
                canonical += 1
            else:
                extra.append([p])
        elif others < BUNDLE_MAX_EVIDENCE:
            members.append(p)
            others += 1
    return [members, *extra]


def _stable_canonical(cand: Candidate) -> bool:
    return cand.identity.knowledge_role == "canonical" and cand.note.status == "stable"


def _reviewed_first(placed: Sequence[Candidate], edges: Sequence[Edge]) -> list[Candidate]:
    """The first stable canonical note that holds the current claim of its bundle, with
    every note it competes with among the placed, moves to the front, its competitors
    right after it (in their placed order); the rest keep their order."""
    here = {c.identity.group for c in placed}
    for cand in placed:
        rivals = _touching(cand.identity.group, edges)
        if (not rivals or not _stable_canonical(cand) or not set(rivals) <= here
                or _historical(cand, placed, edges)):
            continue
        lead = [cand, *(c for c in placed if c.identity.group in rivals)]
        led = {c.identity.group for c in lead}
        return [*lead, *(c for c in placed if c.identity.group not in led)]
    return list(placed)


def _linked(placed: Sequence[Candidate], edges: Sequence[Edge]) -> list[Candidate]:
    here = {c.identity.group for c in placed}
    result = []
    for cand in placed:
        links = tuple(
            Link(e.type, "out" if e.source == cand.identity.group else "in",
                 e.target if e.source == cand.identity.group else e.source)
            for e in edges
            if cand.identity.group in (e.source, e.target) and {e.source, e.target} <= here
            and e.source != e.target)
        result.append(replace(cand, note=replace(cand.note, links=links)))
    return result


def together(seeds: Sequence[Candidate], edges: Sequence[Edge],
             pool: Mapping[str, Candidate], max_hits: int) -> list[Candidate]:
    """The seeds with their conflict partners (from `pool`, by group), within max_hits."""
    placed: list[Candidate] = []
    shown: set[str] = set()
    for seed in seeds:
        if seed.identity.group in shown:
            continue
        partners = [pool[g] for g in _touching(seed.identity.group, edges)
                    if g in pool and g not in shown]
        partners.sort(key=lambda c: (STATUS_ORDER.get(c.note.status, 1), -c.scores.final))
        kept = ordered([c for b in _bundles(seed, partners) for c in b], edges)
        room = max_hits - len(placed)
        if len(kept) > room and placed:
            continue  # a lower bundle that does not fit whole stays out
        for cand in kept[:room]:
            placed.append(cand)
            shown.add(cand.identity.group)
        if len(placed) >= max_hits:
            break
    return _linked(_reviewed_first(placed, edges), edges)


def with_partners(cited: Iterable[int], injected: Sequence[Injected]) -> set[int]:
    """The cited hit numbers and those of the hits they relate to: the footer shows a
    competing claim beside the one the answer cited, as the block showed them."""
    numbers = set(cited)
    by_group = {i.candidate.identity.group: i.n for i in injected}
    for i in injected:
        if i.n in numbers:
            numbers |= {by_group[link.other] for link in i.candidate.note.links
                        if link.other in by_group}
    return numbers

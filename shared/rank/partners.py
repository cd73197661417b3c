"""A conversation hit brings its partner: the adjacent unit of its conversation, when that
unit was retrieved too, becomes part of the hit (pure).

A unit is an owner message and the reply after it, so an exchange runs over the units'
edges: Mallory asks in one unit, the owner answers in the next. With one hit per
conversation the two competed for its slot and the one ranked lower was turned away: on
LoCoMo samples 0–4 (owner's view, lexical) 184 of the 688 answerable questions automatic
recall missed had their best-ranked relevant unit turned away by the adjacent unit of its
own conversation (README, "The gate's confidence"). Here the better of two adjacent
retrieved units takes the other along: one hit, in the better one's place and with its
scores, showing both units' turns, weighed on the query terms either holds. A hit takes
one such unit on each side: Mallory's question may sit in the unit before it and the
owner's follow-up in the unit after it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from shared.rank.candidate import Candidate, Role, Turn
from shared.text.matcher import matched_terms
from shared.text.sanitiser import Term

# Two units of one conversation are adjacent when their first messages are at most this
# many turns apart: a unit holds one or two messages, and the parts of one long turn share
# its seq.
ADJACENT_TURNS = 2


@dataclass(frozen=True, slots=True)
class Joined:
    """A unit brought along by a better one (`host`, the hit it is now part of)."""

    partner: Candidate
    host: Candidate


def unit_turns(cand: Candidate, before: bool) -> tuple[Turn, ...]:
    """A conversation unit's turns in conversation order, the owner's message first."""
    ident, msg = cand.identity, cand.message
    covers = ident.covers or (ident.id,)
    other = covers[1] if len(covers) > 1 else None
    turns: list[tuple[str | None, Role, str | None]]
    if ident.role == "assistant":
        turns = [(other, "user", msg.asked), (ident.id, "assistant", cand.presentation.text)]
    else:
        turns = [(ident.id, "user", cand.presentation.text), (other, "assistant", msg.reply)]
    return tuple(Turn(str(i), role, text, before) for i, role, text in turns if i and text)


def adjacent(a: Candidate, b: Candidate) -> bool:
    """Two units of one conversation whose first messages are ADJACENT_TURNS apart at most."""
    sa, sb = a.message.seq, b.message.seq
    return (a.identity.kind == b.identity.kind == "message"
            and a.identity.group == b.identity.group and sa is not None and sb is not None
            and abs(sa - sb) <= ADJACENT_TURNS)


def _side(host: Candidate, partner: Candidate) -> bool:
    """Whether `partner` comes before `host` in their conversation."""
    return (partner.message.seq or 0) < (host.message.seq or 0)


def _joined(host: Candidate, partners: Sequence[Candidate], terms: Sequence[Term]
            ) -> Candidate:
    """`host` with its partners (one on each side at most) as part of itself."""
    covers = host.identity.covers or (host.identity.id,)
    shown = host.presentation
    held = matched_terms(terms, [shown.text, *(v for _, v in shown.fields)])
    turns: list[Turn] = []
    for partner in sorted(partners, key=lambda p: p.message.seq or 0):
        covers += tuple(i for i in partner.identity.covers or (partner.identity.id,)
                        if i not in covers)
        held |= matched_terms(terms, [partner.presentation.text])
        turns.extend(unit_turns(partner, _side(host, partner)))
    return replace(host, identity=replace(host.identity, covers=covers),
                   presentation=replace(shown, terms=held),
                   message=replace(host.message, partner=tuple(turns)))


def with_partners(candidates: Sequence[Candidate], terms: Sequence[Term]
                  ) -> tuple[list[Candidate], list[Joined]]:
    """The candidates with each conversation unit's adjacent retrieved units, if they rank
    below it and are no other's partner yet, joined to it (at most one on each side: the
    exchange can run over either edge), and the units so joined. `terms`: the query as
    searched (a joined hit matches what any of its units holds)."""
    order = sorted(range(len(candidates)), key=lambda i: -candidates[i].scores.final)
    host_of: dict[int, int] = {}
    # Per conversation, its units that may still host, each with the sides it has free.
    free: dict[str, dict[int, set[bool]]] = {}
    for i in order:
        cand = candidates[i]
        if cand.identity.kind != "message" or cand.message.seq is None:
            continue
        hosts = free.setdefault(cand.identity.group, {})
        host = next((h for h, sides in hosts.items() if adjacent(candidates[h], cand)
                     and _side(candidates[h], cand) in sides), None)
        if host is None:
            hosts[i] = {True, False}
        else:
            host_of[i] = host
            hosts[host].discard(_side(candidates[host], cand))
    if not host_of:
        return list(candidates), []
    brought: dict[int, list[int]] = {}
    for p, h in host_of.items():
        brought.setdefault(h, []).append(p)
    joined = {h: _joined(candidates[h], [candidates[p] for p in ps], terms)
              for h, ps in brought.items()}
    kept = [joined.get(i, c) for i, c in enumerate(candidates) if i not in host_of]
    return kept, [Joined(candidates[p], joined[h]) for p, h in host_of.items()]

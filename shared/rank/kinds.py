"""What each kind of hit is to the pure layers that otherwise treat hits alike: how the
Recall block names and sizes it, how the offline answer names it, where it falls in a
tie, whether standing and the confidence model count it as a conversation, which
corpus's statistics it was ranked on, and what feedback keys it by.

The notes and conversations corpora (worker/corpora/) name theirs here; a corpus of
another kind registers its own with it (worker/corpora/registry.py), so no layer branches
on a kind's name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from shared.rank.candidate import Candidate

# (hit, its quoted label) → how the Recall block's header names it, after "[n] " and
# before its date: 'note «Coffee»'.
Lead = Callable[[Candidate, str], str]


@dataclass(frozen=True)
class HitKind:
    name: str  # the candidates' `identity.kind`
    corpus: str  # the corpus whose statistics its hits are ranked on (worker/corpora/)
    lead: Lead
    shows_standing: bool  # the block's header states its standing after its date
    # Its excerpt takes the room of the hits the block does not hold (one injected note is
    # not cut at 360 characters mid-instruction); else it stays at EXCERPT_CHARS.
    grows: bool
    tie: int  # equal score and date: the lower first (notes before messages)
    conversation: bool  # standing counts it as evidence from a past conversation
    document_key: Callable[[Candidate], str]  # what standing's feedback map keys it by
    offline_word: str  # how the offline responder names it ("your note")


def _message_lead(cand: Candidate, label: str) -> str:
    who = "the owner" if cand.identity.role == "user" else "Mallory"
    return f"past message by {who} in {label}"


NOTE = HitKind(name="note", corpus="notes", lead=lambda c, label: f"note {label}",
               shows_standing=True, grows=True, tie=0, conversation=False,
               document_key=lambda c: f"note:{c.identity.group}", offline_word="your note")
MESSAGE = HitKind(name="message", corpus="messages", lead=_message_lead,
                  shows_standing=False, grows=False, tie=1, conversation=True,
                  document_key=lambda c: f"message:{c.identity.id}",
                  offline_word="our conversation")

_KINDS: dict[str, HitKind] = {k.name: k for k in (NOTE, MESSAGE)}


def named(name: str) -> HitKind:
    return _KINDS[name]


def kind_of(cand: Candidate) -> HitKind:
    return _KINDS[cand.identity.kind]


def register(kind: HitKind) -> None:
    if kind.name in _KINDS:
        raise ValueError(f"a kind of hit named {kind.name!r} exists")
    _KINDS[kind.name] = kind


def unregister(kind: HitKind) -> None:
    if _KINDS.get(kind.name) is kind:
        del _KINDS[kind.name]

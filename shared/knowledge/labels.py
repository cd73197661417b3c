"""How a hit's standing is said: in the Recall block (for the model) and in the Sources
footer and search results (for the owner).

    block   "canonical, deprecated — superseded by [2]"   role, status, relations
    footer  "deprecated — superseded by [2]"               what a reader should notice:
            "draft"                                        a status other than stable,
            "stable — contradicts [1]"                     and relations to other sources

Numbers name the other hits as the block numbers them (`numbers`: group → n); a relation
to a hit that is not numbered (cut by the budget) is not mentioned.
"""

from __future__ import annotations

from collections.abc import Mapping

from shared.knowledge.relations import BY_NAME
from shared.rank.candidate import Candidate

DASH = " — "
# A status that needs no saying on its own: it is what a note is expected to be.
QUIET_STATUS = "stable"


def relation_phrases(cand: Candidate, numbers: Mapping[str, int]) -> list[str]:
    """One phrase per relation to a numbered hit; a relation both notes declare (each
    contradicts the other) is said once, as this note declares it."""
    declared = {(link.type, link.other) for link in cand.note.links if link.direction == "out"}
    phrases = []
    for link in cand.note.links:
        kind, n = BY_NAME.get(link.type), numbers.get(link.other)
        if kind is None or n is None or (
                link.direction == "in" and (link.type, link.other) in declared):
            continue
        phrase = f"{kind.outgoing if link.direction == 'out' else kind.incoming} [{n}]"
        if phrase not in phrases:
            phrases.append(phrase)
    return phrases


def _joined(head: str, phrases: list[str]) -> str:
    tail = ", ".join(phrases)
    return f"{head}{DASH}{tail}" if head and tail else head or tail


def standing_label(cand: Candidate, numbers: Mapping[str, int] | None = None) -> str:
    """The footer's and search's label: "" when there is nothing to notice."""
    phrases = relation_phrases(cand, numbers or {})
    status = cand.note.status or ""
    if not phrases and status == QUIET_STATUS:
        status = ""
    return _joined(status, phrases)


def block_standing(cand: Candidate, numbers: Mapping[str, int]) -> str:
    """The Recall block's: role and status as known, and the relations."""
    head = ", ".join(p for p in (cand.identity.knowledge_role, cand.note.status) if p)
    return _joined(head, relation_phrases(cand, numbers))

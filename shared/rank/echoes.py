"""Echoes: past exchanges that only repeat memory, judged from features (pure).

Mallory's answers quote what recall showed them (the notes of message_citations, the
past messages of message_quotes). Asked the same question again, the old exchange matches
it as well as the note did, and with use the echoes crowd out their sources. Two features
decide, not a rule per case:

- the owner's side of the unit only asks (every sentence of it is a question, marked or
  not: shared/text/questions.py), so it holds nothing the owner told;
- Mallory's side adds little to what it was shown: under ECHO_NOVELTY of its content
  words are absent from its sources' text (`novelty`).

A unit with both is an echo of its sources; a unit whose owner side only asks and that
has no reply is a bare question. Neither is a memory of its own (worker/recall/echoes.py
decides what recall does with them).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from shared.knowledge.roles import SAVED_MEMORY_ROLE
from shared.rank.candidate import Candidate
from shared.text.porter import stem
from shared.text.questions import asks
from shared.text.stopwords import STOPWORDS
from shared.text.tokenizer import tokens

# An answer that quotes its notes ("Here is what I found in memory: - your note …: <the
# excerpt> [1]") has 0.05–0.2 of its words new; one that says something the notes do not
# has most of them new. Half sits between.
ECHO_NOVELTY = 0.5
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True)
class Shown:
    """What an answer was shown: the notes (their groups), every source's text, the past
    messages it quoted (their ids) and the conversations they are in."""

    notes: frozenset[str]
    texts: tuple[str, ...]
    messages: frozenset[str] = frozenset()
    conversations: frozenset[str] = frozenset()


def _content(text: str) -> set[str]:
    return {stem(t) for t in tokens(text) if t not in STOPWORDS and not t.isdigit()}


def novelty(text: str, sources: Sequence[str]) -> float:
    """The share of the text's content words (stems) that none of the sources holds."""
    words = _content(text)
    if not words:
        return 0.0
    known = set().union(*(_content(s) for s in sources)) if sources else set()
    return len(words - known) / len(words)


def only_asks(text: str) -> bool:
    """Every sentence of the text is a question, with its mark or without it
    (shared/text/questions.py); an empty text asks nothing."""
    parts = [s.strip() for s in _SENTENCE_END.split(text.strip()) if s.strip()]
    return bool(parts) and all(asks(p) for p in parts)


def sides(cand: Candidate) -> tuple[str, str]:
    """A conversation unit's owner message and Mallory's reply ("" where absent)."""
    if cand.identity.role == "assistant":
        return cand.message.asked or "", cand.presentation.text
    return cand.presentation.text, cand.message.reply or ""


def answer_id(cand: Candidate) -> str | None:
    """The id of the unit's reply, if it has one."""
    if cand.identity.role == "assistant":
        return cand.identity.id
    return cand.identity.covers[1] if len(cand.identity.covers) > 1 and sides(cand)[1] else None


def bare_question(cand: Candidate) -> bool:
    owner, reply = sides(cand)
    # A saved memory is a fact the owner approved, however it is worded.
    return cand.identity.kind == "message" and not reply and only_asks(owner) \
        and cand.identity.knowledge_role != SAVED_MEMORY_ROLE


def echo(cand: Candidate, shown: Shown | None) -> bool:
    if cand.identity.kind != "message" or shown is None or not shown.texts:
        return False
    owner, reply = sides(cand)
    return bool(reply) and (not owner or only_asks(owner)) and \
        novelty(reply, shown.texts) < ECHO_NOVELTY

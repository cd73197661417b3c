"""Which turn of a conversation unit a hit points at (pure).

A unit holds the owner's message and Mallory's reply; its link opens one of them. The turn
that answers the query is the one that holds more of it:

- each distinct query term a turn matches weighs its IDF, so a speaker's name in a
  greeting ("Hey Caroline!") is one common term against the rarer words of the turn that
  says what was asked;
- a term matched only inside a question ("What made you try pottery?") weighs for the
  turn after it: a question repeats the query's words, its answer holds what was asked;
  a reply's own question (answered outside the unit) keeps QUESTION_WEIGHT of it;
- a query that addresses one speaker ("when did *I* go biking", "what did *you*
  suggest") weighs that speaker's turn ADDRESSED_WEIGHT times more.

bench.relevance's ndcg@10_pointer measures the choice (README, "How recall works").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Literal

from shared.text.matcher import matched_terms
from shared.text.sanitiser import Term

Speaker = Literal["user", "assistant"]

# Chosen on LoCoMo samples 0–4 (owner's view, bench.relevance ndcg@10_pointer); the
# figures are in the README.
QUESTION_WEIGHT = 0.5
ADDRESSED_WEIGHT = 1.5

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"[\w']+")
FIRST_PERSON = frozenset({"i", "me", "my", "mine", "myself", "i'm", "i've", "i'd", "i'll"})
SECOND_PERSON = frozenset({"you", "your", "yours", "yourself", "you're", "you've", "you'd",
                           "you'll"})


def addressed(text: str) -> Speaker | None:
    """The speaker a query asks about: the owner ("I"), Mallory ("you"), or None when it
    names both or neither."""
    words = {w.lower().replace("’", "'") for w in _WORD.findall(text.replace("’", "'"))}
    mine, yours = bool(words & FIRST_PERSON), bool(words & SECOND_PERSON)
    if mine == yours:
        return None
    return "user" if mine else "assistant"


def _split(text: str, terms: Sequence[Term]) -> tuple[frozenset[str], frozenset[str]]:
    """The query terms a turn states, and those it only asks about (in its questions)."""
    if not text or not terms:
        return frozenset(), frozenset()
    found = matched_terms(terms, [text])
    if not found or "?" not in text:
        return found, frozenset()
    stated = matched_terms(terms, [s for s in _SENTENCE_END.split(text)
                                   if not s.rstrip().endswith("?")])
    return stated, found - stated


def points_at_reply(question: str, reply: str, terms: Sequence[Term],
                    idf: Mapping[str, float], asks: Speaker | None, *,
                    question_weight: float = QUESTION_WEIGHT,
                    addressed_weight: float = ADDRESSED_WEIGHT) -> bool:
    """Whether a unit's link opens Mallory's reply rather than the owner's message.

    Each turn weighs the IDF of the query terms it states, and QUESTION_WEIGHT of those
    it only asks about; the terms the owner's message asks about count for the reply in
    full, since the reply answers them ("What are their names?" → "Luna and Oliver!").
    On a tie (nothing matched: a vector-only hit) the owner's message, unless the query
    asks what Mallory said ("how did you say I should clean X" wants the method, not the
    old question). The weights are the module's (bench.pointer_probe replays others)."""
    def weight(found: frozenset[str], share: float = 1.0) -> float:
        return share * sum(idf.get(t, 1.0) for t in found)

    q_stated, q_asked = _split(question, terms)
    r_stated, r_asked = _split(reply, terms)
    mine = weight(q_stated)
    theirs = weight(r_stated | q_asked) + weight(r_asked - q_asked, question_weight)
    mine *= addressed_weight if asks == "user" else 1.0
    theirs *= addressed_weight if asks == "assistant" else 1.0
    if theirs == mine:
        return asks == "assistant"
    return theirs > mine

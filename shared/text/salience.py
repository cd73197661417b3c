"""Salience: the part of a long message recall searches with.

A chat message may run to the chat limit (shared/api/limits.py), recall's query to
MAX_QUERY_CHARS. A pasted text over that keeps its salient sentences, best first, within
the limit: a sentence scores by the weight of its distinct words (the caller's IDF
against the index, so words the index does not hold weigh nothing), divided by the
square root of their number, so a long sentence of common words does not win by length.
Repeated sentences count once. Best first, because the query keeps its first MAX_TERMS
terms (shared/text/sanitiser.py).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

from shared.text.porter import stem
from shared.text.stopwords import PHATIC, RECALL_META, STOPWORDS
from shared.text.tokenizer import MAX_QUERY_CHARS, normalize, tokens

# A sentence: up to its end mark, or a line.
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|$)", re.MULTILINE)


def sentences(text: str) -> list[str]:
    return [s for s in (" ".join(m.group(0).split()) for m in _SENTENCE.finditer(text)) if s]


def content_stems(text: str) -> set[str]:
    """The stems of a text's topic words (as the index holds them)."""
    return {stem(t) for t in tokens(text)
            if len(t) > 1 and t not in STOPWORDS and t not in RECALL_META and t not in PHATIC}


def _score(stems: set[str], weights: Mapping[str, float]) -> float:
    return sum(weights.get(s, 0.0) for s in stems) / math.sqrt(len(stems)) if stems else 0.0


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0]


def _weighed_words(text: str, weights: Mapping[str, float]) -> str:
    """A sentence too long for the limit, as its weighed words, each once, in order."""
    words: dict[str, None] = {}
    for word in tokens(text):
        if weights.get(stem(word), 0.0) > 0:
            words.setdefault(word)
    return " ".join(words)


def condense(text: str, weights: Mapping[str, float], share: float,
             limit: int = MAX_QUERY_CHARS) -> str:
    """`text` within `limit` characters: as it is when it fits, else its distinct
    sentences that score at least `share` of the best one (and above zero), best first
    (ties in text order), as many as fit. With no weighed word at all, its start.

    Only the best sentences, not as many as fit: recall's gate weighs a hit by the share
    of the query it matches, and filler around a fact would drown it."""
    text = normalize(text)
    if len(text) <= limit:
        return text
    seen: set[str] = set()
    scored = []
    for i, sentence in enumerate(sentences(text)):
        if sentence.lower() not in seen:
            seen.add(sentence.lower())
            scored.append((-_score(content_stems(sentence), weights), i, sentence))
    ranked = sorted(scored, key=lambda r: r[:2])
    best = -ranked[0][0] if ranked else 0.0
    picked: list[str] = []
    used = 0
    for negative, _, sentence in ranked:
        if negative >= 0 or -negative < share * best:
            break
        room = limit - used - (1 if picked else 0)
        if room < 1:
            break
        if len(sentence) > room:
            if picked:
                continue
            sentence = _cut(_weighed_words(sentence, weights), room)
        picked.append(sentence)
        used += len(sentence) + (1 if len(picked) > 1 else 0)
    return " ".join(picked) if picked else _cut(text, limit)

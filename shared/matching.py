"""Finding the query's terms in text, as FTS5 would match them (pure).

A term's pattern is its Porter stem as a word prefix ("enabl" marks "enabling"); a word
the pattern finds counts as a match only if it stems to the same index term, so
`matched_terms` agrees with what the FTS index matched ("running" matches "run", "runner"
does not). Phrases (identifiers) match their tokens in order, separated by non-word
characters, as unicode61 tokenized them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import lru_cache

from shared.candidate import Candidate
from shared.query import Term
from shared.stem import stem
from shared.text import fold


def term_pattern(term: Term) -> str:
    parts = []
    for token, root in zip(term.tokens, term.stems, strict=True):
        prefix = root if token.startswith(root) else token
        parts.append(re.escape(prefix) + r"\w*")
    return r"[\W_]+".join(parts)


def highlighter(terms: Sequence[Term]) -> re.Pattern[str] | None:
    """One pattern that finds any of the terms (longest first), for snippets and marks."""
    if not terms:
        return None
    alternatives = sorted({term_pattern(t) for t in terms}, key=len, reverse=True)
    return re.compile(r"(?<![^\W_])(?:" + "|".join(alternatives) + ")", re.IGNORECASE)


@lru_cache(maxsize=4_096)
def _compiled(term: Term) -> re.Pattern[str]:
    return re.compile(r"(?<![^\W_])" + term_pattern(term), re.IGNORECASE)


def _is_match(term: Term, found: str) -> bool:
    if len(term.tokens) > 1:
        return True  # the phrase pattern already requires every token in order
    word = fold(found)
    if term.prefix:
        return word.startswith(term.tokens[0])
    return stem(word) == term.stems[0]


def term_in(term: Term, texts: Iterable[str]) -> bool:
    pattern = _compiled(term)
    return any(_is_match(term, m.group(0)) for text in texts if text
               for m in pattern.finditer(text))


def matched_terms(terms: Sequence[Term], texts: Sequence[str]) -> frozenset[str]:
    """The FTS form of every term that occurs in any of the texts."""
    return frozenset(t.fts for t in terms if term_in(t, texts))


def with_terms(candidates: Sequence[Candidate], terms: Sequence[Term]) -> list[Candidate]:
    """Candidates annotated with the query terms each one matches (text and fields)."""
    return [replace(c, terms=matched_terms(terms, [c.text, *(v for _, v in c.fields)]))
            for c in candidates]

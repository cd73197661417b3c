"""Finding the query's terms in text, as FTS5 would match them (pure).

A term's pattern is its Porter stem as a word prefix ("enabl" marks "enabling"); a word
the pattern finds counts as a match only if it stems to the same index term, so
`matched_terms` agrees with what the FTS index matched ("running" matches "run", "runner"
does not). Phrases (identifiers) match their tokens in order, separated by non-word
characters, as unicode61 tokenized them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

from shared.rank.candidate import Candidate
from shared.text.porter import stem
from shared.text.sanitiser import Term
from shared.text.tokenizer import fold


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
def _compiled(terms: tuple[Term, ...]) -> re.Pattern[str]:
    """One pattern for all the terms: it stops at each word start where any term's
    pattern matches, and captures, per term, what that term's own pattern matches there
    (a lookahead per term), so a text is scanned once instead of once per term."""
    patterns = [term_pattern(t) for t in terms]
    each = "".join(f"(?:(?=({p})))?" for p in patterns)
    return re.compile(r"(?<![^\W_])(?=" + "|".join(patterns) + ")" + each, re.IGNORECASE)


@lru_cache(maxsize=16_384)
def _is_match(term: Term, found: str) -> bool:
    """Cached: the same few words match a query's terms in row after row (stemming and
    folding each again was a fifth of recall's Python time, bench.latency)."""
    if len(term.tokens) > 1:
        return True  # the phrase pattern already requires every token in order
    word = fold(found)
    if term.prefix:
        return word.startswith(term.tokens[0])
    return stem(word) == term.stems[0]


def matched_terms(terms: Sequence[Term], texts: Sequence[str]) -> frozenset[str]:
    """The FTS form of every term that occurs in any of the texts (see `_matched`)."""
    return _matched(tuple(terms), tuple(texts))


# Cached: recall asks about the same texts more than once per query (a conversation
# unit's reply, to choose its focus and then to correct its relevance; the hits again at
# the gate), and this many entries hold one query's candidate rows (131 at most, see
# bench.latency) several times over.
@lru_cache(maxsize=512)
def _matched(terms: tuple[Term, ...], texts: tuple[str, ...]) -> frozenset[str]:
    """The FTS form of every term that occurs in any of the texts.

    A term occurs when one of the matches its own pattern finds (left to right, each
    resuming where the last ended) stems to it. The single scan reproduces exactly those
    matches: a term's capture at a word start is ignored when its previous match covers
    that start (tests/shared/text/test_matcher.py holds it to the one-pattern-per-term scan;
    on 100k messages + 10k notes it halved the time recall spends here, bench.latency)."""
    if not terms:
        return frozenset()
    pattern, names = _compiled(terms), [t.fts for t in terms]
    wanted = len(set(names))
    found: set[str] = set()
    for text in texts:
        if not text:
            continue
        ends = [0] * len(terms)
        for m in pattern.finditer(text):
            at = m.start()
            for k, word in enumerate(m.groups()):
                if word is None or at < ends[k] or names[k] in found:
                    continue
                ends[k] = at + len(word)
                if _is_match(terms[k], word):
                    found.add(names[k])
            if len(found) == wanted:
                return frozenset(found)
    return frozenset(found)


def with_terms(candidates: Sequence[Candidate], terms: Sequence[Term]) -> list[Candidate]:
    """Candidates annotated with the query terms each one matches (text and fields)."""
    return [replace(c, terms=matched_terms(terms, [c.text, *(v for _, v in c.fields)]))
            for c in candidates]

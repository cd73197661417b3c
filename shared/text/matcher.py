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


def _prefix(term: Term) -> str | None:
    """A single-token term's pattern prefix in lower-case ASCII, or None (a phrase, or a
    prefix outside ASCII: those take the pattern)."""
    if len(term.tokens) != 1:
        return None
    token, root = term.tokens[0], term.stems[0]
    prefix = (root if token.startswith(root) else token).lower()
    return prefix if prefix.isascii() and prefix else None


@lru_cache(maxsize=4_096)
def _split(terms: tuple[Term, ...]) -> tuple[tuple[tuple[Term, str], ...], tuple[Term, ...]]:
    """The terms an ASCII text can match by prefix (with their prefix), and the rest."""
    prefixed = tuple((t, p) for t in terms if (p := _prefix(t)) is not None)
    return prefixed, tuple(t for t in terms if _prefix(t) is None)


def _ascii_words(prefix: str, text: str, lowered: str) -> list[str]:
    r"""The matches of `(?<![^\W_])prefix\w*` (case-insensitive) in an ASCII text, left to
    right, each resuming where the last ended, found with str.find: in ASCII a word
    character is a letter, a digit or "_", and case-folding is lower(). On the latency
    queries this is 5-10x faster than the pattern (bench.latency --profile)."""
    words, at, n = [], 0, len(text)
    while (at := lowered.find(prefix, at)) >= 0:
        if at and lowered[at - 1].isalnum():
            at += 1  # inside a word: not a word start
            continue
        end = at + len(prefix)
        while end < n and (lowered[end].isalnum() or lowered[end] == "_"):
            end += 1
        words.append(text[at:end])
        at = end
    return words


def _scan(terms: tuple[Term, ...], text: str, found: set[str], wanted: int) -> None:
    """Add to `found` the FTS form of every term that occurs in `text`.

    A term occurs when one of the matches its own pattern finds (left to right, each
    resuming where the last ended) stems to it. In an ASCII text a single-token term's
    matches are found with str.find (`_ascii_words`); the other terms share one pattern,
    whose single scan reproduces exactly those matches: a term's capture at a word start is
    ignored when its previous match covers that start (tests/shared/text/test_matcher.py
    holds both to the one-pattern-per-term scan)."""
    rest = terms
    if text.isascii():
        lowered = text.lower()
        prefixed, rest = _split(terms)
        for term, prefix in prefixed:
            if term.fts not in found and any(
                    _is_match(term, w) for w in _ascii_words(prefix, text, lowered)):
                found.add(term.fts)
        if not rest or len(found) == wanted:
            return
    pattern, names = _compiled(rest), [t.fts for t in rest]
    ends = [0] * len(rest)
    for m in pattern.finditer(text):
        at = m.start()
        for k, word in enumerate(m.groups()):
            if word is None or at < ends[k] or names[k] in found:
                continue
            ends[k] = at + len(word)
            if _is_match(rest[k], word):
                found.add(names[k])
        if len(found) == wanted:
            return


# Cached: recall asks about the same texts more than once per query (a conversation
# unit's reply, to choose its focus and then to correct its relevance; the hits again at
# the gate), and this many entries hold one query's candidate rows (131 at most, see
# bench.latency) several times over.
@lru_cache(maxsize=512)
def _matched(terms: tuple[Term, ...], texts: tuple[str, ...]) -> frozenset[str]:
    """The FTS form of every term that occurs in any of the texts (see `_scan`)."""
    if not terms:
        return frozenset()
    wanted = len({t.fts for t in terms})
    found: set[str] = set()
    for text in texts:
        if text:
            _scan(terms, text, found, wanted)
            if len(found) == wanted:
                break
    return frozenset(found)


def matched_in_each(terms: Sequence[Term], texts: Sequence[str]) -> frozenset[str]:
    """`matched_terms` over the texts, each text matched (and cached) on its own: for a
    conversation unit, whose two turns are matched one at a time anyway to choose its
    focus (shared/text/turns.py), matching them together as well was a third of recall's
    matching (bench.latency --profile)."""
    key = tuple(terms)
    return frozenset().union(*(_matched(key, (text,)) for text in texts))


def with_terms(candidates: Sequence[Candidate], terms: Sequence[Term]) -> list[Candidate]:
    """Candidates annotated with the query terms each one matches (text and fields)."""
    return [replace(c, presentation=replace(c.presentation, terms=matched_terms(
        terms, [c.presentation.text, *(v for _, v in c.presentation.fields)])))
            for c in candidates]


def _words_from(prefix: str, text: str) -> list[str]:
    """The words of `text` that start with `prefix` (case-insensitive), left to right."""
    if text.isascii():
        return _ascii_words(prefix, text, text.lower())
    return [m.group(0) for m in re.finditer(r"(?<![^\W_])" + re.escape(prefix) + r"\w*",
                                            text, re.IGNORECASE)]


def stem_prefix_only(typed: Sequence[Term], searched: Sequence[Term],
                     texts: Sequence[str]) -> bool:
    """Whether FTS5 matched these texts only through the stem of a word typed last.

    Search as you type makes the last word a prefix, and FTS5 stems a prefix before it
    expands it: "lease"* is searched as "leas"* and finds "least". A text holds none of
    the searched terms, and no inflection of the typed word ("leasing"), but a word that
    starts with its stem: that word is the only match (a text that holds no such word
    matched for a reason this cannot see, and is kept)."""
    if matched_terms(searched, texts):
        return False
    wide = False
    for term in typed:
        if not term.prefix or len(term.tokens) != 1:
            continue
        token, root = term.tokens[0], term.stems[0]
        if not token.startswith(root):
            continue  # the pattern prefix is the typed word itself: no wider than typed
        for text in texts:
            for word in _words_from(root, text):
                if stem(fold(word)) == root:
                    return False  # an inflection of the typed word ("leasing")
                wide = True
    return wide

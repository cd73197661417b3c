"""Snippets for the final hits, in Python (pure).

FTS5's snippet() re-runs the MATCH for each row and tokenizes the whole column; measured
on 100k messages + 10k notes (bench.latency) it cost more than the ranking query itself.
Hits already carry the start of their text, so the snippet is cut here instead: one
compiled regex finds the query's words (each Porter stem as a word prefix, so "enabl"
marks "enabling"), and the window holding the most distinct matches wins.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from shared.query import Term

SNIPPET_CHARS = 220
LEAD_CHARS = 50
MAX_MATCHES = 400
ELLIPSIS = "…"
_SPACES = re.compile(r"\s+")


def _term_pattern(term: Term) -> str:
    parts = []
    for token, stem in zip(term.tokens, term.stems, strict=True):
        root = stem if token.startswith(stem) else token
        parts.append(re.escape(root) + r"\w*")
    return r"[\W_]+".join(parts)


def highlighter(terms: Sequence[Term]) -> re.Pattern[str] | None:
    if not terms:
        return None
    alternatives = sorted({_term_pattern(t) for t in terms}, key=len, reverse=True)
    return re.compile(r"(?<![^\W_])(?:" + "|".join(alternatives) + ")", re.IGNORECASE)


def _window(starts: list[int], words: list[str]) -> int:
    """Start of the SNIPPET_CHARS window (opening LEAD_CHARS before a match) that holds the
    most distinct matched words; earliest on ties. Two pointers: windows only move right."""
    best_start, best_count = 0, -1
    counts: dict[str, int] = {}
    right = 0
    for i, position in enumerate(starts):
        begin = max(position - LEAD_CHARS, 0)
        while right < len(starts) and starts[right] < begin + SNIPPET_CHARS:
            counts[words[right]] = counts.get(words[right], 0) + 1
            right += 1
        if len(counts) > best_count:
            best_start, best_count = begin, len(counts)
        counts[words[i]] -= 1
        if not counts[words[i]]:
            del counts[words[i]]
    return best_start


def make_snippet(text: str, pattern: re.Pattern[str] | None
                 ) -> tuple[str, list[tuple[int, int]]]:
    """A ~220-character window of `text` around the query's words, with match spans."""
    matches = list(pattern.finditer(text, 0, len(text)))[:MAX_MATCHES] if pattern else []
    begin = _window([m.start() for m in matches], [m.group(0).lower() for m in matches]) \
        if matches else 0
    # Whitespace is collapsed in the window only (a long note's text is never rewritten).
    raw = text[begin:begin + SNIPPET_CHARS * 2]
    window = _SPACES.sub(" ", raw).strip()
    if begin > 0:
        space = window.find(" ")
        window = window[space + 1:] if 0 <= space < 20 else window
    cut = window[:SNIPPET_CHARS]
    if len(window) > SNIPPET_CHARS:
        space = cut.rfind(" ")
        cut = cut[:space] if space > SNIPPET_CHARS // 2 else cut
    more_after = len(window) > len(cut) or begin + len(raw) < len(text)
    prefix = ELLIPSIS if begin > 0 else ""
    snippet = prefix + cut + (ELLIPSIS if more_after else "")
    spans = [(m.start(), m.end()) for m in pattern.finditer(snippet)] if pattern else []
    return snippet, spans

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


def _window(text: str, starts: list[int], words: list[str]) -> int:
    best_start, best_count = 0, -1
    for i, position in enumerate(starts):
        begin = max(position - LEAD_CHARS, 0)
        end = begin + SNIPPET_CHARS
        distinct = {w for j, w in enumerate(words[i:], i) if starts[j] < end}
        if len(distinct) > best_count:
            best_start, best_count = begin, len(distinct)
    return best_start


def make_snippet(text: str, pattern: re.Pattern[str] | None
                 ) -> tuple[str, list[tuple[int, int]]]:
    """A ~220-character window of `text` around the query's words, with match spans."""
    text = _SPACES.sub(" ", text).strip()
    matches = list(pattern.finditer(text))[:MAX_MATCHES] if pattern else []
    begin = _window(text, [m.start() for m in matches], [m.group(0).lower() for m in matches]) \
        if matches else 0
    if begin > 0:
        space = text.find(" ", begin)
        begin = space + 1 if 0 <= space < begin + 20 else begin
    end = min(begin + SNIPPET_CHARS, len(text))
    if end < len(text):
        space = text.rfind(" ", begin, end)
        end = space if space > begin + SNIPPET_CHARS // 2 else end
    prefix = ELLIPSIS if begin > 0 else ""
    suffix = ELLIPSIS if end < len(text) else ""
    snippet = prefix + text[begin:end] + suffix
    shift = len(prefix) - begin
    spans = [(m.start() + shift, m.end() + shift) for m in matches
             if m.start() >= begin and m.end() <= end]
    return snippet, spans

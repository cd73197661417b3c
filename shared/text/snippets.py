"""Snippets for the final hits, in Python (pure).

FTS5's snippet() re-runs the MATCH for each row and tokenizes the whole column; measured
on 100k messages + 10k notes (bench.latency) it cost more than the ranking query itself.
Hits already carry their text, so the snippet is cut here instead: one compiled regex
finds the query's words (shared.text.matcher), and the window holding the most distinct
matches wins.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from shared.rank.candidate import Candidate
from shared.text.matcher import highlighter
from shared.text.sanitiser import Term

# A search hit's snippet; the Recall block has its own excerpt length
# (shared.block.envelope.EXCERPT_CHARS), since the model reads more than a result list shows.
SEARCH_SNIPPET_CHARS = 220
LEAD_CHARS = 50
MAX_MATCHES = 400
ELLIPSIS = "…"
_SPACES = re.compile(r"\s+")


def _window(starts: list[int], words: list[str], chars: int) -> int:
    """Start of the `chars` window (opening LEAD_CHARS before a match) that holds the
    most distinct matched words; earliest on ties. Two pointers: windows only move right."""
    best_start, best_count = 0, -1
    counts: dict[str, int] = {}
    right = 0
    for i, position in enumerate(starts):
        begin = max(position - LEAD_CHARS, 0)
        while right < len(starts) and starts[right] < begin + chars:
            counts[words[right]] = counts.get(words[right], 0) + 1
            right += 1
        if len(counts) > best_count:
            best_start, best_count = begin, len(counts)
        counts[words[i]] -= 1
        if not counts[words[i]]:
            del counts[words[i]]
    return best_start


def make_snippet(text: str, pattern: re.Pattern[str] | None,
                 chars: int = SEARCH_SNIPPET_CHARS) -> tuple[str, list[tuple[int, int]]]:
    """A window of about `chars` characters of `text` around the query's words, with the
    match spans inside the returned snippet."""
    matches = list(pattern.finditer(text, 0, len(text)))[:MAX_MATCHES] if pattern else []
    begin = _window([m.start() for m in matches], [m.group(0).lower() for m in matches],
                    chars) \
        if matches else 0
    # Whitespace is collapsed in the window only (a long note's text is never rewritten).
    raw = text[begin:begin + chars * 2]
    window = _SPACES.sub(" ", raw).strip()
    if begin > 0:
        space = window.find(" ")
        window = window[space + 1:] if 0 <= space < 20 else window
    cut = window[:chars]
    if len(window) > chars:
        space = cut.rfind(" ")
        cut = cut[:space] if space > chars // 2 else cut
    more_after = len(window) > len(cut) or begin + len(raw) < len(text)
    prefix = ELLIPSIS if begin > 0 else ""
    snippet = prefix + cut + (ELLIPSIS if more_after else "")
    spans = [(m.start(), m.end()) for m in pattern.finditer(snippet)] if pattern else []
    return snippet, spans


def snip(candidates: Sequence[Candidate], terms: Sequence[Term], chars: int
         ) -> list[Candidate]:
    """The final candidates with their snippets cut around the query's words."""
    marks = highlighter(terms)
    return [replace(c, presentation=replace(
        c.presentation, snippet=make_snippet(c.presentation.text, marks, chars)[0]))
            for c in candidates]

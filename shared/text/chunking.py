"""Splitting long text into retrieval units (pure): note sections and conversation turns.

A unit is at most about MAX_UNIT_CHARS: short enough that its BM25 score and its snippet
are about one idea (a 17 KB note scored a fact in its 37th section at relevance 0.056
when ranked whole), long enough to hold a paragraph with its context. Text is cut at
paragraph boundaries, then at line and sentence ends, then at spaces; consecutive parts
overlap by about OVERLAP_CHARS so a fact that straddles a cut is whole in one of them.

`split_spans` works on offsets, so the hub can send a note's sections as spans of the
body it already sends; `split_text` gives the parts themselves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_UNIT_CHARS = 1_500
OVERLAP_CHARS = 150
# A piece shorter than this is merged into its neighbour rather than standing alone.
MIN_UNIT_CHARS = 200

# The breaks, strongest first, each found by searching the window reversed (its last match
# is the reversed window's first): paragraph, line, sentence end, space. Each matches as
# its forward pattern's finditer would, the last of which is where a part ends: a
# paragraph break starts at the first "\n" of a whitespace run holding two, a space break
# at the start of its run, a sentence break at whitespace after [.!?] (which may sit just
# before the window: `context` characters of it are searched too).
@dataclass(frozen=True)
class _Break:
    reversed_pattern: re.Pattern[str]
    context: int = 0


_BREAKS = (_Break(re.compile(r"\n\s*\n")), _Break(re.compile(r"\n")),
           _Break(re.compile(r"\s(?=[.!?])"), context=1), _Break(re.compile(r"\s+")))
_SPACE = re.compile(r"\s")


def _last_break(text: str, kind: _Break, lo: int, hi: int) -> int | None:
    """Where the last match of the break's forward pattern in text[lo:hi] starts."""
    base = max(lo - kind.context, 0)
    window = text[base:hi]
    found = kind.reversed_pattern.search(window[::-1])
    return None if found is None else base + len(window) - found.end()


def _cut(text: str, start: int, limit: int) -> int:
    """Where the part starting at `start` ends: the last break of the strongest kind that
    leaves a part of at least half the limit, else a hard cut at the limit."""
    window_end = start + limit
    for kind in _BREAKS:
        end = _last_break(text, kind, start + limit // 2, window_end + 1)
        if end is not None:
            return end
    return window_end


def _overlap_start(text: str, start: int, end: int) -> int:
    """Where the next part begins so that it repeats about OVERLAP_CHARS of this one: a
    word start near `end - OVERLAP_CHARS` (no overlap for short parts)."""
    if end - start <= 2 * OVERLAP_CHARS:
        return end
    at = end - OVERLAP_CHARS
    space = _SPACE.search(text, at, end)
    return space.end() if space else at


def _strip(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def split_spans(text: str, start: int = 0, end: int | None = None,
                limit: int = MAX_UNIT_CHARS) -> list[tuple[int, int]]:
    """[start, end) spans of `text[start:end]`, each at most `limit` characters and not
    blank, in order; consecutive spans overlap. A tiny tail joins the span before it
    when that stays within the limit."""
    start, end = _strip(text, start, len(text) if end is None else end)
    spans: list[tuple[int, int]] = []
    while end - start > limit:
        cut = _cut(text, start, limit)
        s, e = _strip(text, start, cut)
        if e > s:
            spans.append((s, e))
        nxt = _overlap_start(text, s, e) if e > s else cut
        start, _ = _strip(text, max(nxt, start + 1), end)
    if end > start:
        if spans and end - start < MIN_UNIT_CHARS and end - spans[-1][0] <= limit:
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
    return spans


def split_text(text: str, limit: int = MAX_UNIT_CHARS) -> list[str]:
    """`text` in parts of at most `limit` characters; blank text gives no parts."""
    return [text[s:e] for s, e in split_spans(text, limit=limit)]

"""Splitting long text into retrieval units (pure): note sections and conversation turns.

A unit is at most about MAX_UNIT_CHARS: short enough that its BM25 score and its snippet
are about one idea (a 17 KB note scored a fact in its 37th section at relevance 0.056
when ranked whole), long enough to hold a paragraph with its context. Text is cut at
paragraph boundaries, then at line and sentence ends, then at spaces; consecutive parts
overlap by about OVERLAP_CHARS so a fact that straddles a cut is whole in one of them.
"""

from __future__ import annotations

import re

MAX_UNIT_CHARS = 1_500
OVERLAP_CHARS = 150
# A piece shorter than this is merged into its neighbour rather than standing alone.
MIN_UNIT_CHARS = 200

_BREAKS = (re.compile(r"\n\s*\n"), re.compile(r"\n"), re.compile(r"(?<=[.!?])\s+"),
           re.compile(r"\s+"))


def _cut(text: str, limit: int) -> int:
    """Where to end the first part of `text`: the last break of the strongest kind that
    leaves a part of at least half the limit, else a hard cut at the limit."""
    window = text[:limit + 1]
    for pattern in _BREAKS:
        ends = [m.start() for m in pattern.finditer(window) if m.start() >= limit // 2]
        if ends:
            return ends[-1]
    return limit


def _overlap_start(part: str) -> int:
    """Where the overlap carried into the next part begins: a word start within the last
    OVERLAP_CHARS of `part`."""
    if len(part) <= OVERLAP_CHARS:
        return len(part)
    start = len(part) - OVERLAP_CHARS
    space = part.find(" ", start)
    return space + 1 if 0 <= space < len(part) - 1 else start


def split_text(text: str, limit: int = MAX_UNIT_CHARS) -> list[str]:
    """`text` in parts of at most `limit` characters (plus nothing: the overlap is taken
    from inside the limit). Empty or blank text gives no parts."""
    text = text.strip()
    if not text:
        return []
    parts: list[str] = []
    rest = text
    while len(rest) > limit:
        end = _cut(rest, limit)
        part = rest[:end].rstrip()
        parts.append(part)
        carry = part[_overlap_start(part):] if len(part) > OVERLAP_CHARS * 2 else ""
        rest = (carry + " " + rest[end:].lstrip()).strip() if carry else rest[end:].lstrip()
    if rest:
        if parts and len(rest) < MIN_UNIT_CHARS and len(parts[-1]) + len(rest) + 1 <= limit:
            parts[-1] = parts[-1] + "\n" + rest
        else:
            parts.append(rest)
    return parts

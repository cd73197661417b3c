"""Duplicate/context waste (docs/design.md, "Knowledge model"): the share of a Recall
block's quoted text that repeats what the block already holds (pure).

Definition, over the quoted lines of the block (excerpts, Mallory's replies and the
owner's questions, each the text inside «…»), read in block order:
- text is measured in word characters: the lengths of its words (`\\w+`, lower-cased),
  so spaces, punctuation and the ellipsis of a cut excerpt count for nothing;
- every quoted line of a hit whose parent (its note, or its conversation) already has a
  hit earlier in the block is waste whole: it repeats the parent;
- a line whose words are exactly those of an earlier quoted line is waste whole (a short
  reply such as «Sputnik 1» recalled twice);
- in any other line, a word is waste when it lies in a run of SHINGLE_WORDS consecutive
  words that an earlier quoted line of the block already holds (repeats within one line
  are not counted).

waste = wasted characters / quoted characters; None for an empty block.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from shared.block.envelope import INDENT, QUOTE_CLOSE, QUOTE_OPEN

# Eight words in a row is a quotation, not a shared phrase ("how do I …" is four).
SHINGLE_WORDS = 8
_HEADER = re.compile(r"^\[(\d+)\] ")
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class QuotedLine:
    hit: int  # the hit's number in the block, from 1
    text: str


def quoted_lines(block: str) -> list[QuotedLine]:
    """Every quoted line of a Recall block with the number of the hit it belongs to."""
    lines, hit = [], 0
    for line in block.splitlines():
        header = _HEADER.match(line)
        if header:
            hit = int(header.group(1))
        elif hit and line.startswith(INDENT) and line.endswith(QUOTE_CLOSE) \
                and QUOTE_OPEN in line:
            lines.append(QuotedLine(hit, line[line.index(QUOTE_OPEN) + 1:-1]))
    return lines


def _shingles(words: Sequence[str]) -> list[tuple[str, ...]]:
    return [tuple(words[i:i + SHINGLE_WORDS]) for i in range(len(words) - SHINGLE_WORDS + 1)]


def wasted_chars(block: str, parents: Sequence[str]) -> tuple[int, int]:
    """(wasted, quoted) word characters of a block; `parents[n - 1]` is hit n's parent."""
    seen: set[tuple[str, ...]] = set()
    lines_before: set[tuple[str, ...]] = set()
    parents_before: set[str] = set()
    wasted = quoted = 0
    current = 0
    for line in quoted_lines(block):
        if line.hit > len(parents):
            raise ValueError(f"hit [{line.hit}] of the block has no parent given")
        if line.hit != current:
            if current:
                parents_before.add(parents[current - 1])
            current = line.hit
        words = _WORD.findall(line.text.lower())
        shingles = _shingles(words)
        quoted += sum(map(len, words))
        if parents[line.hit - 1] in parents_before or tuple(words) in lines_before:
            wasted += sum(map(len, words))
        else:
            repeated = [False] * len(words)
            for i, shingle in enumerate(shingles):
                if shingle in seen:
                    repeated[i:i + SHINGLE_WORDS] = [True] * SHINGLE_WORDS
            wasted += sum(len(w) for w, r in zip(words, repeated, strict=True) if r)
        lines_before.add(tuple(words))
        seen.update(shingles)
    return wasted, quoted


def context_waste(block: str, parents: Sequence[str]) -> float | None:
    wasted, quoted = wasted_chars(block, parents)
    return wasted / quoted if quoted else None

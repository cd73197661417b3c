"""Obsidian block ids: which block of a section a note hit links to.

A paragraph that ends with ` ^abc123` (or is followed by a line holding only `^abc123`,
as Obsidian writes it after a list, quote or table) can be opened directly:
`file=Note%23%5Eabc123` (shared/block/citations.py). A hit links to a block when the paragraph of
its section that matches the most query terms carries an id; otherwise it links to the
section's heading. A tie goes to the earlier paragraph, as a reader meets it first.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from shared.text.matcher import matched_terms
from shared.text.sanitiser import Term

# Obsidian's block ids: letters, digits and dashes after a caret, ending the block's last
# line, after a space (or alone on the line).
_BLOCK_ID = re.compile(r"(?:^|[ \t])\^([A-Za-z0-9-]+)[ \t]*\Z")
_PARAGRAPHS = re.compile(r"\n[ \t]*\n")


def paragraphs(text: str) -> list[tuple[str, str]]:
    """(paragraph, its block id or "") in order; a paragraph holding only an id gives it
    to the paragraph before it."""
    found: list[tuple[str, str]] = []
    for part in _PARAGRAPHS.split(text):
        part = part.strip()
        if not part:
            continue
        match = _BLOCK_ID.search(part)
        block = match.group(1) if match else ""
        if block and match is not None and match.start() == 0 and found and not found[-1][1]:
            found[-1] = (found[-1][0], block)  # `^id` on its own after a list or quote
        else:
            found.append((part, block))
    return found


def best_block(text: str, terms: Sequence[Term]) -> str:
    """The block id of the section's best-matching paragraph, or "" when that paragraph
    has none (or nothing matches). A text without a caret holds no block id: nothing to
    match (matching every paragraph of every note row was a third of recall's Python
    time at 10k messages + 1k notes, bench.latency --profile)."""
    if "^" not in text:
        return ""
    best, best_count = "", 0
    for paragraph, block in paragraphs(text):
        count = len(matched_terms(terms, [paragraph]))
        if count > best_count:
            best, best_count = block, count
    return best

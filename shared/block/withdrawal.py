"""Does an answer's quote of a note still hold? (pure)

An answer records the excerpt of each note it cited, as the Recall block showed it:
whitespace collapsed, angle brackets and guillemets neutralised, cut with "…" at either
end (shared/text/snippets.py, shared/block/envelope.py). The quote still holds when every piece
of it between ellipses appears in the note's text normalised the same way.
"""

from __future__ import annotations

from shared.block.envelope import neutralise
from shared.text.snippets import ELLIPSIS


def still_quoted(excerpt: str, text: str) -> bool:
    pieces = [p.strip() for p in excerpt.split(ELLIPSIS)]
    pieces = [p for p in pieces if p]
    if not pieces:
        return True  # nothing was quoted, so nothing can be withdrawn
    haystack = neutralise(text)
    return all(p in haystack for p in pieces)

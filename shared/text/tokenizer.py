"""Text normalisation and the word-level tokenizer that mirrors FTS5's unicode61.

unicode61 (our FTS tokenizer) makes a token of every run of Unicode letters and digits
and splits on everything else, underscore included; with remove_diacritics 2 it folds
accents. `tokens()` reproduces that, so the query side sees the words the index holds.
"""

from __future__ import annotations

import re
import unicodedata

from shared.api.errors import QueryTooLong

MAX_QUERY_CHARS = 2_000

_WHITESPACE = re.compile(r"\s+")
_TOKEN = re.compile(r"[^\W_]+")


# ASCII's only control characters (category Cc); NFKC leaves ASCII as it is.
_ASCII_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def normalize(text: str) -> str:
    """NFKC, trim, collapse whitespace; control characters become spaces."""
    if text.isascii():
        # The same result without a Python step per character: recall sanitises every
        # note title and alias it weighs (shared/knowledge/standing.py), a tenth of its Python time
        # at 100k messages + 10k notes (bench.latency).
        text = _ASCII_CONTROL.sub(" ", text)
    else:
        text = unicodedata.normalize("NFKC", text)
        text = "".join(" " if unicodedata.category(c) in {"Cc", "Cs", "Co", "Cn"} else c
                       for c in text)
    return _WHITESPACE.sub(" ", text).strip()


def normalize_query(text: str) -> str:
    """normalize() plus the length rule for search and chat text."""
    text = normalize(text)
    if len(text) > MAX_QUERY_CHARS:
        raise QueryTooLong(
            f"text is {len(text)} characters; recall searches at most {MAX_QUERY_CHARS}. "
            "Shorten it or search for its key words."
        )
    return text


def fold(word: str) -> str:
    """Lower-case and strip diacritics, as unicode61 remove_diacritics 2 does."""
    if word.isascii():
        return word.lower()  # no diacritics to strip
    decomposed = unicodedata.normalize("NFKD", word.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def tokens(text: str) -> list[str]:
    """The folded tokens FTS5 would index for `text` (before stemming)."""
    return [fold(t) for t in _TOKEN.findall(text)]

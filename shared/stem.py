"""Porter stemming as SQLite's FTS5 `porter` tokenizer does it.

FTS5 stems with Martin Porter's original algorithm, which Snowball's `porter` stemmer
implements (pure Python, so it runs in Pyodide). FTS5 leaves tokens shorter than 3 or
longer than 64 characters unstemmed. tests/test_stem.py checks this module against the
terms real FTS5 wrote to its vocabulary for the whole dev corpus.
"""

from __future__ import annotations

from functools import lru_cache

import snowballstemmer

_STEMMER = snowballstemmer.stemmer("porter")
MIN_STEM_CHARS = 3
MAX_STEM_CHARS = 64


@lru_cache(maxsize=65_536)
def stem(token: str) -> str:
    if not (MIN_STEM_CHARS <= len(token) <= MAX_STEM_CHARS) or not token.isascii():
        return token
    return _STEMMER.stemWord(token)

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


_VOWELS = frozenset("aeiou")


def _measure(word: str) -> int:
    """Porter's m: the number of vowel-consonant sequences in the word ('y' after a
    consonant counts as a vowel)."""
    pattern = []
    for i, c in enumerate(word):
        vowel = c in _VOWELS or (c == "y" and i > 0 and pattern[-1] == "c")
        pattern.append("v" if vowel else "c")
    return "".join(pattern).count("vc")


@lru_cache(maxsize=65_536)
def stem(token: str) -> str:
    if not (MIN_STEM_CHARS <= len(token) <= MAX_STEM_CHARS) or not token.isascii():
        return token
    stemmed = _STEMMER.stemWord(token)
    # FTS5 also applies the step-2 rule (m>0) LOGI → LOG from Porter's later revision,
    # which Snowball's "porter" leaves out: "psychology" is "psycholog" in the index.
    if stemmed.endswith("logi") and _measure(stemmed[:-4]) > 0:
        return stemmed[:-1]
    return stemmed

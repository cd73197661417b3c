"""Synthetic corpora with realistic word statistics, for the performance benchmarks.

Words follow a Zipf distribution (s = 1.07, as measured for English) over a vocabulary of
pronounceable pseudo-words plus a real English stopword layer, so doclist lengths and
term rarity look like real text; lengths are log-normal (chat messages ~40 words, notes
~300). Deterministic for a given seed.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
from dataclasses import dataclass

import numpy as np

from shared.text.stopwords import STOPWORDS
from shared.time.durations import MS_PER_DAY as DAY_MS

ZIPF_S = 1.07
VOCABULARY = 40_000
_ONSETS = ["b", "c", "d", "f", "g", "h", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w",
           "br", "ch", "cl", "dr", "fl", "gr", "pl", "pr", "sh", "st", "th", "tr"]
_VOWELS = ["a", "e", "i", "o", "u", "ai", "ea", "io", "ou"]
_CODAS = ["", "n", "r", "s", "t", "l", "m", "nd", "st", "ck"]
_CHUNK = 65_536


def vocabulary(size: int = VOCABULARY, seed: int = 3) -> list[str]:
    """Stopwords first (the most frequent ranks), then pseudo-words in random order, so
    that first letters spread over the alphabet as in a real vocabulary."""
    return list(_vocabulary(size, seed))


@functools.cache
def _vocabulary(size: int, seed: int) -> tuple[str, ...]:
    syllables = [o + v + c for o, v, c in itertools.product(_ONSETS, _VOWELS, _CODAS)]
    # The shuffle of every (first, second) syllable pair, done on their indices: the same
    # permutation as shuffling the 6.35 million pair strings, in a tenth of the time.
    order = np.arange(len(syllables) ** 2)
    np.random.default_rng(seed).shuffle(order)
    words: list[str] = sorted(STOPWORDS)
    seen = set(words)
    for start in range(0, len(order), _CHUNK):
        for k in order[start:start + _CHUNK].tolist():
            if len(words) >= size:
                return tuple(words)
            first, second = divmod(k, len(syllables))
            word = syllables[first] + syllables[second]
            if word not in seen:
                seen.add(word)
                words.append(word)
    return tuple(words)


@dataclass
class Generator:
    seed: int = 7

    def __post_init__(self) -> None:
        self.rng = np.random.default_rng(self.seed)
        self.words = np.array(vocabulary())
        ranks = np.arange(1, len(self.words) + 1)
        weights = 1.0 / ranks**ZIPF_S
        # The stopwords take the most frequent ranks, as they do in real text.
        self.p = weights / weights.sum()
        # What rng.choice(words, p=p) does inside (the same draws, the same words), with
        # the cumulative weights computed once, not checked and summed again per text.
        self.cdf = np.cumsum(self.p)
        self.cdf /= self.cdf[-1]

    def text(self, mean_words: float, sigma: float = 0.6) -> str:
        n = max(2, int(self.rng.lognormal(np.log(mean_words), sigma)))
        return " ".join(self.words[self.cdf.searchsorted(self.rng.random(n), side="right")])

    def query(self) -> str:
        """A chat-like query: a few topic words (mid and rare ranks) among stopwords."""
        topic = self.rng.choice(self.words[300:6_000], size=int(self.rng.integers(2, 6)))
        filler = self.rng.choice(self.words[:120], size=int(self.rng.integers(2, 6)))
        words = list(topic) + list(filler)
        self.rng.shuffle(words)
        return " ".join(words) + "?"

    def messages(self, n: int, now_ms: int) -> list[tuple]:
        rows = []
        for i in range(n):
            conv = f"c{i // 8}"
            created = now_ms - int(self.rng.integers(0, 700)) * DAY_MS
            rows.append((f"m{i}", conv, i % 8 + 1, "user" if i % 2 == 0 else "assistant",
                         self.text(40), created))
        return rows

    def sectioned(self, sections: int, mean_words: float) -> str:
        """A body of `sections` level-2 headed sections of about `mean_words` words."""
        return "\n\n".join(f"## {self.text(3, 0.3)}\n\n{self.text(mean_words)}"
                             for _ in range(sections))

    def notes(self, n: int, now_ms: int, sections: int = 0) -> list[tuple]:
        """Note rows; with `sections`, each body is that many headed sections holding
        the same ~300 words between them."""
        rows = []
        for i in range(n):
            body = self.sectioned(sections, 300 / sections) if sections else self.text(300)
            title = self.text(4, 0.3)
            mtime = now_ms - int(self.rng.integers(0, 2_000)) * DAY_MS
            rows.append((f"folder{i % 40}/note{i}.md", "Bench", title, f"note{i}", "",
                         "tag" + str(i % 50), f"folder{i % 40}", body, mtime, mtime,
                         hashlib.sha256(body.encode()).hexdigest(), now_ms))
        return rows

"""Porter stemming exactly as SQLite's FTS5 `porter` tokenizer does it (pure Python).

The IDF lookups of the ranking read FTS5's own vocabulary, so the query side must produce
the very terms FTS5 wrote. FTS5 implements Porter's revised algorithm — including the
step-2 rules LOGI → LOG and BLI → BLE that Snowball's "porter" leaves out ("psychology"
is `psycholog`, "possibly" `possibl` in the index) — so this module follows FTS5's rules
rather than a general-purpose stemmer. Tokens shorter than 3 or longer than 64 bytes are
left as they are, as FTS5 does. tests/shared/text/test_porter.py compares it with real FTS5 over
every word of the project's corpora.

Each rule table is (suffix, condition on the remaining stem, replacement, stop); within a
step only the first rule whose suffix ends the word (among the rules sharing the word's
second-to-last letter, which is how FTS5 dispatches) is tried.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

MIN_STEM_BYTES = 3
MAX_STEM_BYTES = 64
_VOWELS = frozenset("aeiou")

Condition = Callable[[str], bool] | None
Rule = tuple[str, Condition, str, bool]


def _is_vowel(c: str, y_is_vowel: bool) -> bool:
    return c in _VOWELS or (y_is_vowel and c == "y")


def _gobble_vc(stem: str, previous_consonant: bool) -> int:
    """Length of the leading [C]VC run of `stem` (0 when it has none): one vowel-consonant
    step of Porter's measure."""
    consonant = previous_consonant
    i = 0
    while i < len(stem):
        consonant = not _is_vowel(stem[i], consonant)
        if not consonant:
            break
        i += 1
    i += 1
    while i < len(stem):
        consonant = not _is_vowel(stem[i], consonant)
        if consonant:
            return i + 1
        i += 1
    return 0


def _m_gt0(stem: str) -> bool:
    return _gobble_vc(stem, False) > 0


def _m_gt1(stem: str) -> bool:
    n = _gobble_vc(stem, False)
    return n > 0 and _gobble_vc(stem[n:], True) > 0


def _m_eq1(stem: str) -> bool:
    n = _gobble_vc(stem, False)
    return n > 0 and _gobble_vc(stem[n:], True) == 0


def _ends_cvc(stem: str) -> bool:
    """Porter's *o: the stem ends consonant-vowel-consonant, the last not w, x or y."""
    if not stem or stem[-1] in "wxy":
        return False
    mask, consonant = 0, False
    for c in stem:
        consonant = not _is_vowel(c, consonant)
        mask = (mask << 1) + consonant
    return (mask & 0b111) == 0b101


def _has_vowel(stem: str) -> bool:
    return any(_is_vowel(c, i > 0) for i, c in enumerate(stem))


def _m_gt1_and_s_or_t(stem: str) -> bool:
    return bool(stem) and stem[-1] in "st" and _m_gt1(stem)


STEP_1B: Sequence[Rule] = (("eed", _m_gt0, "ee", False), ("ed", _has_vowel, "", True),
                           ("ing", _has_vowel, "", True))
STEP_1B2: Sequence[Rule] = (("at", None, "ate", True), ("bl", None, "ble", True),
                            ("iz", None, "ize", True))
STEP_2: Sequence[Rule] = tuple((s, _m_gt0, r, False) for s, r in (
    ("ational", "ate"), ("tional", "tion"), ("enci", "ence"), ("anci", "ance"),
    ("izer", "ize"), ("logi", "log"), ("bli", "ble"), ("alli", "al"), ("entli", "ent"),
    ("eli", "e"), ("ousli", "ous"), ("ization", "ize"), ("ation", "ate"), ("ator", "ate"),
    ("alism", "al"), ("iveness", "ive"), ("fulness", "ful"), ("ousness", "ous"),
    ("aliti", "al"), ("iviti", "ive"), ("biliti", "ble")))
STEP_3: Sequence[Rule] = tuple((s, _m_gt0, r, False) for s, r in (
    ("icate", "ic"), ("ative", ""), ("alize", "al"), ("iciti", "ic"), ("ical", "ic"),
    ("ful", ""), ("ness", "")))
STEP_4: Sequence[Rule] = tuple(
    (s, _m_gt1_and_s_or_t if s == "ion" else _m_gt1, "", False) for s in (
        "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent",
        "ion", "ou", "ism", "ate", "iti", "ous", "ive", "ize"))


def _apply(word: str, rules: Sequence[Rule]) -> tuple[str, bool]:
    """The word after the step's first matching rule; whether that rule says stop."""
    if len(word) < 2:
        return word, False
    key = word[-2]
    for suffix, condition, replacement, stop in rules:
        if suffix[-2] != key or len(word) <= len(suffix) or not word.endswith(suffix):
            continue
        stem = word[:-len(suffix)]
        if condition is None or condition(stem):
            return stem + replacement, stop
        return word, False
    return word, False


def _step_1a(word: str) -> str:
    if not word.endswith("s"):
        return word
    if word[-2] == "e":
        if (len(word) > 4 and word[-4:-2] == "ss") or (len(word) > 3 and word[-3] == "i"):
            return word[:-2]
        return word[:-1]
    return word if word[-2] == "s" else word[:-1]


def _porter(word: str) -> str:
    word = _step_1a(word)
    word, removed = _apply(word, STEP_1B)
    if removed:
        word, restored = _apply(word, STEP_1B2)
        if not restored:
            last = word[-1]
            if (not _is_vowel(last, False) and last not in "lsz" and len(word) > 1
                    and last == word[-2]):
                word = word[:-1]
            elif _m_eq1(word) and _ends_cvc(word):
                word += "e"
    if word.endswith("y") and _has_vowel(word[:-1]):
        word = word[:-1] + "i"
    for rules in (STEP_2, STEP_3, STEP_4):
        word, _ = _apply(word, rules)
    if word.endswith("e") and (_m_gt1(word[:-1])
                               or (_m_eq1(word[:-1]) and not _ends_cvc(word[:-1]))):
        word = word[:-1]
    if len(word) > 1 and word.endswith("ll") and _m_gt1(word[:-1]):
        word = word[:-1]
    return word


@lru_cache(maxsize=65_536)
def stem(token: str) -> str:
    """The term FTS5's porter tokenizer indexes for a (folded, lower-case) token."""
    size = len(token.encode("utf-8"))
    if not (MIN_STEM_BYTES <= size <= MAX_STEM_BYTES) or not token.isascii():
        return token
    return _porter(token)

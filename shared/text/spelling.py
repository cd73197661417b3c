"""Typo correction against the index's own vocabulary (pure functions).

A query word that no document of either corpus contains is probably misspelt. We look at
the index terms that share its first two letters and take the closest one within a
small edit distance (optimal string alignment: insertions, deletions, substitutions and
adjacent transpositions — "asnyc" → "async", "pytset" → "pytest"). Index terms are Porter
stems, so the word is compared both as typed and stemmed ("compres" ~ "compress",
"animted" → "animt" ~ "anim").

A correction is a guess, and real words missing from the corpus look like typos
("passport" → "password"). Explicit search shows corrected results (the owner sees them);
automatic recall only trusts a hit that also matched a word as typed (the lexical
retriever marks the others `fuzzy`; worker/recall/typo.py runs the step).
"""

from __future__ import annotations

from collections.abc import Iterable

from shared.text.porter import stem
from shared.text.sanitiser import Term
from shared.text.stopwords import STOPWORDS

MIN_TYPO_CHARS = 4
# Candidates share the word's first 2 letters (3 for words of 6+ letters, whose prefix
# ranges would otherwise span thousands of terms: fts5vocab counts each term's documents
# as it reads it, so a range costs in proportion to its postings).
SHORT_PREFIX_CHARS = 2
LONG_PREFIX_CHARS = 3
# Vocabulary rows read per misspelt word, and misspelt words tried per query, at most.
MAX_CANDIDATES = 1_000
MAX_CORRECTIONS = 2


# A lone unknown word in a long message is probably a real word the corpus lacks, and the
# other words carry the query anyway ("…the rows I ticked…" must not become "ticket");
# in a short query, or when many words are unknown, it is most of the query.
SHORT_QUERY_TERMS = 5
UNKNOWN_SHARE = 0.25


# The index holds stopwords, queries never search them: a correction to one ("theo", an
# alias, to "the") finds every note and says nothing.
NOT_A_CORRECTION = STOPWORDS | frozenset(stem(w) for w in STOPWORDS)


def may_correct_to(term: str) -> bool:
    return term not in NOT_A_CORRECTION


def worth_correcting(n_terms: int, n_unknown: int) -> bool:
    return n_unknown > 0 and (n_terms <= SHORT_QUERY_TERMS
                              or n_unknown >= UNKNOWN_SHARE * n_terms)


def max_distance(word: str) -> int:
    # Two edits only for long words: at 6-7 letters two edits reach too many real words
    # ("lisbon" → "listen", "toddler" → "toler").
    return 1 if len(word) <= 7 else 2


def osa_distance(a: str, b: str, limit: int) -> int:
    """Optimal string alignment distance, or limit + 1 once it must exceed `limit`.

    The dynamic programme row by row, its neighbours carried in locals rather than
    indexed and `min`-ed: the distances were a quarter of recall's Python time at 1k
    messages (bench.latency --profile), and this is 1.8x faster, value for value
    (tests/shared/text/test_spelling.py holds it to the plain recurrence)."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    before = ""  # the letter of `a` before `ca`
    for i, ca in enumerate(a, 1):
        cur = [i] * (len(b) + 1)
        left, diag, swap = i, i - 1, ""  # cur[j - 1], prev[j - 1], b[j - 2]
        for j, cb in enumerate(b, 1):
            up = prev[j]
            best = diag if ca == cb else diag + 1
            if up + 1 < best:
                best = up + 1
            if left + 1 < best:
                best = left + 1
            if ca == swap and before == cb and prev2[j - 2] + 1 < best:
                best = prev2[j - 2] + 1  # an adjacent transposition
            cur[j] = left = best
            diag, swap = up, cb
        if min(cur) > limit:
            return limit + 1
        prev2, prev, before = prev, cur, ca
    return prev[-1]


def beyond(a: str, b: str, limit: int) -> bool:
    """Surely more than `limit` edits apart: every letter of `a` that `b` lacks costs an
    edit of its own (a substitution or a deletion; a match or a transposition needs the
    letter in `b`). Cheap, and true of most of a prefix range: the distances themselves
    were more than half of automatic recall's Python time at 1k messages (bench.latency)."""
    if abs(len(a) - len(b)) > limit:
        return True
    letters = set(b)
    return sum(c not in letters for c in a) > limit


def correctable(term: Term) -> bool:
    return (len(term.tokens) == 1 and len(term.tokens[0]) >= MIN_TYPO_CHARS
            and term.tokens[0].isalpha())


def prefix_range(word: str) -> tuple[str, str]:
    """[low, high) bounds of the vocabulary terms sharing the word's first letters."""
    prefix = word[:LONG_PREFIX_CHARS if len(word) >= 6 else SHORT_PREFIX_CHARS]
    return prefix, prefix[:-1] + chr(ord(prefix[-1]) + 1)


def best_correction(word: str, vocabulary: Iterable[tuple[str, int]]) -> str | None:
    """The closest index term, or None. Closest: smallest distance (typed or stemmed), then
    smallest distance as typed ("compres" → "compress", not "compar"), then most documents.
    """
    limit = max_distance(word)
    stemmed = stem(word)
    best: tuple[int, int, int, str] | None = None
    for term, docs in vocabulary:
        if term in (word, stemmed) or docs <= 0 or not may_correct_to(term):
            continue
        # Both distances surely exceed the limit, or the best distance so far: never
        # chosen (the distances were most of the typo step's Python, bench.latency).
        bar = limit if best is None else min(limit, best[0])
        if beyond(word, term, bar) and beyond(stemmed, term, bar):
            continue
        typed = osa_distance(word, term, limit)
        distance = min(typed, typed if stemmed == word else osa_distance(stemmed, term, limit))
        key = (distance, typed, -docs, term)
        if distance <= limit and (best is None or key < best):
            best = key
    return best[3] if best else None


# Endings a word adds to its Porter stem. A word still being typed can outgrow the stem
# the index holds: "leasin" and "weddi", on the way to "leasing" and "wedding", start no
# index term ("leas", "wed"), and are too far from them to be typos.
ENDINGS = ("", "e", "s", "ing", "ed", "es", "er", "ers", "ings", "ion", "ions", "ment",
           "ments", "ly", "ness", "al", "y", "ies", "ied")
MIN_ROOT_CHARS = 3


def _bases(root: str) -> tuple[str, ...]:
    # "wed" + "ding"; "studi" is "study" before an ending.
    doubled = (root + root[-1],) if root[-1] not in "aeiouy" else ()
    return (root, *doubled, *((root[:-1] + "y",) if root.endswith("i") else ()))


def completion(prefix: str, vocabulary: Iterable[tuple[str, int]]) -> str | None:
    """A word that starts with `prefix`, as typed so far, and whose stem is an index term:
    the one of the most frequent term ("leasin" → "leasing", for the term "leas"), or
    None. The word, not the term, is searched: FTS5 stems it to the term exactly."""
    best: tuple[int, str] | None = None
    for root, docs in vocabulary:
        if len(root) < MIN_ROOT_CHARS or docs <= 0 or not may_correct_to(root) \
                or not prefix.startswith(root[:-1]) or root.startswith(prefix):
            continue
        for base in _bases(root):
            for ending in ENDINGS:
                word = base + ending
                if word.startswith(prefix) and stem(word) == root:
                    if best is None or (docs, word) > best:
                        best = (docs, word)
                    break
    return best[1] if best else None


def corrected_term(index_term: str) -> Term:
    """A query term that matches `index_term`: FTS5 stems query words again, so a stem
    that is not its own stem ("recurs" → "recur") is searched as a prefix instead."""
    return Term((index_term,), prefix=stem(index_term) != index_term)

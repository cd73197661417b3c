"""Typo correction against the vocabulary."""

from __future__ import annotations

import random

from shared.text.porter import stem
from shared.text.spelling import (
    best_correction,
    beyond,
    completion,
    corrected_term,
    max_distance,
    osa_distance,
    prefix_range,
)


def test_osa_distance() -> None:
    assert osa_distance("async", "async", 2) == 0
    assert osa_distance("asnyc", "async", 2) == 1  # adjacent transposition
    assert osa_distance("pytset", "pytest", 2) == 1
    assert osa_distance("electon", "electron", 2) == 1
    assert osa_distance("kitten", "sitting", 3) == 3
    assert osa_distance("a", "abcdef", 2) == 3  # capped at limit + 1


def plain_osa(a: str, b: str, limit: int) -> int:
    """The recurrence as written in the textbook, with osa_distance's early exit: the
    oracle osa_distance must equal value for value (limit + 1 once a row exceeds it)."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        if min(cur) > limit:
            return limit + 1
        prev2, prev = prev, cur
    return prev[-1]


def test_osa_distance_is_the_plain_recurrence() -> None:
    # Random words over a small alphabet and their one-edit neighbours (swaps,
    # substitutions, deletions), so that near pairs and transpositions are common.
    rng = random.Random(5)
    words = ["".join(rng.choice("abcde") for _ in range(rng.randint(0, 10)))
             for _ in range(600)]
    pairs = [(rng.choice(words), rng.choice(words)) for _ in range(3_000)]
    for w in words:
        if len(w) > 1:
            i = rng.randrange(len(w) - 1)
            pairs += [(w, w[:i] + w[i + 1] + w[i] + w[i + 2:]), (w, w[:i] + "x" + w[i + 1:]),
                      (w, w[:i] + w[i + 1:])]
    for a, b in pairs:
        for limit in (0, 1, 2, 3):
            assert osa_distance(a, b, limit) == plain_osa(a, b, limit), (a, b, limit)


def test_beyond_only_prunes_pairs_over_the_limit() -> None:
    # The prune must never drop a term the distance would accept: random words over a
    # small alphabet, so that near pairs (transpositions, shared letters) are common.
    rng = random.Random(7)
    pruned = 0
    for _ in range(5_000):
        a = "".join(rng.choice("abcde") for _ in range(rng.randint(2, 9)))
        b = "".join(rng.choice("abcde") for _ in range(rng.randint(2, 9)))
        for limit in (1, 2):
            if beyond(a, b, limit):
                pruned += 1
                assert osa_distance(a, b, limit) > limit, (a, b, limit)
    assert pruned > 1_000  # it does prune
    assert not beyond("asnyc", "async", 1) and beyond("lisbon", "lemon", 1)


def test_best_correction_is_the_closest_of_every_term() -> None:
    # Pruning by the best distance so far chooses what weighing every term chooses.
    rng = random.Random(11)

    def every(word: str, vocab: list[tuple[str, int]]) -> str | None:
        limit, stemmed = max_distance(word), stem(word)
        keys = [(min(osa_distance(word, t, limit), osa_distance(stemmed, t, limit)),
                 osa_distance(word, t, limit), -d, t) for t, d in vocab
                if t not in (word, stemmed) and d > 0]
        return min((k for k in keys if k[0] <= limit), default=(0, 0, 0, None))[3]

    for _ in range(400):
        word = "".join(rng.choice("abcdes") for _ in range(rng.randint(4, 10)))
        vocab = [("".join(rng.choice("abcdes") for _ in range(rng.randint(3, 11))),
                  rng.randint(0, 9)) for _ in range(60)]
        vocab += [(word[:i] + word[i + 1:], rng.randint(1, 9)) for i in range(len(word))]
        assert best_correction(word, vocab) == every(word, vocab), (word, vocab)


def test_best_correction_prefers_typed_distance_then_frequency() -> None:
    vocab = [("compar", 50), ("compress", 3), ("compil", 9)]
    assert best_correction("compres", vocab) == "compress"
    assert best_correction("asnyc", [("async", 4), ("asyncio", 9)]) == "async"
    assert best_correction("pytset", [("pytest", 40), ("python", 99)]) == "pytest"


def test_a_stopword_is_never_a_correction() -> None:
    assert best_correction("theo", [("the", 900), ("them", 400)]) is None


def test_no_correction_beyond_the_distance_limit() -> None:
    assert best_correction("lisbon", [("listen", 10)]) is None  # 2 edits on 6 letters
    assert best_correction("toddler", [("toler", 10)]) is None
    assert best_correction("datastte", [("datasett", 10)]) == "datasett"  # 8 letters: 2 ok


def test_prefix_range_and_corrected_terms() -> None:
    assert prefix_range("asnyc") == ("as", "at")
    assert prefix_range("pytset") == ("pyt", "pyu")
    assert corrected_term("async").fts == '"async"'
    assert corrected_term("recurs").fts == '"recurs"*'  # FTS5 would stem "recurs" again


def test_only_short_queries_or_many_unknown_words_are_corrected() -> None:
    from shared.text.spelling import worth_correcting

    assert worth_correcting(3, 1)
    assert worth_correcting(5, 1)
    assert not worth_correcting(8, 1)  # one odd word in a long message
    assert worth_correcting(8, 2)
    assert not worth_correcting(4, 0)


def test_a_word_still_being_typed_completes_to_a_word_of_an_index_term() -> None:
    vocab = [("leas", 3), ("least", 9), ("wed", 2), ("wee", 5), ("studi", 4), ("run", 8)]
    assert completion("leasin", vocab) == "leasing"  # outgrew the stem "leas"
    assert completion("weddi", vocab) == "wedding"  # "wed" doubles its last letter
    assert completion("studyi", vocab) == "studying"  # "studi" is "study" before an ending
    assert completion("runni", vocab) == "running"
    assert completion("leastw", vocab) is None  # no word of any term starts so
    assert completion("leas", vocab) is None  # it starts an index term: searched as typed
    assert completion("theo", [("the", 900)]) is None  # never a stopword

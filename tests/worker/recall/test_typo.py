"""The typo step's pure parts: which words are suspects, and which neighbour a rare word
gets."""

from __future__ import annotations

import random

from shared.text.porter import stem
from shared.text.sanitiser import Mode, build_query
from shared.text.spelling import max_distance, osa_distance
from worker.recall.typo import (
    RARE_MAX_DOCS,
    RARE_NEIGHBOUR_MIN_DOCS,
    RARE_NEIGHBOUR_RATIO,
    frequent_neighbour,
    suspects,
)


def test_unknown_words_of_a_short_query_are_suspects() -> None:
    query = build_query("sourdoguh starter", Mode.EXPLICIT)
    found = suspects(query, {"starter": 4})
    assert [t.tokens for t in found.unknown] == [("sourdoguh",)]
    assert found.rare == ()


def test_a_lone_unknown_word_in_a_long_message_is_left_alone() -> None:
    text = "we ticked the rows of the spreadsheet budget report before the quarterly review"
    query = build_query(text, Mode.AUTOMATIC)
    known = {t.stems[0]: 5 for t in query.terms if t.tokens != ("ticked",)}
    assert suspects(query, known).words == []


def test_rare_known_words_are_suspects_too() -> None:
    query = build_query("sourdoguh", Mode.EXPLICIT)
    found = suspects(query, {"sourdoguh": 1})
    assert found.rare and found.rare[0][1] == 1
    assert suspects(query, {"sourdoguh": RARE_MAX_DOCS + 1}).words == []


def test_a_rare_word_takes_a_far_more_frequent_neighbour() -> None:
    vocabulary = [("sourdough", 12), ("sourdoguh", 1), ("source", 40)]
    assert frequent_neighbour("sourdoguh", 1, vocabulary) == "sourdough"


def test_no_neighbour_when_none_is_far_more_frequent() -> None:
    assert frequent_neighbour("sourdoguh", 1, [("sourdough", 2)]) is None
    assert frequent_neighbour("lisbon", 1, [("listen", 50)]) is None  # two edits at 6 letters


def test_a_stopword_is_never_a_neighbour() -> None:
    # "theo", an alias in one note, is one edit from "the", in every note.
    assert frequent_neighbour("theo", 1, [("the", 900), ("theodora", 1)]) is None
    assert frequent_neighbour("thei", 1, [("their", 300), ("then", 200)]) is None


def test_the_neighbour_is_the_closest_frequent_term_of_every_term() -> None:
    # Pruning by the best distance so far chooses what weighing every term chooses.
    rng = random.Random(13)

    def every(word: str, docs: int, vocab: list[tuple[str, int]]) -> str | None:
        limit, stemmed = max_distance(word), stem(word)
        least = max(RARE_NEIGHBOUR_MIN_DOCS, RARE_NEIGHBOUR_RATIO * docs)
        keys = [(min(osa_distance(word, t, limit), osa_distance(stemmed, t, limit)), -n, t)
                for t, n in vocab if t not in (word, stemmed) and n >= least]
        return min((k for k in keys if k[0] <= limit), default=(0, 0, None))[2]

    for _ in range(400):
        word = "".join(rng.choice("abcdes") for _ in range(rng.randint(4, 10)))
        vocab = [("".join(rng.choice("abcdes") for _ in range(rng.randint(3, 11))),
                  rng.randint(0, 12)) for _ in range(60)]
        vocab += [(word[:i] + word[i + 1:], rng.randint(1, 12)) for i in range(len(word))]
        assert frequent_neighbour(word, 1, vocab) == every(word, 1, vocab), (word, vocab)

"""Echoes and bare questions, judged from features (shared/rank/echoes.py)."""

from __future__ import annotations

from shared.rank.echoes import Shown, bare_question, echo, novelty, only_asks
from tests.builders import candidate

NOTE = "Gym locker combination: 4-17-22. Locker 112, second row."
SHOWN = Shown(frozenset({"1:Home/Gym.md"}), (NOTE,))


def test_novelty_is_the_share_of_content_words_the_sources_lack() -> None:
    assert novelty("Your gym locker combination is 4-17-22 [1].", [NOTE]) == 0.0
    assert novelty("The gym moved to Elm Street in June.", [NOTE]) > 0.5
    assert novelty("the and of", [NOTE]) == 0.0  # no content words: nothing new


def test_only_a_text_whose_every_sentence_asks_only_asks() -> None:
    assert only_asks("what is my gym locker combination?")
    assert only_asks("Hi. Is it 4-17-22?") is False
    assert not only_asks("My locker is 112. What is its combination?")
    assert not only_asks("")


def test_an_answer_that_repeats_its_note_to_a_question_is_an_echo() -> None:
    reply = candidate("a", kind="message", role="assistant", asked="gym locker combination?",
                      text=f"Here is what I found in memory: - your note “Gym”: {NOTE} [1]")
    assert echo(reply, SHOWN)
    told = candidate("a", kind="message", role="assistant", text=reply.presentation.text,
                     asked="I changed the lock today.")
    assert not echo(told, SHOWN)  # the owner said something: a memory of its own
    new = candidate("a", kind="message", role="assistant", asked="which gym?",
                    text="The gym moved to Elm Street in June; the lockers are new.")
    assert not echo(new, SHOWN)  # the answer says what the note does not
    assert not echo(reply, None)  # shown nothing: it cannot repeat anything


def test_a_question_without_an_answer_is_bare() -> None:
    assert bare_question(candidate("q", kind="message", role="user",
                                   text="what is my gym locker combination?"))
    assert not bare_question(candidate("q", kind="message", role="user",
                                       text="what is my gym locker combination?",
                                       reply="It is 4-17-22."))
    assert not bare_question(candidate("q", kind="message", role="user",
                                       text="My gym locker is 112."))
    assert not bare_question(candidate("n", text="what is it?"))  # a note

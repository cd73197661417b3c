"""A sentence asks by its mark or by its form (shared/text/questions.py)."""

from __future__ import annotations

import pytest

from shared.text.questions import asks


@pytest.mark.parametrize("sentence", [
    "what is my gym locker combination?", "does caspian have any allergies",
    "who's Fen's partner", "how many days is the JR pass", "what time is the train",
    "which day does the bin go out", "did Fen pay me back", "is the gym open",
    "didn't I pay it", "remind me what Marco wanted", "tell me about the boiler",
    "who owns the kubernetes upgrade", "where are we staying in hakone",
    "what did I write last week about the car", "ok so when is parents evening",
    "hey Mallory, what\u2019s the wifi password", "how much vitamin d should I take",
    "whose turn is it to cook", "can you find the lease", "look up the MOT date",
    "what size ring does Rosalind wear",
])
def test_questions_with_and_without_a_mark(sentence: str) -> None:
    assert asks(sentence)


@pytest.mark.parametrize("sentence", [
    "when I was in Rome I lost my wallet", "what the doctor said was fine",
    "can't wait for the trip", "have to call the dentist tomorrow",
    "how I fixed the boiler: bled the radiators",
    "Remember this: the spare key is under the pot", "The JR pass is 14 days", "Hi.",
    "Fen paid me back", "where I parked is a mystery", "what a day",
    "who I met at the party was Ana", "will do", "Had to cancel the gym",
    "Won't work, the lock is jammed", "Show starts at 8", "",
])
def test_statements_do_not_ask(sentence: str) -> None:
    assert not asks(sentence)

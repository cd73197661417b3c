"""shared/text/remember.py: the fact a "Remember that …" message proposes, and the
messages that propose none."""

from __future__ import annotations

import pytest

from shared.api.limits import MAX_MEMORY_CHARS
from shared.text.remember import proposed_fact


@pytest.mark.parametrize(("message", "fact"), [
    ("Remember that my bike lock code is 4173.", "My bike lock code is 4173."),
    ("remember: the boiler is serviced in May", "The boiler is serviced in May"),
    ("please remember this: Anna likes tulips", "Anna likes tulips"),
    ("Mallory, remember that the car is a Fiat", "The car is a Fiat"),
    ("Can you remember that the wifi password is heliotrope?",
     "The wifi password is heliotrope"),
    ("  REMEMBER THAT\nthe spare key is under the pot  ", "The spare key is under the pot"),
])
def test_a_remember_request_proposes_its_fact(message: str, fact: str) -> None:
    assert proposed_fact(message) == fact


@pytest.mark.parametrize("message", [
    "Remember when we went to Rome?", "Remember what I told you about the boiler",
    "remember to buy milk", "I remember the song", "what do you remember about Anna?",
    "remember", "remember that", "Remember that " + "x" * (MAX_MEMORY_CHARS + 1),
])
def test_other_messages_propose_nothing(message: str) -> None:
    assert proposed_fact(message) is None

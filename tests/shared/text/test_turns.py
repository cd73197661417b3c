"""Which turn of a conversation unit a hit points at (shared/text/turns.py)."""

from __future__ import annotations

import pytest

from shared.text.sanitiser import Mode, build_query
from shared.text.turns import addressed, points_at_reply


def terms(text: str):
    return build_query(text, Mode.EXPLICIT).terms


@pytest.mark.parametrize(("text", "speaker"), [
    ("when did I go to the support group?", "user"),
    ("what are your pets' names?", "assistant"),
    ("what did you tell me about the boiler", None),  # both speakers
    ("when is the bin collection", None),
])
def test_the_speaker_a_query_asks_about(text: str, speaker: str | None) -> None:
    assert addressed(text) == speaker


def test_a_name_in_a_greeting_loses_to_the_turn_that_says_what_was_asked() -> None:
    query = terms("Caroline support group")
    idf = {'"caroline"': 0.2, '"support"': 1.5, '"group"': 1.4}
    assert not points_at_reply("I went to the support group yesterday, it was powerful.",
                               "Hey Caroline! Great to hear from you.", query, idf, None)


def test_a_question_points_at_the_reply_that_answers_it() -> None:
    query = terms("pets names")
    assert points_at_reply("Ah, they're adorable! What are their names?",
                           "Luna and Oliver! They are so sweet and playful.", query, {}, None)


def test_a_reply_that_only_asks_points_at_the_owners_statement() -> None:
    query = terms("painted sunset")
    assert not points_at_reply("I've been busy: I painted a sunset last week.",
                               "Wow! What made you paint a sunset?", query, {}, None)


def test_the_speaker_the_query_addresses_breaks_an_even_match() -> None:
    query = terms("beach")
    owner, reply = "We went to the beach.", "The beach sounds lovely."
    assert not points_at_reply(owner, reply, query, {}, "user")
    assert points_at_reply(owner, reply, query, {}, "assistant")
    assert not points_at_reply("", "", query, {}, None)  # nothing matched: the owner's
    assert points_at_reply("", "", query, {}, "assistant")


def test_the_weights_are_the_modules_unless_given() -> None:
    query = terms("beach")
    # A reply that only asks about the query's word weighs question_weight of it.
    assert points_at_reply("Nice.", "Was it busy at the beach?", query, {}, None)
    assert not points_at_reply("Nice.", "Was it busy at the beach?", query, {}, None,
                               question_weight=0.0)  # nothing weighs: the owner's message
    # The owner states it (1), the reply asks it (0.5) and the query addresses Mallory:
    # the module's 1.5 leaves the reply at 0.75, three times lifts it to 1.5.
    owner, reply = "We went to the beach.", "Was it busy at the beach?"
    assert not points_at_reply(owner, reply, query, {}, "assistant")
    assert points_at_reply(owner, reply, query, {}, "assistant", addressed_weight=3.0)

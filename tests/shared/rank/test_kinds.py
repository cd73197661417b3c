"""The kinds of hit: the two shipped ones as the block and standing read them, and a
registered one found by name until it is unregistered."""

from __future__ import annotations

from dataclasses import replace

import pytest

from shared.rank import kinds
from tests.builders import candidate


def test_the_shipped_kinds_head_and_key_their_hits() -> None:
    note = candidate("Home/Plants.md", group="3:Home/Plants.md")
    reply = candidate("m1", kind="message", role="assistant")
    assert kinds.kind_of(note) is kinds.NOTE and kinds.kind_of(reply) is kinds.MESSAGE
    assert kinds.NOTE.lead(note, "«Plants»") == "note «Plants»"
    assert kinds.MESSAGE.lead(reply, "«Oven»") == "past message by Mallory in «Oven»"
    assert (kinds.NOTE.shows_standing, kinds.MESSAGE.shows_standing) == (True, False)
    assert (kinds.NOTE.document_key(note), kinds.MESSAGE.document_key(reply)) == (
        "note:3:Home/Plants.md", "message:m1")
    assert (kinds.NOTE.tie, kinds.MESSAGE.tie) == (0, 1)  # notes first in a tie


def test_a_registered_kind_is_found_until_it_is_unregistered() -> None:
    toy = replace(kinds.NOTE, name="bookmark", offline_word="your bookmark")
    kinds.register(toy)
    try:
        assert kinds.named("bookmark") is toy
        with pytest.raises(ValueError, match="bookmark"):
            kinds.register(toy)
    finally:
        kinds.unregister(toy)
    with pytest.raises(KeyError):
        kinds.named("bookmark")

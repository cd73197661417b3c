"""The offline responder's own words: which of its replies hold memory."""

from __future__ import annotations

import pytest

from shared.api.wire import Source
from worker import offline_replies
from worker.offline_replies import holds_memory
from worker.providers import OfflineResponder, Prompt


async def test_the_responder_says_nothing_found_noted_and_hello_in_the_named_words() -> None:
    responder = OfflineResponder()
    nothing = await responder.complete(Prompt("", [], "where did I put the ladder?"))
    hello = await responder.complete(Prompt("", [], "hi there"))
    noted = await responder.complete(Prompt("", [], "Remember this: the ladder is in the "
                                            "garage, behind the bikes."))
    assert (nothing, hello, noted) == (offline_replies.NOTHING_FOUND,
                                       offline_replies.GREETING, offline_replies.NOTED)
    assert not any(holds_memory(r) for r in (nothing, hello, noted))
    for thanks in ("thanks!", "Thank you, that was helpful", "cheers"):
        assert await responder.complete(Prompt("", [], thanks)) == offline_replies.WELCOME


@pytest.mark.parametrize("reply", [
    "The ladder is in the garage, behind the bikes.",
    offline_replies.NOTHING_FOUND + " But I remember you mentioned the garage.",
])
def test_any_other_reply_holds_memory(reply: str) -> None:
    assert holds_memory(reply)


async def test_a_list_of_what_recall_found_is_indexed_as_the_echo_it_is() -> None:
    source = Source(n=1, kind="note", id="Home/Ladder.md", label="Ladder",
                    snippet="The ladder hangs in the garage.", href="obsidian://x")
    listed = await OfflineResponder().complete(Prompt("<recall>…</recall>", [source], "ladder?"))
    assert listed.startswith(offline_replies.FOUND_HEADER) and holds_memory(listed)

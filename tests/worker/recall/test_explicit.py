"""Explicit search over a real SQLite index: a conversation unit beside a strong match
borrows a share of its score (shared/rank/adjacency.py)."""

from __future__ import annotations

import pytest

from local.sqlite_db import SqliteDatabase
from shared.rank.policy import ADJACENT_SHARE, EXPLICIT
from tests.conftest import DAY_MS, NOW_MS
from worker.recall.explicit import search
from worker.store import chats


async def test_the_answer_beside_a_strong_match_ranks_over_a_better_unit_elsewhere(
        db: SqliteDatabase) -> None:
    then = NOW_MS - 30 * DAY_MS
    talks = {
        "pup": (("user", "We went to the animal shelter on Saturday to adopt a puppy."),
                ("assistant", "How exciting! Which breed did you pick?"),
                ("user", "A border collie puppy, nine weeks old, and her name is Biscuit "
                         "after the colour of her coat."),
                ("assistant", "Biscuit is a lovely name.")),
        "bark": (("user", "The neighbour's puppy barks."), ("assistant", "Earplugs?")),
    }
    for cid, turns in talks.items():
        await chats.create_conversation(db, cid, then, cid)
        for i, (role, text) in enumerate(turns):
            await chats.append_message(db, cid, role, text, then + i,
                                       message_id=f"{cid}{i}")
    for i in range(6):  # other conversations, so that the index's IDFs mean something
        await chats.create_conversation(db, "other", then, f"o{i}")
        await chats.append_message(db, f"o{i}", "user", f"the tax return form {i} is due",
                                   then, message_id=f"o{i}")
    found = await search(db, "adopt a puppy at the shelter", NOW_MS, source="messages")
    ids = [h.identity.id for h in found.hits]
    assert ids == ["pup0", "pup2", "bark0"]
    first, beside, elsewhere = found.hits
    # On its own evidence the unit elsewhere is the better one; the neighbour's share
    # lifts the answer over it, still under the match it borrows from.
    assert elsewhere.scores.own > beside.scores.own
    assert beside.scores.adjacent == pytest.approx(ADJACENT_SHARE * first.scores.own)
    assert elsewhere.scores.adjacent == 0.0
    assert beside.scores.final < first.scores.final


async def test_a_short_list_is_the_head_of_the_same_ranking(db: SqliteDatabase) -> None:
    """The limit cuts the list; the pool ranked is EXPLICIT.candidates hits deep, so the
    neighbour that lends a unit its share is there even when it ranks past the limit."""
    then = NOW_MS - 30 * DAY_MS
    for i in range(EXPLICIT.candidates):
        # Each conversation: a weak match, then the best match of its own, so that every
        # weak unit borrows from a neighbour.
        cid = f"c{i}"
        await chats.create_conversation(db, cid, then - i * DAY_MS, cid)
        for j, (role, text) in enumerate((
                ("user", f"Thinking about the garden shed, day {i}."),
                ("assistant", "Sounds good."),
                ("user", "The shed roof leaks onto the garden tools again " + "and " * i),
                ("assistant", "Time for new felt on the shed roof."))):
            await chats.append_message(db, cid, role, text, then - i * DAY_MS + j,
                                       message_id=f"{cid}-{j}")
    full = await search(db, "shed roof garden", NOW_MS, source="messages",
                        limit=EXPLICIT.candidates)
    short = await search(db, "shed roof garden", NOW_MS, source="messages", limit=3)
    assert len(full.found.candidates) > EXPLICIT.candidates
    assert len(short.found.candidates) == len(full.found.candidates)
    assert [h.identity.id for h in short.hits] == [h.identity.id for h in full.hits[:3]]
    assert any(h.scores.adjacent > 0 for h in full.hits)


async def test_the_word_typed_last_does_not_find_what_only_its_stem_starts(
        db: SqliteDatabase) -> None:
    """Search as you type makes "lease" a prefix, which FTS5 searches as "leas"*: a
    message that says only "least" is no hit, its inflections ("leasing") and longer
    words ("leasehold") are, and so is "least" while the word is still being typed."""
    then = NOW_MS - 30 * DAY_MS
    said = {"lease": "The flat lease ends in May.", "least": "At least the rain stopped.",
            "leasing": "We are leasing a van for the move.",
            "leasehold": "The leasehold papers are in the drawer."}
    for cid, text in said.items():
        await chats.create_conversation(db, cid, then, cid)
        await chats.append_message(db, cid, "user", text, then, message_id=cid)
    for i in range(6):  # other messages, so that the index's IDFs mean something
        await chats.create_conversation(db, "other", then, f"o{i}")
        await chats.append_message(db, f"o{i}", "user", f"the tax return form {i} is due",
                                   then, message_id=f"o{i}")

    async def found(text: str) -> set[str]:
        return {h.identity.id for h in (await search(db, text, NOW_MS, source="messages")).hits}

    assert await found("lease") == {"lease", "leasing", "leasehold"}
    # While the word is still being typed, it is no typo: "leas" is not corrected to
    # "least", and finds every word that starts so.
    assert await found("leas") == {"lease", "least", "leasing", "leasehold"}
    # A complete word (not typed last) is no prefix at all: inflections only.
    assert await found("lease?") == {"lease", "leasing"}
    # Another query word keeps a row whatever its last word matched.
    assert "least" in await found("rain lease")

"""The Recall block's turns around a conversation hit, and a note excerpt's share of the
room fewer hits leave free."""

from __future__ import annotations

from shared.block.envelope import (
    AROUND_LEADS,
    BLOCK_CHAR_BUDGET,
    BLOCK_HITS,
    EXCERPT_CHARS,
    EXCERPT_LEAD,
    INDENT,
    REPLY_LEAD,
    build_recall_block,
    excerpt_chars,
    with_excerpts,
)
from shared.rank.candidate import Turn
from shared.rank.policy import AUTOMATIC
from shared.text.sanitiser import Mode, build_query
from tests.builders import candidate


def _lines(block: str, lead: str) -> list[str]:
    return [line for line in block.splitlines() if line.startswith(f"{INDENT}{lead}")]


def test_a_conversation_hit_shows_the_turns_around_it() -> None:
    hit = candidate("a1", kind="message", role="assistant", snippet="Luna and Oliver!",
                    asked="What are their names?", around=(
                        Turn("q0", "user", "I adopted two cats last spring.", True),
                        Turn("q2", "user", "They sound lovely. Mine is called Rex.", False)))
    block, [item] = build_recall_block([hit])
    assert _lines(block, AROUND_LEADS[(True, "user")]) == [
        f"{INDENT}{AROUND_LEADS[(True, 'user')]}«I adopted two cats last spring.»"]
    assert _lines(block, AROUND_LEADS[(False, "user")]) == [
        f"{INDENT}{AROUND_LEADS[(False, 'user')]}«They sound lovely. Mine is called Rex.»"]
    assert item.shown_around == ("q0", "q2")


def test_turns_around_take_only_the_room_the_hits_leave() -> None:
    long_turn = "word " * 400
    hits = [candidate(f"m{i}", kind="message", role="user", group=f"c{i}",
                      snippet="x " * 170, reply="y " * 200,
                      around=(Turn(f"t{i}", "assistant", long_turn, False),))
            for i in range(3)]
    block, injected = build_recall_block(hits)
    assert len(injected) == 3  # every hit kept: the turns around give way first
    assert len(block) <= BLOCK_CHAR_BUDGET
    shown = [i.shown_around for i in injected]
    assert shown[0] == ("t0",) and shown[1:] == [(), ()]  # the best hit's first


def test_one_note_hit_is_not_cut_at_the_three_hit_excerpt() -> None:
    steps = " ".join(f"Step {i}: turn the valve a quarter and wait." for i in range(1, 31))
    query = build_query("valve steps", Mode.AUTOMATIC)
    [one] = with_excerpts([candidate("boiler.md", text=steps)], query.terms)
    block, [item] = build_recall_block([one])
    assert len(item.excerpt) > 2 * EXCERPT_CHARS
    assert "Step 30: turn the valve" in _lines(block, EXCERPT_LEAD)[0]  # all of it
    three = with_excerpts([candidate(f"{i}.md", group=f"g{i}", text=steps)
                           for i in range(3)], query.terms)
    _, items = build_recall_block(three)
    assert all(len(i.excerpt) <= EXCERPT_CHARS for i in items)
    assert excerpt_chars(BLOCK_HITS) == EXCERPT_CHARS
    assert excerpt_chars(1) > excerpt_chars(2) > EXCERPT_CHARS
    assert AUTOMATIC.max_hits == BLOCK_HITS


def test_a_joined_partner_unit_is_part_of_its_hit_and_what_does_not_fit_is_not_covered(
        ) -> None:
    partner = (Turn("q3", "user", "A border collie, nine weeks old.", False),
               Turn("a3", "assistant", "What a clever breed!", False))
    hit = candidate("q1", kind="message", role="user", covers=("q1", "a1", "q3", "a3"),
                    snippet="We went to the shelter.", reply="Which breed?", partner=partner)
    block, [item] = build_recall_block([hit])
    assert _lines(block, AROUND_LEADS[(False, "user")]) == [
        f"{INDENT}{AROUND_LEADS[(False, 'user')]}«A border collie, nine weeks old.»"]
    assert item.candidate.identity.covers == ("q1", "a1", "q3", "a3")
    # Three long hits: the last one's partner turns find no room, so it covers its own.
    crowded = [candidate(f"m{i}", kind="message", role="user", group=f"c{i}",
                         covers=(f"m{i}", f"r{i}", f"p{i}"), snippet="x " * 170,
                         reply="y " * 200, partner=(Turn(f"p{i}", "user", "z " * 200, False),))
               for i in range(3)]
    block, injected = build_recall_block(crowded)
    assert len(injected) == 3
    assert injected[0].candidate.identity.covers == ("m0", "r0", "p0")
    # The last one's partner turns and its own reply find no room: it covers its own
    # message only, the one turn of it the block shows.
    assert len(_lines(block, REPLY_LEAD)) == 2
    assert injected[-1].candidate.identity.covers == ("m2",)
    assert injected[-1].candidate.message.partner == ()

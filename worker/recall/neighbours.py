"""The turns around a recalled conversation unit, for the Recall block.

A unit is an owner message and the reply after it, so the exchange a hit belongs to often
runs over its edges: Mallory asks, the owner answers in the next unit; the owner's next
message says what the reply led to. bench.relevance's block_evidence_share measures what
this adds (README, "How recall works", step 5). Each conversation hit brings
NEIGHBOUR_TURNS turns on either side, SHORT_UNIT_TURNS for a unit under SHORT_UNIT_CHARS
characters (a short exchange says little on its own); the block shows those that fit its
budget (shared/block/envelope.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from shared.block.citations import strip_citations
from shared.rank.candidate import Candidate, Turn
from worker.db import Database
from worker.db.port import Row
from worker.store.chats import (
    replies_from,
    replies_statement,
    turns_around_statement,
)

NEIGHBOUR_TURNS = 1
SHORT_UNIT_TURNS = 2
SHORT_UNIT_CHARS = 160


def reach(hit: Candidate) -> int:
    held = len(hit.presentation.text) + len(hit.message.reply or hit.message.asked or "")
    return SHORT_UNIT_TURNS if held < SHORT_UNIT_CHARS else NEIGHBOUR_TURNS


# The most turns any hit reaches: `with_turns` reads that far around every hit at once,
# before the replies that set each one's reach are known, and keeps each hit's own.
MOST_TURNS = max(NEIGHBOUR_TURNS, SHORT_UNIT_TURNS)


def _asked(hits: Sequence[Candidate]) -> list[str]:
    """The recalled owner messages, whose replies are shown with them."""
    return [h.identity.id for h in hits
            if h.identity.kind == "message" and h.identity.role == "user"]


def _with_replies(hits: Sequence[Candidate], replies: Mapping[str, str]) -> list[Candidate]:
    return [replace(h, message=replace(h.message, reply=strip_citations(replies[h.identity.id])))
            if h.identity.id in replies else h for h in hits]


def _wanted(hits: Sequence[Candidate]) -> dict[str, tuple[str, ...]]:
    """Each conversation hit's unit and the messages it covers."""
    return {h.identity.unit: h.identity.covers or (h.identity.id,)
            for h in hits if h.identity.kind == "message"}


def _with_around(hits: Sequence[Candidate], rows: Sequence[Row]) -> list[Candidate]:
    """The hits, each conversation hit with the turns of `rows` within its reach (rows
    read at least that far around its messages)."""
    wanted = _wanted(hits)
    reaches = {h.identity.unit: reach(h) for h in hits if h.identity.kind == "message"}
    around: dict[str, tuple[Turn, ...]] = {}
    for unit, ids in wanted.items():
        mine = [r for r in rows if r["hit"] == unit
                and abs(int(r["seq"]) - int(r["anchor"])) <= reaches[unit]]
        held = [int(r["anchor"]) for r in mine]
        if not held:
            continue
        first, seen, turns = min(held), set(ids), []
        for r in sorted(mine, key=lambda r: int(r["seq"])):
            if r["id"] in seen:
                continue
            seen.add(r["id"])
            text = str(r["content"])
            turns.append(Turn(str(r["id"]), "user" if r["role"] == "user" else "assistant",
                              strip_citations(text) if r["role"] == "assistant" else text,
                              int(r["seq"]) < first))
        around[unit] = tuple(turns)
    return [replace(h, message=replace(h.message, around=around[h.identity.unit]))
            if h.identity.kind == "message" and h.identity.unit in around else h for h in hits]


async def with_turns(db: Database, hits: Sequence[Candidate]) -> list[Candidate]:
    """The hits with the turns they show besides their own, read in one D1 batch (one
    round trip at the edge, where they were two):

    - Mallory's reply attached to each recalled owner message: "what did you tell me
      about X" is answered by the reply, while the owner's own question is what matched;
    - each conversation hit with the turns around its unit (`around`), within its reach
      (`reach`, which the reply's length sets: they are read MOST_TURNS far, before the
      replies are in, and each hit keeps its own)."""
    asked, wanted = _asked(hits), _wanted(hits)
    statements = ([replies_statement(db, asked)] if asked else []) + (
        [turns_around_statement(db, [(unit, m, MOST_TURNS) for unit, ids in wanted.items()
                                     for m in ids])] if wanted else [])
    if not statements:
        return list(hits)
    results = await db.batch(statements)
    out = _with_replies(hits, replies_from(results[0].results)) if asked else list(hits)
    return _with_around(out, results[-1].results) if wanted else out

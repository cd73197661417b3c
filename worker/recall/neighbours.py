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

from collections.abc import Sequence
from dataclasses import replace

from shared.block.citations import strip_citations
from shared.rank.candidate import Candidate, Turn
from worker.db import Database
from worker.store.chats import turns_around

NEIGHBOUR_TURNS = 1
SHORT_UNIT_TURNS = 2
SHORT_UNIT_CHARS = 160


def reach(hit: Candidate) -> int:
    held = len(hit.presentation.text) + len(hit.message.reply or hit.message.asked or "")
    return SHORT_UNIT_TURNS if held < SHORT_UNIT_CHARS else NEIGHBOUR_TURNS


async def with_neighbours(db: Database, hits: Sequence[Candidate]) -> list[Candidate]:
    """The hits, each conversation hit with the turns around its unit (`around`)."""
    wanted = {h.identity.unit: (h.identity.covers or (h.identity.id,), reach(h))
              for h in hits if h.identity.kind == "message"}
    if not wanted:
        return list(hits)
    rows = await turns_around(db, [(unit, m, r) for unit, (ids, r) in wanted.items()
                                   for m in ids])
    around: dict[str, tuple[Turn, ...]] = {}
    for unit, (ids, _) in wanted.items():
        mine = [r for r in rows if r["hit"] == unit]
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

"""Automatic recall at chat time: sanitise → search both corpora → gate → Recall block.

Fails toward no recall: any error here is logged and the chat goes on without a block.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from shared import recall_policy
from shared.errors import QueryTooLong
from shared.query import Mode, build_query
from shared.recall_block import build_recall_block
from shared.schemas import Hit, Source
from worker.db import Database
from worker.search import Filters, search_corpus

log = logging.getLogger("mallory.recall")


@dataclass(frozen=True)
class Recall:
    block: str = ""
    sources: list[Source] = field(default_factory=list)
    hits: list[Hit] = field(default_factory=list)
    error: str | None = None


async def gated_hits(db: Database, text: str, now_ms: int, *, exclude_ids: tuple[str, ...] = (),
                     conversation_id: str | None = None) -> list[Hit]:
    """The hits automatic recall would inject for `text` (empty when none is reliable)."""
    query = build_query(text, Mode.AUTOMATIC)
    filters = Filters(limit=recall_policy.CANDIDATES, exclude_message_ids=exclude_ids,
                      conversation_id=conversation_id,
                      exclude_recent_turns=recall_policy.RECENT_TURNS_EXCLUDED)
    return recall_policy.select(await search_corpus(db, query, filters, now_ms))


async def automatic_recall(db: Database, text: str, now_ms: int, *, message_id: str,
                           conversation_id: str) -> Recall:
    try:
        hits = await gated_hits(db, text, now_ms, exclude_ids=(message_id,),
                                conversation_id=conversation_id)
    except QueryTooLong as exc:
        log.info("no recall for message %s: %s", message_id, exc.message)
        return Recall(error=exc.message)
    except Exception as exc:  # recall must never break the chat
        log.exception("recall failed for message %s", message_id)
        return Recall(error=f"{type(exc).__name__}: {exc}")
    block, sources = build_recall_block(hits)
    return Recall(block=block, sources=sources, hits=hits[: len(sources)])

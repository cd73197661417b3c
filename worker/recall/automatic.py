"""Automatic recall at chat time: sanitise → retrieve → the gate → the Recall block.

Fails toward no recall: any error here is logged, the chat goes on without a block, and
the response's diagnostics carry a code (never the error's text).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace

from shared.candidate import Candidate
from shared.errors import QueryTooLong
from shared.matching import with_terms
from shared.query import Mode, SearchQuery, build_query
from shared.recall_block import EXCERPT_CHARS, Injected, build_recall_block
from shared.recall_policy import AUTOMATIC, RecallPolicy, select
from shared.snippets import snip
from worker.db import Database
from worker.recall import lexical
from worker.recall.filters import Filters
from worker.store import chats

log = logging.getLogger("mallory.recall")


@dataclass(frozen=True)
class Recall:
    block: str = ""
    injected: list[Injected] = field(default_factory=list)
    error: str | None = None  # a diagnostic code: query_too_long, recall_failed


@dataclass(frozen=True)
class Gated:
    query: SearchQuery  # as searched
    hits: list[Candidate]


async def gated(db: Database, text: str, now_ms: int, *, exclude_ids: tuple[str, ...] = (),
                conversation_id: str | None = None, text_is_stored: bool = False,
                policy: RecallPolicy = AUTOMATIC) -> Gated:
    """What automatic recall would inject for `text` (no hits when none is reliable).
    `text_is_stored`: the text is already a stored message (the chat path)."""
    query = build_query(text, Mode.AUTOMATIC)
    filters = Filters(limit=policy.candidates, exclude_message_ids=exclude_ids,
                      conversation_id=conversation_id,
                      exclude_recent_turns=policy.exclude_recent_turns,
                      query_text_is_indexed=text_is_stored)
    found = await lexical.retrieve(db, query, filters, now_ms)
    hits = select(with_terms(found.candidates, found.query.terms), policy)
    return Gated(query=found.query, hits=hits)


async def with_replies(db: Database, hits: list[Candidate]) -> list[Candidate]:
    """Attach Mallory's reply to each recalled owner message: "what did you tell me about
    X" is answered by the reply, while the owner's own question is what matched."""
    asked = [h.id for h in hits if h.kind == "message" and h.role == "user"]
    if not asked:
        return hits
    replies = await chats.replies_to(db, asked)
    return [replace(h, reply=replies[h.id]) if h.id in replies else h for h in hits]


async def automatic_recall(db: Database, text: str, now_ms: int, *, message_id: str,
                           conversation_id: str) -> Recall:
    try:
        found = await gated(db, text, now_ms, exclude_ids=(message_id,),
                            conversation_id=conversation_id, text_is_stored=True)
    except QueryTooLong:
        log.info("no recall for message %s: the text is over the query length", message_id)
        return Recall(error=QueryTooLong.code)
    except Exception:  # recall must never break the chat
        log.exception("recall failed for message %s", message_id)
        return Recall(error="recall_failed")
    hits = found.hits
    try:
        hits = await with_replies(db, hits)
    except Exception:  # the replies are a bonus: recall what we have
        log.exception("could not load replies for recalled messages")
    block, injected = build_recall_block(snip(hits, found.query.terms, EXCERPT_CHARS))
    return Recall(block=block, injected=injected)

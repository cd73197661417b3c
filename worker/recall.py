"""Automatic recall at chat time: sanitise → search both corpora → gate → Recall block.

Fails toward no recall: any error here is logged and the chat goes on without a block.
"""

from __future__ import annotations

import json
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
    error: str | None = None


async def gated_hits(db: Database, text: str, now_ms: int, *, exclude_ids: tuple[str, ...] = (),
                     conversation_id: str | None = None, text_is_stored: bool = False
                     ) -> list[Hit]:
    """The hits automatic recall would inject for `text` (empty when none is reliable).
    `text_is_stored`: the text is already a stored message (the chat path)."""
    query = build_query(text, Mode.AUTOMATIC)
    filters = Filters(limit=recall_policy.CANDIDATES, exclude_message_ids=exclude_ids,
                      conversation_id=conversation_id,
                      exclude_recent_turns=recall_policy.RECENT_TURNS_EXCLUDED,
                      query_text_is_indexed=text_is_stored)
    return recall_policy.select(await search_corpus(db, query, filters, now_ms))


# The assistant message that directly follows each given owner's message.
REPLIES_SQL = """
SELECT q.id AS question_id, a.content AS reply
FROM messages AS q
JOIN messages AS a ON a.conversation_id = q.conversation_id AND a.seq = q.seq + 1
WHERE q.id IN (SELECT value FROM json_each(?)) AND a.role = 'assistant'
"""


async def with_replies(db: Database, hits: list[Hit]) -> list[Hit]:
    """Attach Mallory's reply to each recalled owner message: "what did you tell me about
    X" is answered by the reply, while the owner's own question is what matched."""
    asked = [h.id for h in hits if h.kind == "message" and h.role == "user"]
    if not asked:
        return hits
    rows = (await db.prepare(REPLIES_SQL).bind(json.dumps(asked)).all()).results
    replies = {r["question_id"]: r["reply"] for r in rows}
    return [h.model_copy(update={"reply": replies[h.id]}) if h.id in replies else h
            for h in hits]


async def automatic_recall(db: Database, text: str, now_ms: int, *, message_id: str,
                           conversation_id: str) -> Recall:
    try:
        hits = await gated_hits(db, text, now_ms, exclude_ids=(message_id,),
                                conversation_id=conversation_id, text_is_stored=True)
    except QueryTooLong as exc:
        log.info("no recall for message %s: %s", message_id, exc.message)
        return Recall(error=exc.code)  # a code for the client; the reason is in the log
    except Exception:  # recall must never break the chat
        log.exception("recall failed for message %s", message_id)
        return Recall(error="recall_failed")  # never exception text (issue 16)
    try:
        hits = await with_replies(db, hits)
    except Exception:  # the replies are a bonus: recall what we have
        log.exception("could not load replies for recalled messages")
    block, sources = build_recall_block(hits)
    return Recall(block=block, sources=sources)

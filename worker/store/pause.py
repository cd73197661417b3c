"""Memory pause and incognito conversations (migrations/0012): what keeps a message out
of memory, and the catch-up when memory resumes.

Nothing here filters recall: a message that must not be memory never gets a
conversation unit (the migration's trigger skips the insert), so no index, vector or
recall path can reach it. Resuming indexes the messages written while memory was paused.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from worker.db import Database
from worker.offline_replies import NOT_MEMORY
from worker.store.units import unit_statements

# The one predicate: the conversation `{0}` names is incognito (0012's trigger states it
# too, for units; keep both the same).
INCOGNITO_CONVERSATION = ("EXISTS (SELECT 1 FROM conversations AS ic "
                          "WHERE ic.id = {0} AND ic.incognito = 1)")

PAUSED_SQL = "SELECT paused_at FROM memory_pause WHERE id = 1"
PAUSE_SQL = """
INSERT INTO memory_pause (id, paused_at) VALUES (1, ?1) ON CONFLICT (id) DO NOTHING
"""
RESUME_SQL = "DELETE FROM memory_pause WHERE id = 1"
# Messages no unit holds that should have one: written while memory was paused, or the
# partner of a message forgotten meanwhile. Withdrawn answers stay out (0011), and
# incognito conversations (which the trigger would skip anyway). Oldest first, so an
# answer's units replace its question's (worker/store/units.py).
UNINDEXED_SQL = f"""
SELECT m.id, m.role, m.content FROM messages AS m
WHERE m.withdrawn_at IS NULL
  AND NOT {INCOGNITO_CONVERSATION.format("m.conversation_id")}
  AND NOT EXISTS (SELECT 1 FROM conversation_units AS u
                  WHERE u.question_id = m.id OR u.answer_id = m.id)
  AND NOT (m.role = 'assistant' AND m.content IN (SELECT value FROM json_each(?2)))
ORDER BY m.conversation_id, m.seq
LIMIT ?1
"""
# Messages indexed per D1 batch on resume (each is 1 to 3 statements).
CATCH_UP_BATCH = 100


@dataclass(frozen=True)
class PauseState:
    paused_at: int | None  # ms; None: memory is on

    @property
    def paused(self) -> bool:
        return self.paused_at is not None

    @classmethod
    def from_row(cls, row: Mapping[str, Any] | None) -> PauseState:
        return cls(int(row["paused_at"]) if row and row.get("paused_at") is not None
                   else None)


async def pause_state(db: Database) -> PauseState:
    return PauseState.from_row(await db.prepare(PAUSED_SQL).first())


async def pause(db: Database, now_ms: int) -> PauseState:
    """Pause memory (a second pause keeps the first one's time)."""
    await db.prepare(PAUSE_SQL).bind(now_ms).run()
    return await pause_state(db)


async def resume(db: Database) -> int:
    """Resume memory and index what was written meanwhile; the number of messages
    indexed."""
    await db.prepare(RESUME_SQL).run()
    return await catch_up(db)


async def catch_up(db: Database) -> int:
    """Index every message that should be memory and has no unit yet."""
    seen: set[str] = set()
    # A reply that is no memory has no unit of its own (worker/offline_replies.py).
    not_memory = json.dumps(NOT_MEMORY)
    while rows := (await db.prepare(UNINDEXED_SQL).bind(CATCH_UP_BATCH, not_memory)
                   .all()).results:
        ids = {str(r["id"]) for r in rows}
        if ids & seen:  # paused again meanwhile: the trigger skipped them
            break
        seen |= ids
        await db.batch([s for r in rows
                        for s in unit_statements(db, str(r["id"]), str(r["role"]),
                                                 str(r["content"]))])
        if len(rows) < CATCH_UP_BATCH:
            break
    return len(seen)

"""What /status reports: corpus sizes, sync freshness and the schema version."""

from __future__ import annotations

from typing import Any

from worker.db import Database

STATUS_SQL = """
SELECT
    (SELECT docs FROM corpus_stats WHERE corpus = 'notes') AS notes,
    (SELECT count(*) FROM messages) AS messages,
    (SELECT count(*) FROM conversations) AS conversations,
    (SELECT max(applied_at) FROM vault_sync_batches) AS last_sync_at,
    (SELECT count(*) FROM d1_migrations) AS migrations,
    (SELECT name FROM d1_migrations ORDER BY id DESC LIMIT 1) AS schema_version
"""


async def read_status(db: Database) -> dict[str, Any]:
    row = await db.prepare(STATUS_SQL).first()
    return dict(row or {})

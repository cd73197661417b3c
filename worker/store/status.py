"""What /status reports: corpus sizes, sync freshness (per vault: worker/store/vaults.py),
the schema version, the vector counts per model (migrations/0008) and the memory pause
(0012), in one D1 batch."""

from __future__ import annotations

from typing import Any

from worker.db import Database
from worker.retrieval_status.report import ModelVectors
from worker.store.vaults import LIST_VAULTS_SQL, Vault

STATUS_SQL = """
SELECT
    (SELECT coalesce(sum(notes), 0) FROM vaults) AS notes,
    (SELECT docs FROM corpus_stats WHERE corpus = 'notes') AS sections,
    (SELECT docs FROM corpus_stats WHERE corpus = 'messages') AS exchanges,
    (SELECT count(*) FROM messages) AS messages,
    (SELECT count(*) FROM conversations) AS conversations,
    (SELECT max(applied_at) FROM vault_sync_batches) AS last_sync_at,
    (SELECT count(*) FROM d1_migrations) AS migrations,
    (SELECT name FROM d1_migrations ORDER BY id DESC LIMIT 1) AS schema_version,
    (SELECT paused_at FROM memory_pause WHERE id = 1) AS paused_at
"""


VECTOR_STATS_SQL = """
SELECT corpus, model, dimensions, vectors FROM vector_stats ORDER BY corpus, model, dimensions
"""


async def read_status(db: Database
                      ) -> tuple[dict[str, Any], list[Vault], list[ModelVectors]]:
    overall, per_vault, vectors = await db.batch([
        db.prepare(STATUS_SQL), db.prepare(LIST_VAULTS_SQL), db.prepare(VECTOR_STATS_SQL)])
    row = overall.results[0] if overall.results else {}
    return (dict(row), [Vault.from_row(r) for r in per_vault.results],
            [ModelVectors.from_row(r) for r in vectors.results])

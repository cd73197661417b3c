"""migrations/0008 on the local SQLite adapter and on real D1 in Miniflare: vectors recorded
before it are counted per model (dimensions unknown, 0), and from then on the triggers keep
`vector_stats` equal to a count of `vector_units` through inserts, re-embedding under
another model (the indexer's upsert) and deletes."""

from __future__ import annotations

from pathlib import Path

import pytest

from local.migrate import migrate
from tests.contract.history import migrations_before
from worker.db import Database
from worker.indexing.indexer import DROP_SQL, RECORD_SQL

pytestmark = pytest.mark.miniflare

BEFORE_0008 = """
INSERT INTO vector_units (vector_id, corpus, unit_id, model, embedded_at)
VALUES (?1, ?2, ?3, ?4, 1)
"""
COUNTED_SQL = """
SELECT corpus, model, dimensions, count(*) AS vectors FROM vector_units
GROUP BY corpus, model, dimensions ORDER BY corpus, model, dimensions
"""
STATS_SQL = """
SELECT corpus, model, dimensions, vectors FROM vector_stats
ORDER BY corpus, model, dimensions
"""


async def rows(db: Database, sql: str) -> list[dict]:
    return (await db.prepare(sql).all()).results


async def test_0008_counts_old_vectors_and_keeps_counting(blank: Database,
                                                          tmp_path: Path) -> None:
    await migrate(blank, migrations_before(tmp_path, "0008"))
    for i, (corpus, model) in enumerate([("notes", "m1"), ("notes", "m1"),
                                         ("messages", "m1"), ("notes", "m0")]):
        await blank.prepare(BEFORE_0008).bind(f"v{i}", corpus, f"u{i}", model).run()
    assert await migrate(blank, migrations_before(tmp_path, "0009")) == [
        "0008_vector_models.sql"]
    assert await rows(blank, STATS_SQL) == [
        {"corpus": "messages", "model": "m1", "dimensions": 0, "vectors": 1},
        {"corpus": "notes", "model": "m0", "dimensions": 0, "vectors": 1},
        {"corpus": "notes", "model": "m1", "dimensions": 0, "vectors": 2}]

    def record(vector_id: str, corpus: str, unit: str, model: str, dims: int):
        return blank.prepare(RECORD_SQL).bind(vector_id, corpus, unit, model, dims, 2)

    # New vectors, then every old one re-embedded under m2 (one batch, as the indexer).
    await blank.batch([record("v4", "notes", "u4", "m2", 384),
                       record("v5", "messages", "u5", "m2", 384)])
    await blank.batch([record(f"v{i}", c, f"u{i}", "m2", 384)
                       for i, c in enumerate(["notes", "notes", "messages", "notes"])])
    assert await rows(blank, STATS_SQL) == [
        {"corpus": "messages", "model": "m2", "dimensions": 384, "vectors": 2},
        {"corpus": "notes", "model": "m2", "dimensions": 384, "vectors": 4}]
    await blank.batch([record("v0", "notes", "u0", "m2", 768),  # a size change is a move too
                       blank.prepare(DROP_SQL).bind('["v1", "v5", "absent"]')])
    assert await rows(blank, STATS_SQL) == await rows(blank, COUNTED_SQL) == [
        {"corpus": "messages", "model": "m2", "dimensions": 384, "vectors": 1},
        {"corpus": "notes", "model": "m2", "dimensions": 384, "vectors": 2},
        {"corpus": "notes", "model": "m2", "dimensions": 768, "vectors": 1}]
    await blank.prepare("DELETE FROM vector_units").run()
    assert await rows(blank, STATS_SQL) == []

"""Keeping the vector index in step with D1: embed the units that have no vector of the
current model, remove the vectors whose unit is gone, and record both in `vector_units`.

Idempotent and resumable: a run that stops half-way leaves pending units pending. At the
edge note units are indexed in the sync request and messages in `waitUntil`; locally a
background task runs it (local/semantic/wiring.SerialScheduler).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from worker.db import Database
from worker.recall.corpora import VECTOR_CORPORA
from worker.recall.vector_corpora import VectorCorpus
from worker.semantic.ports import VectorRecord, vector_id
from worker.semantic.semantics import Semantics

RECORD_SQL = """
INSERT INTO vector_units (vector_id, corpus, unit_id, model, dimensions, embedded_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6)
ON CONFLICT (vector_id) DO UPDATE SET
    unit_id = excluded.unit_id, model = excluded.model, dimensions = excluded.dimensions,
    embedded_at = excluded.embedded_at
"""
DROP_SQL = "DELETE FROM vector_units WHERE vector_id IN (SELECT value FROM json_each(?1))"
# Units embedded per run and per corpus: one Workers AI call holds 100 texts; locally
# MiniLM takes about 0.1 s a section, so a run stays within seconds.
DEFAULT_RUN_UNITS = 100


@dataclass
class IndexRun:
    embedded: int = 0
    removed: int = 0
    more: bool = False  # a limit was reached: run again


async def _remove_orphans(db: Database, sem: Semantics, corpus: VectorCorpus,
                          limit: int) -> int:
    import json

    rows = (await db.prepare(corpus.orphans_sql).bind(limit).all()).results
    ids = [str(r["vector_id"]) for r in rows]
    if ids:
        await sem.index.delete(ids)
        await db.prepare(DROP_SQL).bind(json.dumps(ids)).run()
    return len(ids)


async def _embed_pending(db: Database, sem: Semantics, corpus: VectorCorpus, limit: int,
                         now_ms: int) -> int:
    model = sem.embedder.model
    rows = (await db.prepare(corpus.units_sql).bind(model, limit).all()).results
    done = 0
    step = max(1, sem.embedder.max_batch)
    for start in range(0, len(rows), step):
        chunk = rows[start:start + step]
        vectors = await sem.embedder.embed([str(r["text"] or "") for r in chunk], "passage")
        records = [VectorRecord(id=vector_id(str(r["unit_id"])), values=v, metadata={
            "kind": corpus.kind, **({"vault": str(r["vault"])} if r["vault"] else {})})
            for r, v in zip(chunk, vectors, strict=True)]
        await sem.index.upsert(records)
        await db.batch([db.prepare(RECORD_SQL).bind(rec.id, corpus.name, str(r["unit_id"]),
                                                    model, sem.embedder.dimensions, now_ms)
                        for rec, r in zip(records, chunk, strict=True)])
        done += len(chunk)
    return done


async def index_pending(db: Database, sem: Semantics, now_ms: int,
                        corpora: Sequence[VectorCorpus] = VECTOR_CORPORA,
                        limit: int = DEFAULT_RUN_UNITS) -> IndexRun:
    run = IndexRun()
    for corpus in corpora:
        removed = await _remove_orphans(db, sem, corpus, limit)
        embedded = await _embed_pending(db, sem, corpus, limit, now_ms)
        run.removed += removed
        run.embedded += embedded
        run.more = run.more or removed >= limit or embedded >= limit
    return run

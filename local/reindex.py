"""`mallory reindex`: rebuild what recall derives from the stored rows of a local database.

    fts      the FTS5 indexes of note sections and conversation units, rebuilt from their
             content tables and checked, and corpus_stats' document counts recounted
    vectors  the vector index brought in step with the configured embedder: vectors of
             another size purged, records whose vector the index lacks (and vectors with no
             record) dropped, every unit without a vector of the current model embedded
             (stale ones included), vectors of deleted units removed; `force` first drops
             every vector, so everything is embedded again

Both are idempotent: a second run embeds nothing and rebuilds the FTS indexes to the same
content. Progress and the summary go through `say`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from local.semantic.vectors import SqliteVectorIndex, purge_other_sizes
from local.semantic.wiring import NOTHING_SET_UP, local_embedder
from local.sqlite_db import SqliteDatabase
from shared.api.errors import ConfigError
from worker.indexing.indexer import DROP_SQL, index_pending
from worker.recall.corpora import VECTOR_CORPORA
from worker.recall.vector_corpora import VectorCorpus
from worker.retrieval_status.report import ModelVectors, VectorHealth, vector_health
from worker.semantic.semantics import Semantics
from worker.store.status import VECTOR_STATS_SQL

Say = Callable[[str], None]
# Units embedded per indexer call and corpus: a progress line every few seconds with the
# local model (≈ 100–250 units/s, bench.embed).
CHUNK_UNITS = 500
# Vector ids per DROP_SQL statement (one bound JSON array; D1 caps a value at 2 MB).
IDS_PER_STATEMENT = 5_000


@dataclass(frozen=True)
class FtsIndex:
    corpus: str  # its corpus_stats row
    table: str  # the FTS5 table
    content: str  # the table it indexes


FTS_INDEXES = (FtsIndex("notes", "note_sections_fts", "note_sections"),
               FtsIndex("messages", "conversation_units_fts", "conversation_units"))


def rebuild_sql(fts: FtsIndex) -> str:
    return f"INSERT INTO {fts.table} ({fts.table}) VALUES ('rebuild')"


def integrity_sql(fts: FtsIndex) -> str:
    """Fails (SQLITE_CORRUPT) when the index does not match its content table."""
    return f"INSERT INTO {fts.table} ({fts.table}, rank) VALUES ('integrity-check', 1)"


def recount_sql(fts: FtsIndex) -> str:
    return (f"UPDATE corpus_stats SET docs = (SELECT count(*) FROM {fts.content}) "
            f"WHERE corpus = '{fts.corpus}' RETURNING docs")


def pending_count_sql(corpus: VectorCorpus) -> str:
    """How many units the indexer would embed (?1 model; its LIMIT bound to -1, none)."""
    return f"SELECT count(*) AS n FROM ({corpus.units_sql})"


RECORDED_SQL = "SELECT vector_id FROM vector_units"
OTHER_SIZE_SQL = """
DELETE FROM vector_units WHERE model = ?1 AND dimensions NOT IN (0, ?2) RETURNING vector_id
"""
DROP_ALL_SQL = "DELETE FROM vector_units"
UNITS_SQL = "SELECT (SELECT docs FROM corpus_stats WHERE corpus = 'notes') + " \
            "(SELECT docs FROM corpus_stats WHERE corpus = 'messages') AS n"


async def rebuild_fts(db: SqliteDatabase, say: Say) -> dict[str, int]:
    """Rows indexed per corpus after the rebuild."""
    counts = {}
    for fts in FTS_INDEXES:
        started = time.perf_counter()
        _, recounted = await db.batch([db.prepare(rebuild_sql(fts)),
                                             db.prepare(recount_sql(fts))])
        await db.prepare(integrity_sql(fts)).run()
        counts[fts.corpus] = int(recounted.results[0]["docs"])
        say(f"fts: {fts.table} rebuilt from {counts[fts.corpus]:,} rows of {fts.content} "
            f"and checked in {time.perf_counter() - started:.1f} s")
    return counts


@dataclass
class VectorRun:
    purged: int = 0  # stored vectors of another size
    resized: int = 0  # records of the current model made at another size
    missing: int = 0  # records whose vector the index did not hold
    strays: int = 0  # vectors the index held without a record
    embedded: int = 0
    removed: int = 0  # vectors of units since deleted
    seconds: float = 0.0
    health: VectorHealth | None = None


async def _drop_records(db: SqliteDatabase, ids: Sequence[str]) -> None:
    for start in range(0, len(ids), IDS_PER_STATEMENT):
        await db.prepare(DROP_SQL).bind(json.dumps(list(ids[start:start + IDS_PER_STATEMENT]))
                                        ).run()


async def _reconcile(db: SqliteDatabase, sem: Semantics, index: SqliteVectorIndex,
                     force: bool, run: VectorRun) -> None:
    """Make vector_units and the index agree, so that what is pending is what is missing."""
    held = index.ids()
    if force:
        await db.prepare(DROP_ALL_SQL).run()
        await index.delete(sorted(held))
        return
    resized = (await db.prepare(OTHER_SIZE_SQL).bind(sem.embedder.model,
                                                     sem.embedder.dimensions).all()).results
    run.resized = len(resized)
    recorded = {str(r["vector_id"]) for r in (await db.prepare(RECORDED_SQL).all()).results}
    missing = sorted(recorded - held)
    strays = sorted(held - recorded)
    await _drop_records(db, missing)
    if strays:
        await index.delete(strays)
    run.missing, run.strays = len(missing), len(strays)


async def _pending(db: SqliteDatabase, model: str) -> int:
    counts = await db.batch([db.prepare(pending_count_sql(c)).bind(model, -1)
                             for c in VECTOR_CORPORA])
    return sum(int(r.results[0]["n"]) for r in counts)


def _progress(done: int, total: int, started: float) -> str:
    elapsed = time.perf_counter() - started
    rate = done / elapsed if elapsed > 0 else 0.0
    left = f", about {(total - done) / rate:.0f} s left" if rate and total > done else ""
    return f"vectors: {done:,}/{total:,} units embedded ({rate:.0f} units/s{left})"


def opened_semantics(db: SqliteDatabase, env: Mapping[str, str], threads: int | None = None
                     ) -> tuple[Semantics, int]:
    """The configured embedder with the index beside the database, and how many stored
    vectors of another size were purged so that the index could open."""
    found = local_embedder(env, threads)
    if found is None:
        raise ConfigError(f"cannot embed: {NOTHING_SET_UP}")
    embedder, source = found
    purged = purge_other_sizes(db.path, embedder.dimensions)
    index = SqliteVectorIndex.beside(db, embedder.dimensions)
    return Semantics(embedder, index, source=source), purged


async def reindex_vectors(db: SqliteDatabase, sem: Semantics, say: Say, now_ms: int,
                          force: bool = False, purged: int = 0) -> VectorRun:
    """`sem.index`: a SqliteVectorIndex (opened_semantics)."""
    index = sem.index
    if not isinstance(index, SqliteVectorIndex):
        raise TypeError("mallory reindex works on the local vector index")
    run = VectorRun(purged=purged)
    started = time.perf_counter()
    await _reconcile(db, sem, index, force, run)
    total = await _pending(db, sem.embedder.model)
    say(f"vectors: {total:,} units to embed with {sem.embedder.model} "
        f"({sem.embedder.dimensions} dimensions)")
    embed_started = time.perf_counter()
    while True:
        step = await index_pending(db, sem, now_ms, limit=CHUNK_UNITS)
        run.embedded += step.embedded
        run.removed += step.removed
        if step.embedded:
            say(_progress(run.embedded, total, embed_started))
        if not step.more:
            break
    stats = [ModelVectors.from_row(r) for r in (await db.prepare(VECTOR_STATS_SQL).all()).results]
    units = int((await db.prepare(UNITS_SQL).first() or {}).get("n") or 0)
    run.health, _ = vector_health(stats, units, sem.embedder.model, sem.embedder.dimensions,
                                  len(index))
    run.seconds = time.perf_counter() - started
    return run


def vector_summary(run: VectorRun) -> str:
    health = run.health
    repaired = [f"{n:,} {what}" for n, what in (
        (run.purged, "vectors of another size purged"),
        (run.resized, "records of another size dropped"),
        (run.missing, "records without a vector dropped"),
        (run.strays, "vectors without a record deleted"),
        (run.removed, "vectors of deleted units removed")) if n]
    rate = f" ({run.embedded / run.seconds:.0f} units/s)" if run.embedded and run.seconds else ""
    lines = [f"vectors: {run.embedded:,} units embedded in {run.seconds:.1f} s{rate}"
             + (f"; {', '.join(repaired)}" if repaired else "")]
    if health is not None:
        lines.append(f"vectors: {health.indexed:,} indexed, {health.pending:,} pending, "
                     f"{health.stale:,} stale")
    return "\n".join(lines)

"""Starting vector indexing after a write, without making the owner wait for it."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from worker.corpora import registry
from worker.indexing.indexer import index_pending
from worker.retrieval_status.report import duration
from worker.store.pause import pause_state

if TYPE_CHECKING:
    from worker.config import Runtime

log = logging.getLogger("mallory.semantic")


# Runs of index_pending per call; at the edge waitUntil ends 30 s after the response.
MAX_RUNS = 20
# How far indexing has come, from the counters /status reads (migrations/0008): the
# retrieval units, and the vectors of the current model.
PROGRESS_SQL = """
SELECT (SELECT coalesce(sum(docs), 0) FROM corpus_stats
        WHERE corpus IN ('notes', 'messages')) AS units,
       (SELECT coalesce(sum(vectors), 0) FROM vector_stats
        WHERE model = ?1 AND dimensions IN (0, ?2)) AS indexed
"""


async def log_progress(runtime: Runtime, embedded: int) -> None:
    """One line after a run that embedded something: what is left and, at the rate this
    process measured, about how long it takes (`mallory serve` logs at INFO)."""
    semantics = runtime.semantics
    if semantics is None or not log.isEnabledFor(logging.INFO):
        return
    embedder = semantics.embedder
    row = await runtime.db.prepare(PROGRESS_SQL).bind(embedder.model,
                                                      embedder.dimensions).first() or {}
    units, indexed = int(row.get("units") or 0), int(row.get("indexed") or 0)
    pending = max(0, units - indexed)
    rate, eta = semantics.progress.rate, semantics.progress.eta_s(pending)
    pace = f" at {rate:.1f} units/s" if rate else ""
    left = f", about {duration(eta)} left" if eta is not None else ""
    log.info("vector indexing: embedded %d units%s; %d of %d units have a vector, %d pending%s",
             embedded, pace, min(indexed, units), units, pending, left)


async def index_now(runtime: Runtime, corpora: Sequence[str], max_runs: int = MAX_RUNS
                    ) -> None:
    """Index what is pending in these corpora, `max_runs` runs at a time: with work left
    after them, the rest is handed to the scheduler again (so other background work gets
    its turn between) until none is left, without waiting for another write. Failures are
    logged, never raised (the next write or start picks the work up again). Nothing runs
    while memory is paused (worker/store/pause.py)."""
    semantics = runtime.semantics
    if semantics is None:
        return
    try:
        if (await pause_state(runtime.db)).paused:  # resuming indexes again
            return
    except Exception:
        log.exception("could not read the memory pause; indexing waits for the next write")
        return
    progress = semantics.progress
    progress.running += 1
    more = False
    try:
        for _ in range(max_runs):
            started = time.monotonic()
            run = await index_pending(runtime.db, semantics, runtime.now_ms(),
                                      [registry.vector_by_name(c) for c in corpora])
            progress.record(run.embedded, time.monotonic() - started)
            if run.embedded:
                await log_progress(runtime, run.embedded)
            more = run.more
            if not more:
                break
    except Exception:
        log.exception("vector indexing failed; it resumes on the next write or start")
        more = False
    finally:
        progress.running -= 1
    if more and runtime.schedule is not None:
        try:
            runtime.schedule(index_now(runtime, corpora, max_runs))
        except Exception:  # at the edge: the request's waitUntil may be over
            log.exception("could not go on indexing; it resumes on the next write")


async def drop_vectors(runtime: Runtime, vector_ids: Sequence[str]) -> None:
    """Delete forgotten units' vectors from the index, then embed what the forget rebuilt.
    Their D1 rows went in the forget's batch, so a vector this fails to delete can never
    resolve (worker/recall/vector.py); it is only dead weight in the index."""
    if runtime.semantics is None:
        return
    try:
        if vector_ids:
            await runtime.semantics.index.delete(list(vector_ids))
    except Exception:
        log.exception("deleting forgotten vectors failed; they can no longer resolve")
    await index_now(runtime, ("messages",))


async def forget_vectors(runtime: Runtime, vector_ids: Sequence[str]) -> None:
    """`drop_vectors` after a forget: in the background where there is one (waitUntil,
    the local task), else before the response."""
    if runtime.semantics is None:
        return
    if runtime.schedule is not None:
        runtime.schedule(drop_vectors(runtime, vector_ids))
    else:
        await drop_vectors(runtime, vector_ids)


def schedule_indexing(runtime: Runtime, corpora: Sequence[str]) -> None:
    """waitUntil at the edge, the local background task locally; nothing without an
    embedder."""
    if runtime.semantics is not None and runtime.schedule is not None:
        runtime.schedule(index_now(runtime, corpora))

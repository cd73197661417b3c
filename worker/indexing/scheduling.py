"""Starting vector indexing after a write, without making the owner wait for it."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from worker.indexing.indexer import index_pending
from worker.recall.corpora import VECTOR_BY_NAME
from worker.store.pause import pause_state

if TYPE_CHECKING:
    from worker.config import Runtime

log = logging.getLogger("mallory.semantic")


# Runs of index_pending per call; at the edge waitUntil ends 30 s after the response.
MAX_RUNS = 20


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
                                      [VECTOR_BY_NAME[c] for c in corpora])
            progress.record(run.embedded, time.monotonic() - started)
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

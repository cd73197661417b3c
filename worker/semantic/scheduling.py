"""Starting vector indexing after a write, without making the owner wait for it."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from worker.recall.corpora import VECTOR_BY_NAME
from worker.semantic.indexer import index_pending

if TYPE_CHECKING:
    from worker.config import Runtime

log = logging.getLogger("mallory.semantic")


# Runs of index_pending per call; at the edge waitUntil ends 30 s after the response.
MAX_RUNS = 20


async def index_now(runtime: Runtime, corpora: Sequence[str], max_runs: int = MAX_RUNS
                    ) -> None:
    """Index what is pending in these corpora; failures are logged, never raised (the
    next write or run picks the work up again)."""
    if runtime.semantics is None:
        return
    try:
        for _ in range(max_runs):
            run = await index_pending(runtime.db, runtime.semantics, runtime.now_ms(),
                                      [VECTOR_BY_NAME[c] for c in corpora])
            if not run.more:
                return
    except Exception:
        log.exception("vector indexing failed; it resumes on the next write")


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

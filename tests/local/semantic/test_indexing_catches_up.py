"""Background indexing goes on until nothing is pending, without waiting for another write
(it used to stop after MAX_RUNS × DEFAULT_RUN_UNITS = 2,000 units per write), and /status
says how far behind it is meanwhile.

Through the app over HTTP on real SQLite, with the local vector index and the local
server's scheduler (local/semantic/wiring.SerialScheduler). The model is the one stand-in:
a deterministic hash at the Embedder port, since MiniLM embeds about 5 sections a second
here and 3,000 would take ten minutes.
"""

from __future__ import annotations

import logging
import re

import pytest

from tests import embedder

embedder.require()  # the local vector index needs numpy

from collections.abc import Sequence

import httpx

from local.semantic.vectors import SqliteVectorIndex
from local.semantic.wiring import SerialScheduler
from local.sqlite_db import SqliteDatabase
from shared.api.limits import MAX_BATCH_ITEMS
from tests.conftest import note, store_notes, sync
from tests.worker.semantic.fake_workers_ai import fake_vector
from worker.config import Runtime
from worker.indexing.scheduling import MAX_RUNS, index_now
from worker.semantic.ports import EmbedKind
from worker.semantic.semantics import Semantics

pytestmark = pytest.mark.embed

UNITS = 3_000
DIMS = 16


class HashEmbedder:
    """The Embedder port with a cheap deterministic model: unit vectors from SHA-256."""

    model = "test/sha256-16"
    dimensions = DIMS
    max_batch = 100

    def __init__(self) -> None:
        self.texts = 0  # passages embedded (/status's probe embeds a query)

    async def embed(self, texts: Sequence[str], kind: EmbedKind) -> list[list[float]]:
        if kind == "passage":
            self.texts += len(texts)
        out = []
        for text in texts:
            v = fake_vector(text, kind, DIMS)
            norm = sum(x * x for x in v) ** 0.5
            out.append([x / norm for x in v])
        return out


async def indexing(client: httpx.AsyncClient) -> dict:
    response = await client.get("/status")
    assert response.status_code == 200, response.text
    return response.json()["retrieval"]


async def test_3000_units_are_indexed_to_zero_pending_after_one_write(
        db: SqliteDatabase, runtime: Runtime, client: httpx.AsyncClient,
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="mallory.semantic")
    notes = [note(f"Bulk/Note {i:04d}.md", f"Bulk note {i} about topic {i % 37}.")
             for i in range(UNITS - 1)]
    for start in range(0, len(notes), MAX_BATCH_ITEMS):
        await store_notes(db, *notes[start:start + MAX_BATCH_ITEMS], batch_id=f"b{start}")
    embedder, scheduler = HashEmbedder(), SerialScheduler()
    runtime.semantics = Semantics(embedder, SqliteVectorIndex(":memory:", DIMS))
    runtime.schedule = scheduler
    assert UNITS > MAX_RUNS * 100  # more than one write's worth of runs

    queued = await indexing(client)
    assert queued["indexing"] == {"behind": True, "pending": UNITS - 1, "running": False,
                                  "rate_per_s": None, "eta_s": None}
    assert queued["notes"][-1].startswith(f"indexing is behind: {UNITS - 1} of {UNITS - 1} "
                                          "units have no vector yet (indexing is queued)")

    runtime.schedule = None  # one run inline, to measure a rate
    await index_now(runtime, ["notes"], max_runs=1)
    runtime.schedule = scheduler
    measured = await indexing(client)
    behind = measured["indexing"]
    assert behind["behind"] and behind["pending"] == UNITS - 1 - 100
    assert behind["rate_per_s"] > 0 and behind["eta_s"] is not None
    assert "left at" in measured["notes"][-1]
    # `mallory serve` logs the same progress, with the time left at the measured rate
    logged = [r.getMessage() for r in caplog.records if r.name == "mallory.semantic"]
    # The log prints the unrounded rate at one decimal, the report a rounded one.
    line = re.fullmatch(r"vector indexing: embedded 100 units at ([0-9.]+) units/s; "
                        rf"100 of {UNITS - 1} units have a vector, {UNITS - 101} pending, "
                        r"about .+ left", logged[-1])
    assert line, logged[-1]
    assert float(line[1]) == pytest.approx(behind["rate_per_s"], abs=0.1)

    # The one write: a sync, which schedules note indexing once.
    await sync(client, note("Bulk/Last.md", "The last bulk note."))
    await scheduler.drain()

    done = await indexing(client)
    assert done["vectors"]["pending"] == 0 and done["vectors"]["indexed"] == UNITS
    assert done["indexing"]["behind"] is False and done["indexing"]["pending"] == 0
    assert not any("indexing is behind" in n for n in done["notes"])
    assert embedder.texts == UNITS  # each unit embedded once
    last = [r.getMessage() for r in caplog.records if r.name == "mallory.semantic"][-1]
    assert f"{UNITS} of {UNITS} units have a vector, 0 pending" in last and "left" not in last

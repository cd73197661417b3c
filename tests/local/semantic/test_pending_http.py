"""A message is recallable from the next turn on while its vectors are still being
written (waitUntil at the edge, the background task locally, Vectorize's lag): over HTTP
with the local embedder on real SQLite, indexing held back, in every semantic mode."""

from __future__ import annotations

from collections.abc import AsyncIterator, Coroutine
from pathlib import Path
from typing import Any

import pytest

from local.migrate import migrate
from local.semantic.embedder import LocalEmbedder
from local.semantic.vectors import SqliteVectorIndex
from local.sqlite_db import SqliteDatabase
from tests.conftest import note, sync
from tests.local.semantic.test_status_http import client_for, runtime_for
from worker.indexing.scheduling import index_now
from worker.semantic.semantics import Semantics

pytestmark = pytest.mark.embed

NOTES = [note("Garden/Shed.md", "The shed roof was re-felted in May; the door sticks in "
              "wet weather.", title="Shed"),
         note("Home/Keys.md", "The car's second key is in the kitchen drawer.",
              title="Keys")]


@pytest.fixture
async def file_db(tmp_path: Path) -> AsyncIterator[SqliteDatabase]:
    database = SqliteDatabase(tmp_path / "mallory.sqlite")
    await migrate(database)
    yield database
    database.close()


def held_back(work: Coroutine[Any, Any, Any]) -> None:
    """A scheduler whose work has not run yet when the next turn comes."""
    work.close()


@pytest.mark.parametrize("mode", ["hybrid", "adaptive"])
async def test_what_was_just_said_is_recalled_before_it_is_embedded(
        file_db: SqliteDatabase, embedder: LocalEmbedder, mode: str) -> None:
    semantics = Semantics(embedder, SqliteVectorIndex.beside(file_db, 384))
    rt = runtime_for(file_db, semantics, mode)
    async with await client_for(rt) as client:
        await sync(client, *NOTES)
        await index_now(rt, ["notes"])
        rt.schedule = held_back
        told = (await client.post("/api/chat", json={
            "content": "Remember this: the spare key for the shed is under the blue "
                       "geranium pot."})).json()
        pending = file_db.connection.execute(
            "SELECT count(*) AS n FROM vector_units WHERE corpus = 'messages'").fetchone()
        assert pending["n"] == 0  # nothing of the conversation is embedded
        asked = (await client.post("/api/chat", json={
            "content": "where did I say the spare shed key is hidden?"})).json()
    assert (asked["recall"]["mode"], asked["recall"]["fallback"]) == (mode, None)
    footer = asked["assistant_message"]["sources"]
    assert told["user_message"]["id"] in {s["id"] for s in footer}
    semantics.index.close()  # type: ignore[attr-defined]

"""GET /status inside Pyodide when the Workers AI binding (a JavaScript object) rejects
every call: it reports the lexical recall every request then steps down to, and why."""

from __future__ import annotations

import httpx
import mallory_js  # type: ignore[import-not-found]  # the runner's JS bindings

from local.server import WithRuntime
from local.sqlite_db import SqliteDatabase
from tests.conftest import BASE_URL, LOCAL_OWNER, Clock
from worker.app import create_app
from worker.config import Runtime, Settings
from worker.semantic.semantics import from_bindings

FAILURE = "AiError: 3040: Capacity temporarily exceeded, please try again."


async def _retrieval(db: SqliteDatabase, clock: Clock, ai: object) -> dict:
    semantics = from_bindings(ai, mallory_js.makeVectorize(384))
    assert semantics is not None
    runtime = Runtime(db=db, settings=Settings(sync_tokens=("t",), **LOCAL_OWNER),
                      clock=clock, semantics=semantics)
    transport = httpx.ASGITransport(app=WithRuntime(create_app(), runtime))
    async with httpx.AsyncClient(transport=transport, base_url=BASE_URL) as client:
        response = await client.get("/status")
    assert response.status_code == 200, response.text
    return response.json()["retrieval"]


async def test_a_failing_ai_binding_is_reported_not_adaptive(db: SqliteDatabase,
                                                             clock: Clock) -> None:
    ai = mallory_js.makeFailingAI(FAILURE)
    got = await _retrieval(db, clock, ai)
    assert got["mode"] == "lexical" and got["embedder"]["reachable"] is False
    assert "Capacity temporarily exceeded" in got["embedder"]["error"]
    assert got["notes"][0].startswith("adaptive steps down to lexical")
    assert ai.calls.length == 1
    healthy = await _retrieval(db, clock, mallory_js.makeAI())
    assert healthy["mode"] == "adaptive" and healthy["embedder"]["reachable"] is True

"""GET and PUT /api/memory/pause: the global memory pause (worker/store/pause.py). While
paused, chat answers without automatic recall and nothing written is indexed; resuming
indexes what was written meanwhile, then embeds it in the background."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from shared.api.body import parse_json_model
from shared.api.limits import MAX_PAUSE_BODY_BYTES
from shared.api.owner_requests import PauseRequest
from worker.http import json_ok, read_body, runtime
from worker.indexing.scheduling import schedule_indexing
from worker.recall.corpora import VECTOR_BY_NAME
from worker.store import pause
from worker.views import memory_state, pause_result

# Resuming hands every vector corpus to indexing.
RESUMED_CORPORA = tuple(VECTOR_BY_NAME)


async def get_pause(request: Request) -> JSONResponse:
    return json_ok(memory_state(await pause.pause_state(runtime(request).db)))


async def put_pause(request: Request) -> JSONResponse:
    rt = runtime(request)
    body = await read_body(request, MAX_PAUSE_BODY_BYTES)
    wanted = parse_json_model(body, PauseRequest, "pause")
    if wanted.paused:
        return json_ok(pause_result(await pause.pause(rt.db, rt.now_ms()), 0))
    indexed = await pause.resume(rt.db)
    schedule_indexing(rt, RESUMED_CORPORA)
    return json_ok(pause_result(await pause.pause_state(rt.db), indexed))


routes = [Route("/api/memory/pause", get_pause, methods=["GET"]),
          Route("/api/memory/pause", put_pause, methods=["PUT"])]

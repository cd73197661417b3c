"""Hub-only routes: POST /vault/sync and GET /vault/manifest (service-token auth)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from shared.limits import MAX_SYNC_BODY_BYTES
from shared.protocol import MANIFEST_MAX_PAGE, MANIFEST_PAGE
from shared.schemas import parse_sync_batch
from worker.auth import check_sync_auth
from worker.http import int_param, json_ok, read_body, runtime
from worker.semantic.scheduling import index_now, schedule_indexing
from worker.store import notes
from worker.views import manifest_json


async def sync(request: Request) -> JSONResponse:
    rt = runtime(request)
    check_sync_auth(request.headers, rt.settings.sync_tokens)  # before the body is read
    batch = parse_sync_batch(await read_body(request, MAX_SYNC_BODY_BYTES))
    result = await notes.apply_batch(rt.db, batch, rt.now_ms())
    if rt.index_notes_inline:
        await index_now(rt, ["notes"])
    else:
        schedule_indexing(rt, ["notes"])
    return json_ok(result.model_dump())


async def manifest(request: Request) -> JSONResponse:
    rt = runtime(request)
    check_sync_auth(request.headers, rt.settings.sync_tokens)
    limit = int_param(request, "limit", MANIFEST_PAGE, 1, MANIFEST_MAX_PAGE)
    after = request.query_params.get("after", "")
    return json_ok(manifest_json(await notes.manifest_page(rt.db, after, limit), limit))


routes = [
    Route("/vault/sync", sync, methods=["POST"]),
    Route("/vault/manifest", manifest, methods=["GET"]),
]

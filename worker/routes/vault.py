"""Hub-only routes (service-token auth): POST /vault/heartbeat, POST /vault/sync and
GET /vault/manifest?vault=<vault id>. The POSTs take `Content-Type: application/json`, as
the hub sends (hub/client.py), and as every /api/ route that takes a body: another type is
a 415, checked after the token and before the body is read."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from shared.api.body import parse_json_model
from shared.api.errors import BadRequest, NotFound
from shared.api.fields import check_vault_id
from shared.api.limits import MAX_HEARTBEAT_BODY_BYTES, MAX_SYNC_BODY_BYTES
from shared.api.protocol import MANIFEST_MAX_PAGE, MANIFEST_PAGE
from shared.api.sync_payload import Heartbeat, parse_sync_batch
from worker.auth import check_sync_auth
from worker.db.scrub import scrub
from worker.http import int_param, json_ok, read_body, runtime
from worker.indexing.scheduling import index_now, schedule_indexing
from worker.security.csrf import check_media_type
from worker.store import notes, vaults
from worker.views import contact, manifest_out


async def heartbeat(request: Request) -> JSONResponse:
    rt = runtime(request)
    check_sync_auth(request.headers, rt.settings.sync_tokens)  # before the body is read
    check_media_type(request.method, request.headers)
    beat = parse_json_model(await read_body(request, MAX_HEARTBEAT_BODY_BYTES), Heartbeat,
                            "heartbeat")
    beat_answer = await vaults.heartbeat(rt.db, beat.vault_id, beat.vault, rt.now_ms(),
                                         beat.rejected, beat.seq, beat.holder)
    return json_ok(contact(*beat_answer))


async def sync(request: Request) -> JSONResponse:
    rt = runtime(request)
    check_sync_auth(request.headers, rt.settings.sync_tokens)  # before the body is read
    check_media_type(request.method, request.headers)
    now = rt.now_ms()
    batch = parse_sync_batch(await read_body(request, MAX_SYNC_BODY_BYTES), now)
    result = await notes.apply_batch(rt.db, batch, now)
    if result.deleted or result.withdrawn:
        await scrub(rt.db)
    if rt.index_notes_inline:
        await index_now(rt, ["notes"])
    else:
        schedule_indexing(rt, ["notes"])
    if result.withdrawn:  # their questions are indexed alone: embed them
        schedule_indexing(rt, ["messages"])
    return json_ok(result)


async def manifest(request: Request) -> JSONResponse:
    rt = runtime(request)
    check_sync_auth(request.headers, rt.settings.sync_tokens)
    vault_id = request.query_params.get("vault", "")
    try:
        check_vault_id(vault_id)
    except ValueError as exc:
        raise BadRequest(f"vault: {exc}; got {vault_id[:60]!r}") from exc
    limit = int_param(request, "limit", MANIFEST_PAGE, 1, MANIFEST_MAX_PAGE)
    after = request.query_params.get("after", "")
    vault = await vaults.get(rt.db, vault_id)
    if vault is None:
        raise NotFound(f"no vault with id {vault_id} on this Worker")
    rows = await notes.manifest_page(rt.db, vault.vid, after, limit)
    return json_ok(manifest_out(vault, rows, limit))


routes = [
    Route("/vault/heartbeat", heartbeat, methods=["POST"]),
    Route("/vault/sync", sync, methods=["POST"]),
    Route("/vault/manifest", manifest, methods=["GET"]),
]

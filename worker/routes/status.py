"""GET /status: corpus sizes, sync freshness per vault, schema version."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from worker.http import json_ok, runtime
from worker.store.status import read_status
from worker.views import status_json


async def status(request: Request) -> JSONResponse:
    rt = runtime(request)
    row, vaults = await read_status(rt.db)
    return json_ok(status_json(row, vaults, rt.settings, rt.now_ms(), rt.mode))


routes = [Route("/status", status, methods=["GET"])]

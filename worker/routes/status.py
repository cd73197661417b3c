"""GET /status: corpus sizes, sync freshness per vault, schema version, retrieval."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from worker.http import json_ok, runtime
from worker.retrieval_status.probe import embedder_problem
from worker.retrieval_status.report import retrieval_status
from worker.store.status import read_status
from worker.views import status_out


async def status(request: Request) -> JSONResponse:
    rt = runtime(request)
    row, vaults, vectors = await read_status(rt.db)
    units = int(row.get("sections") or 0) + int(row.get("exchanges") or 0)
    broken = await embedder_problem(rt.semantics) if rt.semantics is not None else None
    retrieval = retrieval_status(rt.settings.retrieval_mode, rt.mode, rt.semantics, vectors,
                                 units, rt.semantic_problem, broken)
    return json_ok(status_out(row, vaults, rt.settings, rt.now_ms(), retrieval))


routes = [Route("/status", status, methods=["GET"])]

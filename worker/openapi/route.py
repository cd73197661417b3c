"""GET /openapi.json: the API's description (worker/openapi/). An owner route like the
API it describes (worker/security/routes.py): it holds nothing secret, but nothing is
served unauthenticated that need not be, and an owner's tools can send credentials."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from worker.openapi.document import openapi_document
from worker.openapi.operations import OPENAPI_PATH


async def openapi(request: Request) -> JSONResponse:
    return JSONResponse(openapi_document())


routes = [Route(OPENAPI_PATH, openapi, methods=["GET"])]

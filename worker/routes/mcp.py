"""POST /mcp: Mallory's memory over MCP's Streamable HTTP transport (README, "MCP").

Stateless: every request carries the owner's credentials (an owner route, like /api/*),
so no session is kept and no `Mcp-Session-Id` is issued. A request is answered with one
`application/json` JSON-RPC response; a notification with 202 and no body. GET (the
optional server-to-client stream) and DELETE (ending a session) answer 405.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from shared.api.json_bounds import loads_bounded
from worker.http import read_body, runtime
from worker.mcp import rpc

MAX_MCP_BODY_BYTES = 64_000


async def post(request: Request) -> Response:
    # A body that is not JSON is the app's own 400 (one error shape for every route); a
    # JSON body that is not one JSON-RPC request is answered in JSON-RPC.
    message = loads_bounded(await read_body(request, MAX_MCP_BODY_BYTES), "MCP")
    if isinstance(message, list):
        return JSONResponse(rpc.error(None, rpc.INVALID_REQUEST,
                                      "send one JSON-RPC message per request (no batches)"))
    answer = await rpc.handle(runtime(request), message)
    if answer is None:
        return Response(status_code=202)
    return JSONResponse(answer)


async def not_served(request: Request) -> Response:
    """GET (the optional server-to-client stream) and DELETE (ending a session): 405, as
    the transport asks of a server that offers neither. Not an operation of the API, so
    not in /openapi.json."""
    return JSONResponse(rpc.error(None, rpc.INVALID_REQUEST, "this MCP server is stateless: "
                                  "POST one JSON-RPC message per request"),
                        status_code=405, headers={"allow": "POST"})


routes = [Route(rpc.PATH, post, methods=["POST"]),
          Route(rpc.PATH, not_served, methods=["GET", "DELETE"], include_in_schema=False)]

"""JSON-RPC 2.0 for MCP (pure): a message in, the response out (None for a
notification). Protocol errors are JSON-RPC errors; a tool that fails on its input or on
stored state is a tool result with `isError`, as the MCP specification asks, so the model
calling it can read why."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from shared.api.errors import MalloryError
from worker.config import Runtime
from worker.mcp.tools import TOOLS, as_text

# The MCP revisions this server speaks, newest first; a client asking for another gets
# the newest (the specification's version negotiation).
PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26")
SERVER_INFO = {"name": "mallory-recall", "title": "Mallory's memory", "version": "0.1.0"}
INSTRUCTIONS = ("The owner's personal memory: Obsidian notes and past conversations with "
                "Mallory. Use search_memory to look things up, recall to see what is "
                "reliable enough to bring into a conversation, get_note / get_message to "
                "read one in full. Cite what you use.")

PATH = "/mcp"
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602
# A request the app refused before MCP saw it (owner authentication, Host, Origin, rate
# limits): a code of JSON-RPC's range for server-defined errors.
REFUSED = -32001


def error(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def refusal(exc: MalloryError) -> dict[str, Any]:
    """The body of a refusal at PATH, sent at the app's HTTP status: a JSON-RPC error, which
    MCP clients read (the Python SDK shows its message, where a body in the app's own
    error shape became "Server returned an error response", -32603), with the app's
    error object in `data`."""
    body = error(None, REFUSED, exc.message)
    body["error"]["data"] = exc.to_json()
    return body


def _ok(request_id: Any, result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def _initialize(params: Mapping[str, Any]) -> dict[str, Any]:
    asked = params.get("protocolVersion")
    version = asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0]
    return {"protocolVersion": version, "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": SERVER_INFO, "instructions": INSTRUCTIONS}


async def _call(rt: Runtime, params: Mapping[str, Any]) -> dict[str, Any]:
    tool = TOOLS.get(str(params.get("name")))
    if tool is None:
        raise KeyError(f"no tool named {str(params.get('name'))[:80]!r}; the tools are "
                       f"{', '.join(TOOLS)}")
    try:
        args = tool.input.model_validate(params.get("arguments") or {})
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}"
                             for e in exc.errors())
        return {"content": [{"type": "text", "text": f"invalid arguments: {problems}"}],
                "isError": True}
    try:
        result = await tool.handler(rt, args)
    except MalloryError as exc:
        if exc.status >= 500:
            raise
        return {"content": [{"type": "text", "text": f"{exc.code}: {exc}"}], "isError": True}
    return {"content": [{"type": "text", "text": as_text(result)}],
            "structuredContent": result, "isError": False}


async def handle(rt: Runtime, message: object) -> dict[str, Any] | None:
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" \
            or not isinstance(message.get("method"), str):
        request_id = message.get("id") if isinstance(message, dict) else None
        return error(request_id, INVALID_REQUEST, "not a JSON-RPC 2.0 request")
    if "id" not in message:
        return None  # a notification (notifications/initialized, …): nothing to answer
    request_id, method = message["id"], message["method"]
    params = message.get("params") or {}
    if not isinstance(params, dict):
        return error(request_id, INVALID_PARAMS, "params must be an object")
    if method == "initialize":
        return _ok(request_id, _initialize(params))
    if method == "ping":
        return _ok(request_id, {})
    if method == "tools/list":
        return _ok(request_id, {"tools": [t.listing() for t in TOOLS.values()]})
    if method == "tools/call":
        try:
            return _ok(request_id, await _call(rt, params))
        except KeyError as exc:
            return error(request_id, INVALID_PARAMS, str(exc.args[0]))
    return error(request_id, METHOD_NOT_FOUND, f"this server has no method {method[:80]!r}")

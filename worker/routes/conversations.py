"""History: GET /api/conversations, /api/conversations/{id}/messages, /api/messages/{id}."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from shared.api.limits import MAX_SAFE_INTEGER
from worker.cursors import parse_conversation_cursor
from worker.http import int_param, json_ok, runtime
from worker.store import chats
from worker.views import conversations_page, message_lookup, messages_page

CONVERSATIONS_PAGE = 30
CONVERSATIONS_MAX_PAGE = 100
MESSAGES_PAGE = 50
MESSAGES_MAX_PAGE = 200


async def list_conversations(request: Request) -> JSONResponse:
    rt = runtime(request)
    limit = int_param(request, "limit", CONVERSATIONS_PAGE, 1, CONVERSATIONS_MAX_PAGE)
    raw = request.query_params.get("before")
    before = parse_conversation_cursor(raw) if raw else None
    rows = await chats.list_conversations(rt.db, limit, before)
    return json_ok(conversations_page(rows, limit))


async def conversation_messages(request: Request) -> JSONResponse:
    rt = runtime(request)
    limit = int_param(request, "limit", MESSAGES_PAGE, 1, MESSAGES_MAX_PAGE)
    raw = request.query_params.get("before")
    before = int_param(request, "before", 0, 1, MAX_SAFE_INTEGER) if raw else None
    messages = await chats.page_messages(rt.db, request.path_params["conversation_id"],
                                         before, limit)
    return json_ok(messages_page(messages, limit))


async def get_message(request: Request) -> JSONResponse:
    rt = runtime(request)
    message, newer = await chats.get_message(rt.db, request.path_params["message_id"])
    return json_ok(message_lookup(message, newer))


routes = [
    Route("/api/conversations", list_conversations, methods=["GET"]),
    Route("/api/conversations/{conversation_id}/messages", conversation_messages,
          methods=["GET"]),
    Route("/api/messages/{message_id}", get_message, methods=["GET"]),
]

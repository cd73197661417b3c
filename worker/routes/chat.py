"""POST /api/chat: one turn of the conversation (worker/turn.py)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from shared.api.body import parse_json_model
from shared.api.limits import MAX_CHAT_BODY_BYTES
from shared.api.owner_requests import ChatRequest
from worker.http import json_ok, read_body, runtime
from worker.turn import chat_turn


async def post_chat(request: Request) -> JSONResponse:
    rt = runtime(request)
    body = await read_body(request, MAX_CHAT_BODY_BYTES)
    return json_ok(await chat_turn(rt, parse_json_model(body, ChatRequest, "chat")))


routes = [Route("/api/chat", post_chat, methods=["POST"])]

"""Owner-facing routes: search, chat, history, status."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from shared.errors import BadRequest
from shared.limits import MAX_CHAT_BODY_BYTES
from shared.query import Mode, build_query
from shared.schemas import ChatRequest, parse_json_model
from worker.chat import chat, message_json
from worker.cursors import parse_conversation_cursor
from worker.http import int_param, json_ok, read_body, runtime
from worker.search import Filters, iso, search_corpus
from worker.store import chats
from worker.store.status import read_status

SOURCES = ("all", "notes", "messages")
EXPLICIT_PER_CONVERSATION = 2
STALE_AFTER_INTERVALS = 2


async def search(request: Request) -> JSONResponse:
    rt = runtime(request)
    q = request.query_params.get("q")
    if q is None:
        raise BadRequest("missing q: pass the search text as ?q=")
    source = request.query_params.get("source", "all")
    if source not in SOURCES:
        raise BadRequest(f"source must be one of {', '.join(SOURCES)}, got {source!r}")
    limit = int_param(request, "limit", 10, 1, 50)
    query = build_query(q, Mode.EXPLICIT)
    filters = Filters(source=source, limit=limit, per_group=EXPLICIT_PER_CONVERSATION)
    hits = await search_corpus(rt.db, query, filters, rt.now_ms())
    return json_ok({"query": query.text, "terms": [t.fts for t in query.terms],
                    "hits": [h.model_dump() for h in hits]})


async def post_chat(request: Request) -> JSONResponse:
    rt = runtime(request)
    body = await read_body(request, MAX_CHAT_BODY_BYTES)
    chat_request = parse_json_model(body, ChatRequest, "chat")
    return json_ok(await chat(rt, chat_request))


async def list_conversations(request: Request) -> JSONResponse:
    rt = runtime(request)
    limit = int_param(request, "limit", 30, 1, 100)
    before = None
    cursor = request.query_params.get("before")
    if cursor:
        before = parse_conversation_cursor(cursor)
    rows = await chats.list_conversations(rt.db, limit, before)
    next_before = f"{rows[-1]['updated_at']}.{rows[-1]['id']}" if len(rows) == limit else None
    return json_ok({"conversations": [
        {"id": r["id"], "title": r["title"], "created_at": iso(r["created_at"]),
         "updated_at": iso(r["updated_at"]), "message_count": r["message_count"]}
        for r in rows], "next_before": next_before})


async def conversation_messages(request: Request) -> JSONResponse:
    rt = runtime(request)
    limit = int_param(request, "limit", 50, 1, 200)
    raw = request.query_params.get("before")
    before = int_param(request, "before", 0, 1, 2**53 - 1) if raw else None
    messages = await chats.page_messages(rt.db, request.path_params["conversation_id"],
                                         before, limit)
    next_before = messages[-1].seq if len(messages) == limit and messages[-1].seq > 1 else None
    return json_ok({"messages": [message_json(m) for m in messages],
                    "next_before": next_before})


async def get_message(request: Request) -> JSONResponse:
    rt = runtime(request)
    message, newer = await chats.get_message(rt.db, request.path_params["message_id"])
    return json_ok({"message": message_json(message), "conversation_id": message.conversation_id,
                    "newer_count": newer})


async def status(request: Request) -> JSONResponse:
    rt = runtime(request)
    row = await read_status(rt.db)
    now = rt.now_ms()
    last = row.get("last_sync_at")
    staleness = (now - int(last)) // 1000 if last is not None else None
    interval = rt.settings.sync_interval_s
    return json_ok({
        "schema_version": row.get("schema_version"),
        "migrations_applied": row.get("migrations"),
        "corpora": {"notes": row.get("notes") or 0, "messages": row.get("messages") or 0},
        "conversations": row.get("conversations") or 0,
        "last_sync_at": iso(int(last)) if last is not None else None,
        "staleness_seconds": staleness,
        "sync_interval_seconds": interval,
        "stale": staleness is None or staleness > STALE_AFTER_INTERVALS * interval,
        "model_provider": rt.settings.model_provider,
    })


routes = [
    Route("/api/search", search, methods=["GET"]),
    Route("/api/chat", post_chat, methods=["POST"]),
    Route("/api/conversations", list_conversations, methods=["GET"]),
    Route("/api/conversations/{conversation_id}/messages", conversation_messages,
          methods=["GET"]),
    Route("/api/messages/{message_id}", get_message, methods=["GET"]),
    Route("/status", status, methods=["GET"]),
]

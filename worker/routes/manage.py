"""Owner routes that change history: forget a message or a whole conversation, rename a
conversation.

Forgetting is a hard delete in one D1 batch (worker/store/forget.py): the message rows,
their conversation units (whose triggers take the text out of the FTS index and
`corpus_stats`; a conversation's units go through its cascade) and vector rows, stored
citations of them in the Sources of the messages that stay, and the answers given with
them in view, withdrawn and redacted. Then the adapter's leftovers of the deleted pages
are cleared (worker/db/scrub.py) and the vectors leave the index in the background.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from shared.api.body import parse_json_model
from shared.api.limits import MAX_RENAME_BODY_BYTES
from shared.api.owner_requests import RenameRequest
from worker.db.scrub import scrub
from worker.http import json_ok, read_body, runtime
from worker.indexing.scheduling import forget_vectors
from worker.store import chats, forget
from worker.views import forgotten, renamed


async def delete_message(request: Request) -> JSONResponse:
    message_id = request.path_params["message_id"]
    rt = runtime(request)
    done = await forget.delete_message(rt.db, message_id, rt.now_ms())
    await scrub(rt.db)
    await forget_vectors(rt, done.vector_ids)
    return json_ok(forgotten(message_id, done))


async def delete_conversation(request: Request) -> JSONResponse:
    conversation_id = request.path_params["conversation_id"]
    rt = runtime(request)
    done = await forget.delete_conversation(rt.db, conversation_id, rt.now_ms())
    await scrub(rt.db)
    await forget_vectors(rt, done.vector_ids)
    return json_ok(forgotten(conversation_id, done))


async def rename_conversation(request: Request) -> JSONResponse:
    body = await read_body(request, MAX_RENAME_BODY_BYTES)
    rename = parse_json_model(body, RenameRequest, "rename")
    row = await chats.rename_conversation(runtime(request).db,
                                          request.path_params["conversation_id"], rename.title)
    return json_ok(renamed(row))


routes = [
    Route("/api/messages/{message_id}", delete_message, methods=["DELETE"]),
    Route("/api/conversations/{conversation_id}", delete_conversation, methods=["DELETE"]),
    Route("/api/conversations/{conversation_id}", rename_conversation, methods=["PATCH"]),
]

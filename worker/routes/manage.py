"""Owner routes that change history: forget a message or a whole conversation, rename a
conversation.

Forgetting is a hard delete in one D1 batch: the row delete fires the FTS triggers of
migrations/0001_initial.sql (also through the conversation → messages cascade), so the text
leaves `messages_fts` and `corpus_stats` atomically, and stored citations of it are removed
from the Sources of the messages that stay.
"""

from __future__ import annotations

import re

from pydantic import field_validator
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from shared.limits import MAX_CONVERSATION_TITLE_CHARS, MAX_RENAME_BODY_BYTES
from shared.schemas import Strict, parse_json_model
from worker.http import json_ok, read_body, runtime
from worker.search import iso
from worker.store import chats

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class RenameRequest(Strict):
    title: str

    @field_validator("title")
    @classmethod
    def _title(cls, v: str) -> str:
        v = v.strip()
        if not 1 <= len(v) <= MAX_CONVERSATION_TITLE_CHARS:
            raise ValueError(f"title is {len(v)} characters after trimming; it must be 1 to "
                             f"{MAX_CONVERSATION_TITLE_CHARS}")
        if _CONTROL.search(v):
            raise ValueError("title must be one line without control characters")
        return v


def forgotten_json(item_id: str, forgotten: chats.Forgotten) -> dict[str, object]:
    return {"id": item_id, "conversation_id": forgotten.conversation_id,
            "messages_deleted": forgotten.messages,
            "citations_removed": forgotten.citations}


async def delete_message(request: Request) -> JSONResponse:
    message_id = request.path_params["message_id"]
    forgotten = await chats.delete_message(runtime(request).db, message_id)
    return json_ok(forgotten_json(message_id, forgotten))


async def delete_conversation(request: Request) -> JSONResponse:
    conversation_id = request.path_params["conversation_id"]
    forgotten = await chats.delete_conversation(runtime(request).db, conversation_id)
    return json_ok(forgotten_json(conversation_id, forgotten))


async def rename_conversation(request: Request) -> JSONResponse:
    body = await read_body(request, MAX_RENAME_BODY_BYTES)
    rename = parse_json_model(body, RenameRequest, "rename")
    row = await chats.rename_conversation(runtime(request).db,
                                          request.path_params["conversation_id"], rename.title)
    return json_ok({"id": row["id"], "title": row["title"],
                    "created_at": iso(row["created_at"]), "updated_at": iso(row["updated_at"])})


routes = [
    Route("/api/messages/{message_id}", delete_message, methods=["DELETE"]),
    Route("/api/conversations/{conversation_id}", delete_conversation, methods=["DELETE"]),
    Route("/api/conversations/{conversation_id}", rename_conversation, methods=["PATCH"]),
]

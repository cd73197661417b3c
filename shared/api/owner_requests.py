"""The owner's requests with a body: a chat message, a conversation's new title, a
judgment of a source and the memory pause (README, "HTTP API")."""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import Field, field_validator, model_validator

from shared.api.errors import PayloadTooLarge
from shared.api.fields import Strict
from shared.api.limits import (
    MAX_CHAT_CHARS,
    MAX_CONTEXT_BYTES,
    MAX_CONVERSATION_TITLE_CHARS,
    MAX_MEMORY_CHARS,
    MAX_SOURCE_NUMBER,
)
from shared.rank.feedback import Judgment


class ChatRequest(Strict):
    conversation_id: str | None = Field(default=None, min_length=1, max_length=100)
    content: str
    context: Any = None
    # A new conversation that never becomes memory (README, "Memory pause and incognito
    # chats"); chosen when it starts, so it goes with no conversation_id.
    incognito: bool = Field(default=False, strict=True)

    @model_validator(mode="after")
    def _incognito_starts(self) -> ChatRequest:
        if self.incognito and self.conversation_id is not None:
            raise ValueError("incognito is chosen when a conversation starts: send it "
                             "without conversation_id (a conversation stays as it began)")
        return self

    @field_validator("content")
    @classmethod
    def _content(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("content is empty; write a message")
        if len(v) > MAX_CHAT_CHARS:
            raise ValueError(f"content is {len(v)} characters; the limit is {MAX_CHAT_CHARS}")
        return v

    @field_validator("context")
    @classmethod
    def _context(cls, v: Any) -> Any:
        # Not a ValueError: pydantic lets other exceptions through, so this is a 413.
        size = len(_raw(v).encode()) if v is not None else 0
        if size > MAX_CONTEXT_BYTES:
            raise PayloadTooLarge(f"context is {size} bytes; the limit is "
                                  f"{MAX_CONTEXT_BYTES} bytes")
        return v

    def client_time_zone(self) -> str | None:
        """The IANA time zone the client says it is in (`context.timezone`, as the web
        client sends it; a context stored as a JSON string counts too), if any."""
        context = self.context
        if isinstance(context, str):
            try:
                context = json.loads(context)
            except ValueError:
                return None
        zone = context.get("timezone") if isinstance(context, dict) else None
        return zone if isinstance(zone, str) else None

    def raw_context(self) -> str | None:
        """The context exactly as stored: a string as given, anything else as JSON."""
        return None if self.context is None else _raw(self.context)


def _raw(context: Any) -> str:
    return context if isinstance(context, str) else json.dumps(context)


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


class FeedbackRequest(Strict):
    """POST /api/feedback: the owner's judgment of source [n] of one of
    Mallory's answers."""

    message_id: str = Field(min_length=1, max_length=100)
    n: int = Field(strict=True, ge=1, le=MAX_SOURCE_NUMBER)
    judgment: Judgment


class PauseRequest(Strict):
    """PUT /api/memory/pause: pause memory (no automatic recall, nothing indexed) or
    resume it."""

    paused: bool = Field(strict=True)


def _fact(v: str) -> str:
    v = v.strip()
    if not 1 <= len(v) <= MAX_MEMORY_CHARS:
        raise ValueError(f"fact is {len(v)} characters after trimming; a saved memory is 1 "
                         f"to {MAX_MEMORY_CHARS}")
    if _CONTROL.sub("", v.replace("\n", "")) != v.replace("\n", ""):
        raise ValueError("fact must hold no control characters but line breaks")
    return v


class MemoryRequest(Strict):
    """POST /api/memories: a fact the owner approved, and the message it came from."""

    fact: str
    source_message_id: str | None = Field(default=None, min_length=1, max_length=100)

    _check_fact = field_validator("fact")(_fact)


class MemoryEditRequest(Strict):
    """PATCH /api/memories/{id}: the fact as the owner corrected it."""

    fact: str

    _check_fact = field_validator("fact")(_fact)

"""The owner's requests with a body: a chat message, a conversation's new title, a
judgment of a source and the memory pause (README, "HTTP API")."""

from __future__ import annotations

import json
import re
import unicodedata
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
    # What the client says about itself, stored with the message for later
    # classification: a JSON object, as the web client sends {client, version, timezone,
    # locale}; `timezone` is the zone time words are read in when OWNER_TIMEZONE is unset.
    context: dict[str, Any] | None = Field(default=None, description="a JSON object about "
                                           "the client, stored with the message; its "
                                           "`timezone` (an IANA zone) reads time words")
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
        if not visible(v):
            raise ValueError("content is empty (nothing visible); write a message")
        if "\x00" in v:
            raise ValueError("content holds a NUL character (U+0000); remove it")
        if len(v) > MAX_CHAT_CHARS:
            raise ValueError(f"content is {len(v)} characters; the limit is {MAX_CHAT_CHARS}")
        return v

    @field_validator("context")
    @classmethod
    def _context(cls, v: dict[str, Any] | None) -> dict[str, Any] | None:
        # Not a ValueError: pydantic lets other exceptions through, so this is a 413.
        size = len(json.dumps(v).encode()) if v is not None else 0
        if size > MAX_CONTEXT_BYTES:
            raise PayloadTooLarge(f"context is {size} bytes; the limit is "
                                  f"{MAX_CONTEXT_BYTES} bytes")
        return v

    def client_time_zone(self) -> str | None:
        """The IANA time zone the client says it is in (`context.timezone`), if any."""
        return time_zone_of(self.context)

    def raw_context(self) -> str | None:
        """The context as stored (messages.context): its JSON."""
        return None if self.context is None else json.dumps(self.context)


def stored_time_zone(raw_context: str | None) -> str | None:
    """`context.timezone` of a context as stored (ChatRequest.raw_context), if any. A
    message stored before `context` had to be an object may hold any JSON, or a string as
    it was sent: anything but an object names no zone."""
    if raw_context is None:
        return None
    try:
        context = json.loads(raw_context)
    except ValueError:
        return None
    return time_zone_of(context) if isinstance(context, dict) else None


def time_zone_of(context: dict[str, Any] | None) -> str | None:
    zone = context.get("timezone") if context is not None else None
    return zone if isinstance(zone, str) else None


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def visible(text: str) -> bool:
    """It holds a character one can see: not only spaces, controls and format characters
    such as U+200B ZERO WIDTH SPACE (categories Z and C)."""
    return any(unicodedata.category(c)[0] not in "ZC" for c in text)


class RenameRequest(Strict):
    title: str

    @field_validator("title")
    @classmethod
    def _title(cls, v: str) -> str:
        v = v.strip()
        if v and not visible(v):
            raise ValueError("title holds no visible character (only spaces or invisible "
                             "format characters such as U+200B)")
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


def checked_fact(v: str) -> str:
    """A saved memory's fact, trimmed, or a ValueError naming what is wrong with it (the
    REST routes and the MCP `remember` tool check alike)."""
    v = v.strip()
    if v and not visible(v):
        raise ValueError("fact holds no visible character (only spaces or invisible format "
                         "characters such as U+200B)")
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

    _check_fact = field_validator("fact")(checked_fact)


class MemoryEditRequest(Strict):
    """PATCH /api/memories/{id}: the fact as the owner corrected it."""

    fact: str

    _check_fact = field_validator("fact")(checked_fact)

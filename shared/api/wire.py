"""Public JSON shapes the Worker sends: search hits, footer sources, and every route's
response.

Rendered from internal candidates only at the edge (worker/views.py); every field here is
documented in the README's API table, and nothing internal (spelling-guess flags,
attached replies, raw scores of one retriever) appears.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class SearchHit(BaseModel):
    kind: Literal["note", "message"]
    id: str  # a note's path in its vault, a message's id
    label: str
    snippet: str
    highlights: list[tuple[int, int]] = Field(default_factory=list)  # spans in `snippet`
    href: str
    timestamp: str  # ISO 8601, UTC
    score: float  # relevance × recency: what the list is ordered by
    relevance: float  # in [0, 1]: how much of the query this hit matches
    reasons: list[str] = Field(default_factory=list)
    vault: str | None = None  # notes: the vault's name
    heading: str | None = None  # notes: the heading of the section that matched
    conversation_id: str | None = None  # messages: their conversation
    # notes: a status worth noticing ("draft", "deprecated", "stale"; shared/knowledge/labels.py)
    standing: str | None = None


class Source(BaseModel):
    """A cited source, stored with the assistant message and shown in the footer."""

    n: int
    kind: Literal["note", "message"]
    id: str
    label: str  # a section hit: "Note › Heading"
    snippet: str
    href: str
    # Its standing, when there is something to notice: "draft", "deprecated — superseded
    # by [2]", "stable — contradicts [1]" (shared/knowledge/labels.py). Absent in answers stored
    # before issue 15.
    standing: str | None = None


# The responses of every route, as worker/views.py renders them. They document the API
# (GET /openapi.json, worker/openapi/); tests/worker/test_openapi.py checks real answers
# against them. `extra="forbid"` makes their schemas closed: an undocumented field fails.
class Wire(BaseModel):
    model_config = ConfigDict(extra="forbid")


Iso = Annotated[str, Field(description="ISO 8601 in UTC, e.g. 2026-05-28T09:30:00Z")]


class ErrorInfo(Wire):
    code: str = Field(description="machine-readable, e.g. not_found, invalid_payload")
    message: str = Field(description="what went wrong and what to do about it")
    details: Any = Field(default=None, description="per-item problems, when there are any "
                         "(a 422 lists {item, field, message} for every invalid field)")


class ErrorResponse(Wire):
    """Every error, whatever its status."""

    error: ErrorInfo


class MessageOut(Wire):
    id: str
    conversation_id: str
    seq: int = Field(description="1, 2, ... within the conversation")
    role: Literal["user", "assistant"]
    content: str
    sources: list[Source] = Field(description="the sources an answer cites ([] for the "
                                  "owner's messages)")
    judgments: dict[str, Literal["relevant", "irrelevant"]] = Field(
        description="the owner's 👍/👎 on this answer's sources, by source number "
        "(POST /api/feedback); {} when none")
    withdrawn: bool = Field(description="an answer withdrawn because something it was given "
                            "has since been forgotten: its content and sources are removed")
    created_at: Iso


class TimeInfo(Wire):
    """The time a query named ("last week", "in March"), read in the owner's zone."""

    expression: str = Field(description="the words that named it")
    from_: str = Field(alias="from", description="first day, ISO date, inclusive")
    to: str = Field(description="last day, ISO date, inclusive")
    timezone: str = Field(description="the IANA zone the days were read in")
    timezone_fallback: str | None = Field(description="why the zone is not the one asked "
                                          "for (an unknown zone), else null")
    applied: bool = Field(description="recall kept to these days; false when nothing "
                          "dated then was found and it searched all time")


class RecallInfo(Wire):
    injected: int = Field(description="hits put into the model's context")
    error: str | None = Field(description="a diagnostic code (query_too_long, "
                              "recall_failed) when recall failed and the chat went on without")
    mode: str = Field(description="the retrieval mode that ran")
    fallback: str | None = Field(description="why it stepped down from the mode asked for")
    skipped: str | None = Field(description="social or meta: the message asks nothing of "
                                "memory, so nothing was recalled")
    time: TimeInfo | None = Field(description="the time the message named, if any")


class ChatResponse(Wire):
    conversation_id: str
    user_message: MessageOut
    assistant_message: MessageOut
    recall: RecallInfo


class SearchResponse(Wire):
    query: str = Field(description="the normalised text")
    terms: list[str] = Field(description="the FTS terms searched; [] when only stopwords "
                             "were typed")
    corrections: dict[str, str] = Field(description="typed word → index term, for "
                                        "spelling corrections")
    mode: str
    fallback: str | None
    time: TimeInfo | None = Field(description="the time the query named, if any")
    hits: list[SearchHit]


class JudgedSource(Wire):
    kind: Literal["note", "message"]
    id: str
    label: str


class FeedbackRecorded(Wire):
    message_id: str
    n: int = Field(description="the source number judged")
    judgment: Literal["relevant", "irrelevant"]
    source: JudgedSource
    recorded_at: Iso


class ConversationOut(Wire):
    id: str
    title: str
    created_at: Iso
    updated_at: Iso = Field(description="last activity (renaming is not activity)")
    message_count: int


class ConversationsPage(Wire):
    conversations: list[ConversationOut] = Field(description="most recently active first")
    next_before: str | None = Field(description="pass as ?before= for the next page; null "
                                    "on the last")


class MessagesPage(Wire):
    messages: list[MessageOut] = Field(description="newest first")
    next_before: int | None = Field(description="pass as ?before= for the next page; null "
                                    "on the last")


class MessageLookup(Wire):
    message: MessageOut
    conversation_id: str
    newer_count: int = Field(description="messages after this one in its conversation")


class Forgotten(Wire):
    id: str = Field(description="the message or conversation forgotten")
    conversation_id: str
    messages_deleted: int
    citations_removed: int = Field(description="citations of it removed from the Sources "
                                   "of the messages that stay")
    answers_withdrawn: int = Field(description="answers given with it in view (recalled "
                                   "into them, the reply to a forgotten owner message, and "
                                   "answers that quoted those, to any depth), withdrawn: they "
                                   "stay in their conversations with their text removed")
    withdrawn_ids: list[str] = Field(description="the ids of those answers")


class Renamed(Wire):
    id: str
    title: str
    created_at: Iso
    updated_at: Iso


class VaultSummary(Wire):
    id: str | None
    name: str
    seq: int = Field(description="the last sync sequence handed out")
    notes: int
    checksum: int = Field(description="order-independent digest of (path, content hash) "
                          "pairs (shared/api/vault_digest.py)")
    last_sync_at: Iso | None
    last_contact_at: Iso | None


class Contact(Wire):
    worker_id: str = Field(description="random, created once in D1: a new id means another "
                           "or a reset database")
    adopted: bool = Field(description="a vault synced before vault ids was adopted")
    vault: VaultSummary


class ManifestNote(Wire):
    path: str
    content_hash: str
    mtime: int
    seq: int


class Manifest(Wire):
    vault: VaultSummary
    notes: list[ManifestNote]
    next_after: str | None = Field(description="pass as ?after= for the next page")


class Corpora(Wire):
    notes: int
    messages: int
    sections: int
    exchanges: int


class VaultStatus(Wire):
    id: str | None
    name: str
    notes: int
    last_sync_at: Iso | None
    last_contact_at: Iso | None
    rejected: int = Field(description="pages the last run could not send")
    staleness_seconds: int | None
    stale: bool
    legacy: bool = Field(description="synced before vault ids, not adopted by a hub yet")


class Retrieval(BaseModel):
    """Open: later Workers report more about the retrieval stack than its mode."""

    model_config = ConfigDict(extra="allow")
    mode: str = Field(description="the retrieval mode search and recall use")


class StatusResponse(Wire):
    schema_version: str | None = Field(description="the last migration applied")
    migrations_applied: int | None
    corpora: Corpora
    conversations: int
    last_sync_at: Iso | None
    last_contact_at: Iso | None
    staleness_seconds: int | None = Field(description="since the stalest vault's last hub "
                                          "contact; null when a vault never synced")
    sync_interval_seconds: int
    stale: bool
    model_provider: str
    retrieval: Retrieval
    vaults: list[VaultStatus]

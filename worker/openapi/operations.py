"""Every route of the Worker, described once: its models and the errors only it can
answer. What follows from the route's class (owner, hub, login: worker/security/routes.py)
and from its shape (a body, a path id, a rate limit) is added by worker/openapi/document.py,
so it cannot drift from what the middleware does. tests/worker/test_openapi.py fails when a
route of the app is missing here."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from shared.api.owner_requests import (
    ChatRequest,
    FeedbackRequest,
    MemoryEditRequest,
    MemoryRequest,
    PauseRequest,
    RenameRequest,
)
from shared.api.sync_payload import Heartbeat, SyncBatch, SyncResult
from shared.api.transfer import ExportParams, ImportParams, ImportResult
from shared.api.wire import (
    ChatResponse,
    Contact,
    ConversationsPage,
    FeedbackRecorded,
    Forgotten,
    InspectResponse,
    Manifest,
    MemoriesPage,
    MemoryEdited,
    MemoryOut,
    MemoryState,
    MessageLookup,
    MessagesPage,
    MissingResponse,
    PauseResult,
    Renamed,
    SearchResponse,
    StatusResponse,
)
from worker.openapi.params import (
    ConversationsParams,
    InspectAnswerParams,
    ManifestParams,
    MessagesParams,
    MissingParams,
    SearchParams,
)
from worker.security.routes import LOGIN_PATH

JSON = "application/json"
FORM = "application/x-www-form-urlencoded"
OPENAPI_PATH = "/openapi.json"


class LoginForm(BaseModel):
    token: str = Field(description="OWNER_TOKEN")


@dataclass(frozen=True)
class Operation:
    method: str
    path: str  # as in the route table, with {name} path parameters
    summary: str
    tag: str
    response: type[BaseModel] | Mapping[str, Any] | None  # a model, a raw schema, or none
    request: type[BaseModel] | None = None
    request_media: str = JSON
    query: type[BaseModel] | None = None
    status: int = 200
    answer: str = "OK"  # what the success status means
    errors: Mapping[int, str] = field(default_factory=dict)  # only this route's


OPERATIONS: tuple[Operation, ...] = (
    Operation("POST", "/api/chat", "One chat turn: store, recall, answer with citations",
              "chat", ChatResponse, request=ChatRequest,
              errors={404: "conversation_id names no conversation",
                      422: "an empty or overlong content, a context that is not a JSON "
                           "object, or incognito with a "
                           "conversation_id (incognito is chosen when a conversation starts)",
                      413: "context over its size limit (the limit is named)",
                      502: "the model provider failed or timed out (model_unavailable)"}),
    Operation("GET", "/api/memories", "The owner's saved memories, newest first", "memory",
              MemoriesPage),
    Operation("POST", "/api/memories", "Save a fact the owner approved (from \"Remember "
              "that …\" or a message's Remember button): recalled as a stable canonical "
              "note", "memory", MemoryOut, request=MemoryRequest,
              errors={404: "source_message_id names no message",
                      422: "an empty or overlong fact, a control character"}),
    Operation("PATCH", "/api/memories/{memory_id}", "Correct a saved memory: the old fact "
              "is forgotten (answers given with it withdrawn), the new one saved under a "
              "new id", "memory", MemoryEdited, request=MemoryEditRequest,
              errors={404: "no saved memory with that id",
                      422: "an empty or overlong fact, a control character"}),
    Operation("DELETE", "/api/memories/{memory_id}", "Delete a saved memory: forgotten "
              "everywhere, as a message is", "memory", Forgotten,
              errors={404: "no saved memory with that id"}),
    Operation("GET", "/api/memory/pause", "Whether memory is paused (no automatic recall, "
              "nothing written indexed) and since when", "memory", MemoryState),
    Operation("PUT", "/api/memory/pause", "Pause memory, or resume it: resuming indexes "
              "what was written while paused", "memory", PauseResult, request=PauseRequest,
              errors={422: "paused is missing or not true/false"}),
    Operation("GET", "/api/search", "Explicit recall: ranked hits with snippets and links",
              "search", SearchResponse, query=SearchParams,
              errors={400: "q missing or too long, a bad source or limit, an unknown vault"}),
    Operation("GET", "/api/inspect/search", "Why these memories, for a search: every "
              "candidate with its lexical and vector scores and the policy's decision and "
              "reason", "inspect", InspectResponse, query=SearchParams,
              errors={400: "as GET /api/search"}),
    Operation("GET", "/api/inspect/answers/{message_id}", "Why these memories, for an "
              "answer: what it was given and cited (as stored), every candidate of its "
              "question's recall re-run, with the gate's decision and reason", "inspect",
              InspectResponse, query=InspectAnswerParams,
              errors={400: "the message has no answer or question beside it "
                           "(not_an_answer), was withdrawn, a bad mode or tz",
                      404: "no message with that id"}),
    Operation("GET", "/api/inspect/missing", "Why is this missing: where a note or message "
              "stood in a search or an answer's recall, and the rule that left it out",
              "inspect", MissingResponse, query=MissingParams,
              errors={400: "not exactly one of q and answer, or of path (with vault) and "
                           "message; an unknown vault; as GET /api/search",
                      404: "answer names no message"}),
    Operation("POST", "/api/feedback", "The owner's 👍/👎 on source [n] of one of "
              "Mallory's answers: nudges that document's ranking, and a 👎 keeps it out of "
              "automatic recall for that question", "feedback", FeedbackRecorded,
              request=FeedbackRequest,
              errors={404: "message_id names no answer",
                      409: "the source was deleted since (source_gone), or the question "
                           "was forgotten (question_gone)",
                      422: "n is not a source number of that answer"}),
    Operation("GET", "/api/conversations", "Conversations, most recently active first",
              "history", ConversationsPage, query=ConversationsParams),
    Operation("GET", "/api/conversations/{conversation_id}/messages",
              "A conversation's messages, newest first, a page at a time", "history",
              MessagesPage, query=MessagesParams),
    Operation("GET", "/api/messages/{message_id}",
              "One message and its place in its conversation (for ?msg= links)", "history",
              MessageLookup),
    Operation("DELETE", "/api/messages/{message_id}",
              "Forget a message: gone from history, search, recall and every footer",
              "forget", Forgotten),
    Operation("DELETE", "/api/conversations/{conversation_id}",
              "Forget a conversation and all its messages", "forget", Forgotten),
    Operation("PATCH", "/api/conversations/{conversation_id}", "Rename a conversation",
              "history", Renamed, request=RenameRequest),
    Operation("POST", "/api/import", "Import past conversations from a ChatGPT, Claude or "
              "Open WebUI export file (or a Mallory export); ids are content-addressed, so "
              "a repeat adds nothing", "import", ImportResult, query=ImportParams,
              request_media=JSON,
              errors={400: "an unknown format, a body that is not that format's export, or "
                           "more messages than one request takes (import_too_large)",
                      413: "over the body limit: use `mallory import`",
                      422: "no conversation of the file could be read (each named)"}),
    Operation("GET", "/api/export", "Everything the owner wrote and was answered: "
              "conversations, messages, sources, judgments, as JSON or a ZIP with one "
              "Markdown file per conversation", "import",
              {"type": "object", "description": "a mallory-export document (README, "
               "\"Import and export\"); application/zip with ?as=zip"}, query=ExportParams),
    Operation("POST", "/mcp", "Mallory's memory over MCP (Streamable HTTP, JSON-RPC 2.0): "
              "tools search_memory, recall, get_note, get_message, remember, forget, inspect",
              "mcp", {"type": "object", "description": "a JSON-RPC 2.0 response"},
              errors={400: "the body is not JSON"}),
    Operation("GET", "/status", "Corpus sizes, sync freshness per vault, retrieval mode",
              "status", StatusResponse),
    Operation("GET", OPENAPI_PATH, "This description of the API", "status",
              {"type": "object", "description": "an OpenAPI 3.1 document"}),
    Operation("POST", "/vault/heartbeat",
              "A hub run's first and last contact: registers the vault, hands out the run's "
              "sync sequence, says what the Worker holds", "hub", Contact, request=Heartbeat,
              errors={409: "the vault name is already used by another vault id "
                           "(vault_name_taken, details.holder): rename this vault; or another "
                           "hub's run holds the vault (vault_busy, details.lease_until): "
                           "try again later; nothing was stored"}),
    Operation("POST", "/vault/sync", "One batch of note upserts and deletes, applied "
              "atomically and idempotently", "hub", SyncResult, request=SyncBatch,
              errors={409: "the batch_id was used by another vault",
                      413: "over the body or item limit: split the batch"}),
    Operation("GET", "/vault/manifest", "What the Worker holds of a vault: path → content "
              "hash, a page at a time", "hub", Manifest, query=ManifestParams,
              errors={400: "vault is not a vault id, or a bad limit"}),
    Operation("POST", LOGIN_PATH, "Owner-token sign-in from /login.html: sets the "
              "mallory_owner cookie", "auth", None, request=LoginForm, request_media=FORM,
              status=303, answer="to / with the cookie set when the token is right; to "
              "/login.html#wrong-token when it is not",
              errors={404: "not in owner-token mode (login_not_enabled)"}),
)

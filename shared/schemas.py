"""Pydantic models of what the Worker accepts: the sync payload and chat requests."""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from shared.errors import BadRequest, InvalidPayload, PayloadTooLarge
from shared.feedback import Judgment
from shared.jsonlimits import loads_bounded
from shared.knowledge import KnowledgeRole
from shared.limits import (
    MAX_ALIASES,
    MAX_BATCH_ITEMS,
    MAX_CHAT_CHARS,
    MAX_CONTEXT_BYTES,
    MAX_CONVERSATION_TITLE_CHARS,
    MAX_HEADING_CHARS,
    MAX_HEADING_PATH_CHARS,
    MAX_NOTE_BODY_BYTES,
    MAX_PATH_CHARS,
    MAX_PROPERTIES_CHARS,
    MAX_RELATIONS,
    MAX_SECTIONS,
    MAX_SOURCE_NUMBER,
    MAX_SYNC_BODY_BYTES,
    MAX_TAGS,
    MAX_TITLE_CHARS,
)
from shared.note_dates import MAX_NOTE_DATES, parse_day
from shared.protocol import MAX_CLOCK_SKEW_MS, READABLE_SECTIONS_VERSIONS
from shared.relations import RelationEdge
from shared.units import MAX_SAFE_INTEGER, MS_PER_DAY

# Strict: JSON `true` is not 1 and 1.5e12 is not a whole number of milliseconds.
Millis = Annotated[int, Field(strict=True, ge=0, le=MAX_SAFE_INTEGER)]
Count = Annotated[int, Field(strict=True, ge=0, le=MAX_SAFE_INTEGER)]
# A sync sequence the Worker handed out (POST /vault/heartbeat): 1, 2, ...
Seq = Annotated[int, Field(strict=True, ge=1, le=MAX_SAFE_INTEGER)]
VaultName = Annotated[str, Field(min_length=1, max_length=200)]
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_BATCH_ID = re.compile(r"^[A-Za-z0-9_.:\-]{1,100}$")
_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
# The validation context key holding the Worker's clock (see parse_sync_batch).
NOW_MS = "now_ms"


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=False)


def check_vault_path(path: str) -> str:
    """A vault-relative POSIX path to a Markdown file: no absolute path, no `..`."""
    if not path or len(path) > MAX_PATH_CHARS:
        raise ValueError(f"path must be 1 to {MAX_PATH_CHARS} characters")
    if "\x00" in path or "\\" in path:
        raise ValueError("path must use '/' separators and hold no NUL or backslash")
    if path.startswith("/") or re.match(r"^[A-Za-z]:", path):
        raise ValueError("path must be relative to the vault, not absolute")
    parts = path.split("/")
    if any(p in {"", ".", ".."} for p in parts):
        raise ValueError("path must not contain empty, '.' or '..' segments")
    if not path.lower().endswith(".md"):
        raise ValueError("path must name a Markdown file (.md)")
    return path


VaultPath = Annotated[str, AfterValidator(check_vault_path)]


def check_day(value: str) -> str:
    parse_day(value)  # ValueError: not YYYY-MM-DD, or no such day
    return value


IsoDay = Annotated[str, Field(strict=True, max_length=10), AfterValidator(check_day)]


def check_vault_id(value: str) -> str:
    if not _UUID.match(value):
        raise ValueError("vault_id must be a lower-case UUID (the hub keeps it in "
                         "<vault>/.mallory/vault.json)")
    return value


VaultId = Annotated[str, AfterValidator(check_vault_id)]


def check_skew(value: int, info: ValidationInfo) -> int:
    """Refuse a file time beyond the Worker's clock plus MAX_CLOCK_SKEW_MS (only when the
    Worker validates: the context then holds its clock)."""
    now = (info.context or {}).get(NOW_MS)
    if now is not None and value > now + MAX_CLOCK_SKEW_MS:
        ahead = (value - now) / MS_PER_DAY
        raise ValueError(f"{info.field_name} is {ahead:,.1f} days ahead of the Worker's clock "
                         f"(at most {MAX_CLOCK_SKEW_MS // MS_PER_DAY} day allowed): check the "
                         "hub computer's clock")
    return value


_SECTION_DIGEST = re.compile(r"^[0-9a-f]{16}$")
# Heading path separator in `SectionSpan.p` and in labels ("Note › Section › Subsection").
PATH_SEPARATOR = " › "


class SectionSpan(Strict):
    """One section of a note's body (hub/sections.py): [s, e) character offsets into the
    body, its heading, its heading path and a digest of its text (a changed section gets a
    new vector; an unchanged one keeps its own)."""

    s: int = Field(ge=0, strict=True)
    e: int = Field(ge=1, strict=True)
    h: str = Field(default="", max_length=MAX_HEADING_CHARS)
    p: str = Field(default="", max_length=MAX_HEADING_PATH_CHARS)
    x: str

    @field_validator("x")
    @classmethod
    def _digest(cls, v: str) -> str:
        if not _SECTION_DIGEST.match(v):
            raise ValueError("x must be 16 lower-case hex characters (the section's digest)")
        return v


class NoteUpsert(Strict):
    path: VaultPath
    title: str = Field(min_length=1, max_length=MAX_TITLE_CHARS)
    aliases: list[Annotated[str, Field(max_length=MAX_TITLE_CHARS)]] = Field(
        default_factory=list, max_length=MAX_ALIASES)
    tags: list[Annotated[str, Field(max_length=200)]] = Field(
        default_factory=list, max_length=MAX_TAGS)
    type: str | None = Field(default=None, max_length=200)
    # Stored as shared.knowledge.normal_status makes it (an unknown status: none).
    status: str | None = Field(default=None, max_length=200)
    # Frontmatter `role:` (hub schema 3); none: the type decides (shared.knowledge).
    role: KnowledgeRole | None = None
    properties: str = Field(default="", max_length=MAX_PROPERTIES_CHARS)
    body: str
    mtime: Millis
    note_date: Millis
    content_hash: str
    # The body's sections (hub schema 2); empty: the Worker indexes the body as one
    # section. Offsets are in characters (code points), as Python and SQLite count them.
    sections: list[SectionSpan] = Field(default_factory=list, max_length=MAX_SECTIONS)
    # Typed relations (hub schema 3, shared/relations.py); an older hub sends none.
    relations: list[RelationEdge] = Field(default_factory=list, max_length=MAX_RELATIONS)
    # Dates the note's frontmatter states (`date`, `created`, `updated`, `modified`;
    # shared/note_dates.py): days of the owner's calendar ("YYYY-MM-DD", for dates with no
    # time zone) and instants (UTC ms). A date in the file name the Worker reads itself.
    days: list[IsoDay] = Field(default_factory=list, max_length=MAX_NOTE_DATES)
    times: list[Millis] = Field(default_factory=list, max_length=MAX_NOTE_DATES)
    # What the hub could not split cleanly (reported, never sent).
    _warnings: list[str] = PrivateAttr(default_factory=list)

    @property
    def warnings(self) -> list[str]:
        return self._warnings

    @model_validator(mode="after")
    def _sections_fit_the_body(self) -> NoteUpsert:
        for i, span in enumerate(self.sections):
            if not span.s < span.e <= len(self.body):
                raise ValueError(f"sections[{i}] spans [{span.s}, {span.e}) but the body "
                                 f"holds {len(self.body)} characters")
        return self

    @model_validator(mode="after")
    def _relations_name_other_pages(self) -> NoteUpsert:
        seen: dict[tuple[str, str], int] = {}
        for i, rel in enumerate(self.relations):
            try:
                check_vault_path(rel.target)
            except ValueError as exc:
                raise ValueError(f"relations[{i}].target: {exc}") from None
            if rel.target == self.path:
                raise ValueError(f"relations[{i}] names the note itself")
            if (rel.target, rel.type) in seen:
                raise ValueError(f"relations[{i}] repeats relations[{seen[rel.target, rel.type]}]"
                                 f" ({rel.type} {rel.target})")
            seen[rel.target, rel.type] = i
        return self

    @field_validator("body")
    @classmethod
    def _body_size(cls, v: str) -> str:
        size = len(v.encode("utf-8", "surrogatepass"))
        if size > MAX_NOTE_BODY_BYTES:
            raise ValueError(f"body is {size} bytes; the limit is {MAX_NOTE_BODY_BYTES}")
        return v

    @field_validator("content_hash")
    @classmethod
    def _hash(cls, v: str) -> str:
        if not _HEX64.match(v):
            raise ValueError("content_hash must be a lower-case hex SHA-256 (64 characters)")
        return v

    @field_validator("mtime")
    @classmethod
    def _mtime_skew(cls, v: int, info: ValidationInfo) -> int:
        return check_skew(v, info)


class NoteDelete(Strict):
    path: VaultPath
    deleted_at: Millis

    @field_validator("deleted_at")
    @classmethod
    def _deleted_at_skew(cls, v: int, info: ValidationInfo) -> int:
        return check_skew(v, info)


class SyncBatch(Strict):
    """One batch of one hub run: `seq` is the run's sync sequence (POST /vault/heartbeat);
    `vault` is the vault's display name, `vault_id` its identity."""

    batch_id: str
    vault_id: VaultId
    vault: VaultName
    seq: Seq
    upserts: list[NoteUpsert] = Field(default_factory=list)
    deletes: list[NoteDelete] = Field(default_factory=list)
    # The shape of the upserts' `sections` (shared/protocol.py SECTIONS_VERSION); absent:
    # version 1, as hubs from before this field send it.
    sections_version: int | None = Field(
        default=None, strict=True,
        description="the shape of the upserts' `sections`; this Worker reads "
                    f"{', '.join(map(str, READABLE_SECTIONS_VERSIONS))}. Absent or null: 1. "
                    "Any other value is refused with 422 naming it.")

    @field_validator("sections_version")
    @classmethod
    def _sections_version(cls, v: int | None) -> int | None:
        if v is not None and v not in READABLE_SECTIONS_VERSIONS:
            readable = ", ".join(map(str, READABLE_SECTIONS_VERSIONS))
            raise ValueError(f"sections_version {v} is unknown to this Worker (it reads "
                             f"{readable}): deploy the current Worker, then sync again")
        return v

    @field_validator("batch_id")
    @classmethod
    def _batch_id(cls, v: str) -> str:
        if not _BATCH_ID.match(v):
            raise ValueError("batch_id must be 1-100 characters of A-Z a-z 0-9 _ . : -")
        return v


class SyncResult(BaseModel):
    batch_id: str
    status: Literal["applied", "duplicate"]
    upserted: int = 0
    skipped_stale: int = 0
    deleted: int = 0
    withdrawn: int = 0  # answers withdrawn from recall because a note they cited changed


class Heartbeat(Strict):
    """POST /vault/heartbeat: the hub's contact at the start and end of every run.
    `rejected` (the pages the run could not send) is given at the end."""

    vault_id: VaultId
    vault: VaultName
    rejected: Count | None = None


def _error_details(exc: ValidationError) -> list[dict[str, Any]]:
    details = []
    for err in exc.errors(include_url=False):
        loc = list(err["loc"])
        item = None
        if len(loc) >= 2 and loc[0] in {"upserts", "deletes"} and isinstance(loc[1], int):
            item = f"{loc[0]}[{loc[1]}]"
            loc = loc[2:]
        details.append({"item": item, "field": ".".join(str(p) for p in loc) or None,
                        "message": err["msg"]})
    return details


M = TypeVar("M", bound=BaseModel)


def parse_json_model(body: bytes, model: type[M], what: str,
                     context: dict[str, Any] | None = None) -> M:
    """Decode a JSON object body into `model`: 400 when it is not a JSON object, 422 with
    every invalid field (and, for lists of items, the item's index) when it does not fit."""
    data = loads_bounded(body, what)  # depth, number and string limits: 400 with a code
    if not isinstance(data, dict):
        raise BadRequest(f"{what} body must be a JSON object")
    try:
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:  # "\ud800" escapes decode to unpaired surrogates
        raise BadRequest(f"{what} body holds an unpaired UTF-16 surrogate escape "
                         f"({exc.object[exc.start]!r}); send valid Unicode text") from exc
    try:
        return model.model_validate(data, context=context)
    except ValidationError as exc:
        raise InvalidPayload(f"the {what} request is invalid; nothing was applied",
                             _error_details(exc)) from exc


def parse_sync_batch(body: bytes, now_ms: int | None = None) -> SyncBatch:
    """Parse a POST /vault/sync body, or raise PayloadTooLarge / BadRequest / InvalidPayload.
    With `now_ms` (the Worker's clock), file times beyond MAX_CLOCK_SKEW_MS are refused.

    Validation is all-or-nothing: one bad item rejects the batch, and the error lists
    every bad item with its index, field and reason.
    """
    if len(body) > MAX_SYNC_BODY_BYTES:
        raise PayloadTooLarge(
            f"sync body is {len(body)} bytes; the limit is {MAX_SYNC_BODY_BYTES}. "
            "Send smaller batches.")
    context = {NOW_MS: now_ms} if now_ms is not None else None
    batch = parse_json_model(body, SyncBatch, "sync", context)
    problems = []
    items = len(batch.upserts) + len(batch.deletes)
    if items > MAX_BATCH_ITEMS:
        raise PayloadTooLarge(f"batch has {items} items; the limit is {MAX_BATCH_ITEMS}")
    seen: dict[str, str] = {}
    for kind, entries in (("upserts", batch.upserts), ("deletes", batch.deletes)):
        for index, entry in enumerate(entries):
            where = f"{kind}[{index}]"
            if entry.path in seen:
                problems.append({"item": where, "field": "path",
                                 "message": f"path also appears at {seen[entry.path]}"})
            seen.setdefault(entry.path, where)
    if problems:
        raise InvalidPayload("the sync batch names a path twice; nothing was applied", problems)
    return batch


class ChatRequest(Strict):
    conversation_id: str | None = Field(default=None, min_length=1, max_length=100)
    content: str
    context: Any = None

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
    """POST /api/feedback (DESIGN.md §7): the owner's judgment of source [n] of one of
    Mallory's answers."""

    message_id: str = Field(min_length=1, max_length=100)
    n: int = Field(strict=True, ge=1, le=MAX_SOURCE_NUMBER)
    judgment: Judgment

"""The sync payload the hub sends (POST /vault/sync, POST /vault/heartbeat): notes with
their sections, relations and dates, deletes, the batch around them, and its parser."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, Field, PrivateAttr, ValidationInfo, field_validator, model_validator

from shared.api.body import parse_json_model
from shared.api.errors import InvalidPayload, PayloadTooLarge
from shared.api.fields import (
    NOW_MS,
    Count,
    IsoDay,
    Millis,
    Seq,
    Strict,
    VaultId,
    VaultName,
    VaultPath,
    check_skew,
    check_vault_path,
)
from shared.api.limits import (
    MAX_ALIASES,
    MAX_BATCH_ITEMS,
    MAX_HEADING_CHARS,
    MAX_HEADING_PATH_CHARS,
    MAX_NOTE_BODY_BYTES,
    MAX_PROPERTIES_CHARS,
    MAX_RELATIONS,
    MAX_SECTIONS,
    MAX_SYNC_BODY_BYTES,
    MAX_TAGS,
    MAX_TITLE_CHARS,
)
from shared.api.protocol import READABLE_SECTIONS_VERSIONS
from shared.knowledge.relations import RelationEdge
from shared.knowledge.roles import KnowledgeRole
from shared.time.note_dates import MAX_NOTE_DATES

# A hub's id (hub/state.py): a random token, as an opaque lease holder.
HubId = Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]{8,64}$")]
_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_BATCH_ID = re.compile(r"^[A-Za-z0-9_.:\-]{1,100}$")
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
    # Stored as shared.knowledge.roles.normal_status makes it (an unknown status: none).
    status: str | None = Field(default=None, max_length=200)
    # Frontmatter `role:` (hub schema 3); none: the type decides (shared.knowledge.roles).
    role: KnowledgeRole | None = None
    properties: str = Field(default="", max_length=MAX_PROPERTIES_CHARS)
    body: str
    mtime: Millis
    note_date: Millis
    content_hash: str
    # The body's sections (hub schema 2); empty: the Worker indexes the body as one
    # section. Offsets are in characters (code points), as Python and SQLite count them.
    sections: list[SectionSpan] = Field(default_factory=list, max_length=MAX_SECTIONS)
    # Typed relations (hub schema 3, shared/knowledge/relations.py); an older hub sends none.
    relations: list[RelationEdge] = Field(default_factory=list, max_length=MAX_RELATIONS)
    # Dates the note's frontmatter states (`date`, `created`, `updated`, `modified`;
    # shared/time/note_dates.py): days of the owner's calendar ("YYYY-MM-DD", for dates with no
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
    # The shape of the upserts' `sections` (shared/api/protocol.py SECTIONS_VERSION); absent:
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
    `rejected` (the pages the run could not send) and `seq` (the run's sequence) are given
    at the end; `holder` (the hub's id) at the start takes the vault's lease for the run
    (migrations/0010), at the end gives it up."""

    vault_id: VaultId
    vault: VaultName
    rejected: Count | None = None
    seq: Seq | None = None
    holder: HubId | None = None


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

"""Typed relations between notes (docs/design.md, "Knowledge model"): frontmatter

    relations:
      - {target: Decisions/Old plan, type: supersedes}
      - {target: Sources/Handbook, type: applies_under, scope: "on Debian 12"}

Each type is described once, as a record: whether it can add a note to recall, whether it
marks competing claims (followed one hop so both notes are shown together), whether it
needs a scope, whether a cycle of it is a lint finding, and how labels say it.

A relation takes effect only when the body also links the target (`linked`), so the vault
stays navigable in Obsidian; unknown types are kept (sent and stored) but inert. The hub
validates and lints (hub/lint.py); the Worker stores what it is sent (migrations/0006)
and follows only effective edges of the conflict types.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from shared.api.limits import MAX_RELATION_SCOPE_CHARS, MAX_RELATION_TYPE_CHARS

Direction = Literal["out", "in"]  # the note declared the relation / is its target


@dataclass(frozen=True)
class RelationType:
    name: str
    # docs/design.md: every type but related_to may add a result to recall; related_to is a
    # browsing link only.
    expands: bool
    # Competing claims: recall follows these one hop, either direction, and shows both.
    conflict: bool
    # A scope is required (applies_under) — and refused for every other known type.
    scoped: bool
    # A cycle of this type is nonsense (A supersedes B supersedes A): a lint finding.
    acyclic: bool
    outgoing: str  # how a label says it on the declaring note: "supersedes [2]"
    incoming: str  # ... and on the target: "superseded by [1]"
    # Which side holds the current claim when the two are shown together: the declaring
    # note ("out"), the target ("in"), or neither (None: status decides).
    current: Direction | None = None


TYPES: tuple[RelationType, ...] = (
    RelationType("supports", True, False, False, False, "supports", "supported by"),
    RelationType("contradicts", True, True, False, False, "contradicts", "contradicted by"),
    RelationType("qualifies", True, True, False, False, "qualifies", "qualified by"),
    RelationType("supersedes", True, True, False, True, "supersedes", "superseded by",
                 current="out"),
    RelationType("applies_under", True, False, True, False, "applies under a scope to",
                 "has a scoped variant in"),
    RelationType("derived_from", True, False, False, True, "derived from", "source of"),
    RelationType("related_to", False, False, False, False, "related to", "related to"),
)
BY_NAME: Mapping[str, RelationType] = {t.name: t for t in TYPES}
CONFLICT_TYPES: tuple[str, ...] = tuple(t.name for t in TYPES if t.conflict)
SCOPED_TYPES: tuple[str, ...] = tuple(t.name for t in TYPES if t.scoped)

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def scope_problem(type_name: str, scope: str | None) -> str | None:
    """Why a relation's scope does not fit its type (None when it does). Unknown types
    are inert, so any scope is accepted for them."""
    known = BY_NAME.get(type_name)
    if known is None:
        return None
    if known.scoped and not (scope or "").strip():
        return f"type {type_name} needs a scope (scope: the situation it applies under)"
    if not known.scoped and scope is not None:
        return (f"scope is only for {', '.join(SCOPED_TYPES)}; type {type_name} takes "
                "none")
    return None


class RelationEdge(BaseModel):
    """One relation as the hub sends it with its note (`NoteUpsert.relations`): the target
    as a vault path (resolved by the hub when the page exists, else as written + .md),
    the type, the scope, and whether the body links the target (`linked`: only then does
    the relation take effect)."""

    model_config = ConfigDict(extra="forbid")

    target: str
    type: str = Field(min_length=1, max_length=MAX_RELATION_TYPE_CHARS)
    scope: str | None = Field(default=None, max_length=MAX_RELATION_SCOPE_CHARS)
    linked: bool = Field(strict=True)

    @field_validator("type")
    @classmethod
    def _type(cls, v: str) -> str:
        if v != v.strip().lower() or _CONTROL.search(v):
            raise ValueError("type must be lower-case, trimmed, one line (the hub "
                             "normalises frontmatter types)")
        return v

    @model_validator(mode="after")
    def _scope_fits(self) -> RelationEdge:
        problem = scope_problem(self.type, self.scope)
        if problem:
            raise ValueError(problem)
        return self

    @property
    def effective(self) -> bool:
        return self.linked and self.type in BY_NAME

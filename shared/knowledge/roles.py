"""A note's standing in the knowledge model (docs/design.md, "Knowledge model"): its role and
its status.

- **Role.** `canonical` notes hold a reviewed conclusion (a concept, a decision, a
  procedure…); `evidence` notes hold provenance (sources, clippings, daily notes) and so
  do past conversations. Frontmatter `role: canonical|evidence` wins over the type; a note
  with neither a known type nor a role has no role (most of a personal vault is untyped,
  and calling all of it evidence would label every note "evidence").
- **Status.** `draft | stable | deprecated | stale`, case-insensitive in frontmatter; any
  other value is a lint finding (hub/lint.py) and stored as none.

Pure: the hub (parsing, lint) and the Worker (storing, ranking, labels) use the same
rules.
"""

from __future__ import annotations

from typing import Literal, get_args

KnowledgeRole = Literal["canonical", "evidence"]
Status = Literal["draft", "stable", "deprecated", "stale"]

ROLES: tuple[str, ...] = get_args(KnowledgeRole)
STATUSES: tuple[str, ...] = get_args(Status)

# The design's canonical page types, with decision and procedure, and those that
# Obsidian vaults use for the same thing (MOCs, how-tos, people and projects).
CANONICAL_TYPES = frozenset({
    "concept", "entity", "analysis", "synthesis", "requirement", "skill", "case",
    "decision", "procedure", "howto", "how-to", "guide", "person", "project", "moc",
    "topic", "definition", "principle", "policy",
})
# The design's evidence types (source, observation, trajectory), with clippings,
# daily notes and past conversations.
EVIDENCE_TYPES = frozenset({
    "source", "observation", "trajectory", "clipping", "clip", "daily", "daily-note",
    "journal", "log", "meeting", "conversation", "chat", "transcript", "excerpt",
    "quote", "literature", "article", "bookmark", "highlight",
})
# Past conversations are evidence by definition.
MESSAGE_ROLE: KnowledgeRole = "evidence"
# A saved memory (README, "Saved memories"): a message the owner approved as a fact,
# ranked as a stable canonical note is. No other message carries a role but evidence.
SAVED_MEMORY_ROLE: KnowledgeRole = "canonical"
SAVED_MEMORY_STATUS: Status = "stable"


def _key(value: object) -> str:
    return str(value).strip().lower() if value is not None else ""


def normal_status(value: object) -> Status | None:
    """A frontmatter status as stored: one of STATUSES, else None."""
    key = _key(value)
    return key if key in STATUSES else None  # type: ignore[return-value]


def normal_role(value: object) -> KnowledgeRole | None:
    """A frontmatter `role:` as sent and stored: one of ROLES, else None."""
    key = _key(value)
    return key if key in ROLES else None  # type: ignore[return-value]


def role_of(note_type: object, declared: object = None) -> KnowledgeRole | None:
    """A note's role: its declared `role:` when valid, else what its type implies."""
    explicit = normal_role(declared)
    if explicit:
        return explicit
    kind = _key(note_type)
    if kind in CANONICAL_TYPES:
        return "canonical"
    if kind in EVIDENCE_TYPES:
        return "evidence"
    return None

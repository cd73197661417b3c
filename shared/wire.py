"""Public JSON shapes the Worker sends: search hits and footer sources.

Rendered from internal candidates only at the edge (worker/views.py); every field here is
documented in the README's API table, and nothing internal (spelling-guess flags,
attached replies, raw scores of one retriever) appears.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


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
    # notes: a status worth noticing ("draft", "deprecated", "stale"; shared/labels.py)
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
    # by [2]", "stable — contradicts [1]" (shared/labels.py). Absent in answers stored
    # before issue 15.
    standing: str | None = None

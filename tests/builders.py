"""Hand-built internal records for tests of the pure layers."""

from __future__ import annotations

from typing import Any

from shared.rank.candidate import Candidate, Kind, Role
from tests.conftest import NOW_MS


def candidate(id: str, relevance: float = 0.6, *, kind: Kind = "note", boost: float = 1.0,
              group: str | None = None, timestamp_ms: int = NOW_MS, label: str = "Label",
              text: str = "some text", snippet: str = "", fuzzy: bool = False,
              role: Role | None = None, reply: str | None = None, **extra: Any
              ) -> Candidate:
    """`extra`: any other Candidate field (knowledge_role, status, links, fields…)."""
    return Candidate(kind=kind, id=id, group=group or id, relevance=relevance, boost=boost,
                     timestamp_ms=timestamp_ms, label=label, href=f"/?msg={id}", text=text,
                     snippet=snippet, fuzzy=fuzzy, role=role, reply=reply, **extra)

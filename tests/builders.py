"""Hand-built internal records for tests of the pure layers."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from shared.rank.candidate import (
    Candidate,
    Identity,
    Kind,
    MessageFacts,
    NoteFacts,
    Presentation,
    Scores,
)
from tests.conftest import NOW_MS


def candidate(id: str, relevance: float = 0.6, *, kind: Kind = "note", boost: float = 1.0,
              group: str | None = None, timestamp_ms: int = NOW_MS, label: str = "Label",
              text: str = "some text", **flat: Any) -> Candidate:
    """A candidate from flat keyword arguments: each goes to the group (identity, scores,
    presentation, note facts, message facts) that declares a field of its name."""
    groups: dict[type, dict[str, Any]] = {g: {} for g in GROUPS}
    given = {"id": id, "relevance": relevance, "kind": kind, "boost": boost,
             "group": group or id, "timestamp_ms": timestamp_ms, "label": label,
             "href": f"/?msg={id}", "text": text, **flat}
    for name, value in given.items():
        owner = next((g for g in GROUPS if name in _FIELDS[g]), None)
        if owner is None:
            raise TypeError(f"no Candidate group has a field {name!r}")
        groups[owner][name] = value
    return Candidate(identity=Identity(**groups[Identity]), scores=Scores(**groups[Scores]),
                     presentation=Presentation(**groups[Presentation]),
                     note=NoteFacts(**groups[NoteFacts]),
                     message=MessageFacts(**groups[MessageFacts]))


GROUPS = (Identity, Scores, Presentation, NoteFacts, MessageFacts)
_FIELDS = {g: {f.name for f in fields(g)} for g in GROUPS}

"""Lint findings: what the hub noticed about a page's knowledge metadata (status, role,
typed relations). A finding never fails a sync: the page is sent as well as it can be
read, and `mallory-hub sync` and `mallory-hub lint` print the findings.

Levels (one home, `LEVELS`):
- error: what the owner wrote does nothing as written — a malformed `relations` block or
  entry, a scope on the wrong type, a target that does not exist or is ambiguous, a
  relation to the page itself, a cycle of a type that orders pages (supersedes,
  derived_from). `mallory-hub lint` exits 1 when it finds one.
- warning: understood, but ignored or redundant — an unknown relation type (kept, inert),
  a relation whose target the body does not link (inert until it does), the same relation
  twice, an unknown status or role (stored as none). `--strict` makes these fail too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Level = Literal["error", "warning"]

LEVELS: dict[str, Level] = {
    "relations_malformed": "error",
    "relation_malformed": "error",
    "relation_scope": "error",
    "relation_missing_target": "error",
    "relation_ambiguous_target": "error",
    "relation_self": "error",
    "relation_cycle": "error",
    "relation_unknown_type": "warning",
    "relation_missing_body_link": "warning",
    "relation_duplicate": "warning",
    "unknown_status": "warning",
    "unknown_role": "warning",
}


@dataclass(frozen=True)
class Finding:
    path: str
    code: str  # a key of LEVELS
    message: str

    @property
    def level(self) -> Level:
        return LEVELS[self.code]

    def line(self) -> str:
        return f"lint {self.level} {self.path}: {self.message} [{self.code}]"


def counts(findings: list[Finding]) -> tuple[int, int]:
    """(errors, warnings)"""
    errors = sum(1 for f in findings if f.level == "error")
    return errors, len(findings) - errors

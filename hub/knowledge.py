"""A page's knowledge metadata as read from its frontmatter and body, before anything is
known of the rest of the vault: status and role (normalised, shared/knowledge/roles.py), the
`relations` entries that are well formed (drafts), the body's links, and the page-level
findings. hub/lint.py resolves the drafts against the vault.

    relations:
      - {target: Decisions/Old plan, type: supersedes}
      - target: "[[Sources/Handbook]]"
        type: applies_under
        scope: on Debian 12
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hub.findings import Finding
from hub.links import body_links, normal_target
from shared.api.limits import MAX_RELATION_SCOPE_CHARS, MAX_RELATION_TYPE_CHARS, MAX_RELATIONS
from shared.knowledge.relations import BY_NAME, scope_problem
from shared.knowledge.roles import (
    ROLES,
    STATUSES,
    KnowledgeRole,
    Status,
    normal_role,
    normal_status,
)

KEYS = ("target", "type", "scope")


@dataclass(frozen=True)
class Draft:
    """A well-formed relation entry, its target not resolved yet."""

    index: int  # its position in the frontmatter list
    written: str  # the target as written
    target: str  # as a page name (hub.links.normal_target)
    type: str
    scope: str | None


@dataclass(frozen=True)
class PageKnowledge:
    status: Status | None
    role: KnowledgeRole | None
    drafts: tuple[Draft, ...] = ()
    links: tuple[str, ...] = ()  # the body's links, as page names
    findings: tuple[Finding, ...] = ()


def _one_string(value: Any) -> str | None:
    """A string, or a YAML flow list holding exactly one (an unquoted `[[Page]]` is YAML
    for [["Page"]])."""
    while isinstance(value, list) and len(value) == 1:
        value = value[0]
    return value if isinstance(value, str) else None


def _draft(path: str, i: int, entry: Any) -> tuple[Draft | None, list[Finding]]:
    where = f"relations[{i}]"

    def bad(message: str) -> tuple[None, list[Finding]]:
        return None, [Finding(path, "relation_malformed", f"{where} {message}")]

    if not isinstance(entry, dict):
        return bad("must be a mapping such as {target: Other page, type: supports}")
    extra = sorted(str(k) for k in entry if k not in KEYS)
    if extra:
        return bad(f"has {', '.join(map(repr, extra))}: only target, type and scope are "
                   "allowed")
    written, kind, scope = _one_string(entry.get("target")), entry.get("type"), \
        entry.get("scope")
    if not written or not normal_target(written):
        return bad("needs a target: the page it relates to")
    if not isinstance(kind, str) or not kind.strip():
        return bad(f"needs a type: one of {', '.join(BY_NAME)}")
    kind = kind.strip().lower()
    if len(kind) > MAX_RELATION_TYPE_CHARS or "\n" in kind:
        return bad(f"type must be one line of at most {MAX_RELATION_TYPE_CHARS} characters")
    if scope is not None and (not isinstance(scope, str)
                              or len(scope) > MAX_RELATION_SCOPE_CHARS):
        return bad(f"scope must be text of at most {MAX_RELATION_SCOPE_CHARS} characters")
    problem = scope_problem(kind, scope)
    if problem:
        return None, [Finding(path, "relation_scope", f"{where}: {problem}")]
    findings = []
    if kind not in BY_NAME:
        findings.append(Finding(path, "relation_unknown_type", (
            f"{where} has type {kind!r}, which recall does not know ({', '.join(BY_NAME)}):"
            " it is kept but has no effect")))
    draft = Draft(i, written, normal_target(written), kind,
                  scope.strip() if isinstance(scope, str) else None)
    return draft, findings


def relation_drafts(path: str, value: Any) -> tuple[list[Draft], list[Finding]]:
    if value is None:
        return [], []
    if not isinstance(value, list):
        return [], [Finding(path, "relations_malformed", (
            f"relations must be a list of {{target, type, scope?}} mappings, not "
            f"{type(value).__name__}; nothing in it is used"))]
    drafts, findings = [], []
    if len(value) > MAX_RELATIONS:
        findings.append(Finding(path, "relations_malformed", (
            f"relations holds {len(value)} entries; only the first {MAX_RELATIONS} are "
            "used")))
    for i, entry in enumerate(value[:MAX_RELATIONS]):
        draft, found = _draft(path, i, entry)
        findings += found
        if draft:
            drafts.append(draft)
    return drafts, findings


def _named(path: str, code: str, what: str, value: Any, known: tuple[str, ...]) -> Finding:
    return Finding(path, code, f"{what} {str(value)!r} is not one of {', '.join(known)}: "
                               "it is stored as none")


def page_knowledge(path: str, frontmatter: dict[str, Any], body: str) -> PageKnowledge:
    findings: list[Finding] = []
    raw_status, raw_role = frontmatter.get("status"), frontmatter.get("role")
    status, role = normal_status(raw_status), normal_role(raw_role)
    if raw_status is not None and status is None:
        findings.append(_named(path, "unknown_status", "status", raw_status, STATUSES))
    if raw_role is not None and role is None:
        findings.append(_named(path, "unknown_role", "role", raw_role, ROLES))
    drafts, found = relation_drafts(path, frontmatter.get("relations"))
    links = tuple(dict.fromkeys(t for t in map(normal_target, body_links(body)) if t))
    return PageKnowledge(status, role, tuple(drafts), links, tuple(findings + found))

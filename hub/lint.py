"""Relations checked against the vault: each page's drafts resolved to pages (the
payload's `relations`), with the findings of hub/findings.py, and the cycles of the types
that order pages.

- A target resolves as a link would (hub/links.py). One that does not exist is a finding
  with "did you mean …" from rapidfuzz (the hub's dependency; never the Worker's) and is
  still sent, as its written path: the Worker resolves edges when it reads them, so the
  edge takes effect once a page appears there; the hub also re-sends a page whose missing
  target appears elsewhere (hub/plan.py).
- A relation to the page itself is dropped; the same (target, type) twice is sent once.
- `linked`: the body links the same page. Without it the relation is sent but inert.
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property

from rapidfuzz import fuzz, process, utils

from hub.findings import Finding
from hub.knowledge import Draft, PageKnowledge
from hub.links import VaultIndex
from shared.api.fields import check_vault_path
from shared.knowledge.relations import BY_NAME, RelationEdge

# "Did you mean": at most this many suggestions, each at least this similar (rapidfuzz
# QRatio, 0-100, on the page's path and on its file name). WRatio's partial matching gave
# 85 to every page sharing one word ("Backups/USB disc" → "Backups/NAS"); at QRatio 75
# "Bakups/NAS" → "Backups/NAS" (95) and "Remote Logn" → "…/Remote Login" (96) are
# suggested while "Backup plan" → "Backups/NAS" (73) is not (tests/hub/test_lint.py).
SUGGESTIONS = 2
MIN_SIMILARITY = 75


@dataclass
class Suggester:
    index: VaultIndex

    @cached_property
    def _choices(self) -> tuple[list[str], list[str]]:
        """(what is compared: every page's path and its file name, the page each is)"""
        names = self.index.names()
        keys = names + [posixpath.basename(n) for n in names]
        return keys, names + names

    def __call__(self, name: str) -> list[str]:
        keys, pages = self._choices
        found = process.extract(name, keys, scorer=fuzz.QRatio,
                                processor=utils.default_process, limit=4 * SUGGESTIONS,
                                score_cutoff=MIN_SIMILARITY)
        return list(dict.fromkeys(pages[i] for _, _, i in found))[:SUGGESTIONS]


@dataclass
class Resolved:
    relations: list[RelationEdge] = field(default_factory=list)
    # Targets that resolved to no page: the page is read again when one may have appeared.
    missing: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


def _guess(name: str, from_path: str) -> str:
    """Where a missing target would be: beside the page for ./ and ../, else as written."""
    if name.startswith(("./", "../")):
        name = posixpath.normpath(posixpath.join(posixpath.dirname(from_path), name))
    return f"{name}.md"


def _where(d: Draft) -> str:
    return f"relations[{d.index}] ({d.type} {d.written!r})"


def _target(path: str, d: Draft, index: VaultIndex, suggest: Suggester
            ) -> tuple[str | None, Finding | None]:
    found = index.candidates(d.target, path)
    if len(found) == 1:
        return found[0], None
    if found:
        return None, Finding(path, "relation_ambiguous_target", (
            f"{_where(d)}: several pages have that name ({', '.join(found[:4])}); write "
            "the folder too"))
    hint = suggest(d.target)
    return None, Finding(path, "relation_missing_target", (
        f"{_where(d)}: no page {d.target!r} in the vault"
        + (f"; did you mean {' or '.join(map(repr, hint))}?" if hint else "")))


def resolve_page(path: str, page: PageKnowledge, index: VaultIndex,
                 suggest: Suggester | None = None) -> Resolved:
    suggest = suggest or Suggester(index)
    linked_pages, linked_names = set(), set()
    for link in page.links:
        hit = index.resolve(link, path)
        if hit:
            linked_pages.add(hit)
        else:
            linked_names.add(link.lower())
    done = Resolved(findings=list(page.findings))
    seen: set[tuple[str, str]] = set()
    for d in page.drafts:
        target, problem = _target(path, d, index, suggest)
        if problem:
            done.findings.append(problem)
        if target == path:
            done.findings.append(Finding(path, "relation_self",
                                         f"{_where(d)} names the page itself; dropped"))
            continue
        sent = target or _guess(d.target, path)
        try:
            check_vault_path(sent)
        except ValueError as exc:
            done.findings.append(Finding(path, "relation_malformed", f"{_where(d)}: {exc}"))
            continue
        if (sent, d.type) in seen:
            done.findings.append(Finding(path, "relation_duplicate",
                                         f"{_where(d)} repeats an earlier relation; sent once"))
            continue
        seen.add((sent, d.type))
        linked = target in linked_pages if target else d.target.lower() in linked_names
        if not linked and d.type in BY_NAME:
            done.findings.append(Finding(path, "relation_missing_body_link", (
                f"{_where(d)}: the body does not link it (add [[{d.target}]]); the relation "
                "has no effect until it does")))
        done.relations.append(RelationEdge(target=sent, type=d.type, scope=d.scope,
                                           linked=linked))
        if target is None:
            done.missing.append(d.target)
    return done


def _components(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of two or more pages (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    members = []
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        members.append(top)
                        if top == node:
                            break
                    if len(members) > 1:
                        found.append(sorted(members))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph.get(child, ())))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def cycles(edges: Mapping[str, Iterable[tuple[str, str]]],
           touching: set[str] | None = None) -> list[Finding]:
    """A finding per cycle of an acyclic type (supersedes, derived_from) among pages:
    `edges` is page → (target page, type). With `touching`, only cycles through one of
    those pages (a sync reports what its pages take part in)."""
    if touching is not None and not touching:
        return []  # a run that read no page reports no cycle
    findings = []
    for kind in (t for t in BY_NAME.values() if t.acyclic):
        graph: dict[str, set[str]] = defaultdict(set)
        for source, targets in edges.items():
            graph[source] |= {t for t, k in targets if k == kind.name and t != source}
        for members in _components(graph):
            if touching is not None and not touching & set(members):
                continue
            findings.append(Finding(members[0], "relation_cycle", (
                f"{kind.name} relations form a cycle through {', '.join(members)}: "
                "remove the one that is wrong")))
    return findings

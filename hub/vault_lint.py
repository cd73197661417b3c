"""`mallory-hub lint`: every page of a vault read and checked, nothing sent.

The same checks a sync runs on the pages it reads (hub/knowledge.py, hub/lint.py), on the
whole vault: unknown statuses and roles, malformed `relations`, scopes on the wrong type,
missing or ambiguous targets with "did you mean …", self-links, duplicates, unknown types,
relations the body does not link, and relation cycles. Pages the hub cannot read (broken
YAML, not UTF-8, too large) are reported as a sync reports them.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from hub.findings import Finding
from hub.links import VaultIndex
from hub.lint import Suggester, cycles, resolve_page
from hub.notes import Rejection
from hub.reading import Page, read_page
from hub.walk import walk_vault


@dataclass
class Report:
    pages: int = 0
    findings: list[Finding] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)


def lint_vault(vault: Path, exclude: Sequence[str] = ()) -> Report:
    files = list(walk_vault(vault, exclude))
    index = VaultIndex.of(f.path for f in files)
    now_ms = int(time.time() * 1000)
    report, pages = Report(pages=len(files)), {}
    for f in files:
        page = read_page(vault, f.path, now_ms)
        if isinstance(page, Page):
            pages[f.path] = page
        elif isinstance(page, Rejection):
            report.rejected.append(page)
    suggest, graph = Suggester(index), {}
    for path, page in pages.items():
        done = resolve_page(path, page.knowledge, index, suggest)
        report.findings += done.findings
        graph[path] = [(r.target, r.type) for r in done.relations]
    report.findings += cycles(graph)
    report.findings.sort(key=lambda f: (f.path, f.code))
    return report

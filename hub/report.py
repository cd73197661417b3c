"""What a sync run tells its user: plain lines for people and logs, or one JSON object
(`--json`) for cron jobs and monitoring.

Exit statuses (the same in both forms; `synced` in the JSON is true for 0 and 3):

    0    ok           everything that changed was sent (or, with --dry-run, planned)
    2    failed       the run stopped: bad arguments, no token, Worker unreachable or
                      refusing; whatever was sent before stays sent, the next run resumes
    3    rejected     synced, with rejected pages: everything else was sent; the pages
                      listed (broken YAML, too large, ...) wait for a fix of the file. A
                      schedule treats it as success (the systemd unit does), so a page
                      that stays broken is not a failure mailed every run
    4    mass_delete  stopped before sending anything: the run would delete more than 20%
                      (and at least 10) of the vault's notes; --allow-mass-delete if meant
    5    busy         another hub run is syncing this vault (or using this state); this
                      one sent nothing, the next run syncs
    130  interrupted  Ctrl-C; the next run finishes the job
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any, TextIO

from hub.findings import counts
from hub.sync import Summary


class Status(Enum):
    OK = ("ok", 0)
    FAILED = ("failed", 2)
    REJECTED = ("rejected", 3)
    MASS_DELETE = ("mass_delete", 4)
    BUSY = ("busy", 5)
    INTERRUPTED = ("interrupted", 130)

    @property
    def label(self) -> str:
        return self.value[0]

    @property
    def exit_code(self) -> int:
        return self.value[1]

    @property
    def stopped(self) -> bool:
        """The run did not finish (what it did before is reported)."""
        return self not in (Status.OK, Status.REJECTED)


@dataclass(frozen=True)
class Outcome:
    """One finished `mallory-hub sync`: what it did and how it ended."""

    summary: Summary
    status: Status
    vault: Path
    url: str
    dry_run: bool = False
    full: bool = False
    error: str | None = None

    @classmethod
    def finished(cls, summary: Summary, vault: Path, url: str, *, dry_run: bool = False,
                 full: bool = False) -> Outcome:
        status = Status.REJECTED if summary.rejected and not dry_run else Status.OK
        return cls(summary, status, vault, url, dry_run, full)

    def line(self) -> str:
        """The one-line summary every run ends with."""
        s = self.summary
        if self.dry_run and self.status is Status.OK:
            plan = s.plan
            sends, deletes = (len(plan.upserts), len(plan.deletes)) if plan else (0, 0)
            return (f"dry run: {sends} to send, {deletes} to delete, {s.unchanged} unchanged, "
                    f"{len(s.rejected)} rejected, {len(s.warnings)} warnings")
        if self.status.stopped:
            return (f"sync {self.status.label} after {s.elapsed_s:.1f}s: {self.error} "
                    f"({s.counts()} before it stopped)")
        return s.line()


def write_human(outcome: Outcome, out: TextIO, err: TextIO) -> None:
    """Problems on stderr, a dry run's plan on stdout, then the summary line (stdout when
    the run finished, stderr when it failed)."""
    s = outcome.summary
    for r in s.rejected:
        print(f"rejected {r.path}: {r.reason}", file=err)
    for w in s.warnings:
        print(f"warning {w.path}: {w.reason} (sent anyway)", file=err)
    for f in sorted(s.findings, key=lambda f: (f.path, f.code)):
        print(f.line(), file=err)
    if outcome.dry_run and s.plan:
        for u in s.plan.upserts:
            print(f"would upsert {u.path} ({len(u.body)} chars, hash {u.content_hash[:10]})",
                  file=out)
        for d in s.plan.deletes:
            print(f"would delete {d.path}", file=out)
    print(outcome.line(), file=err if outcome.status.stopped else out)


def _problems(summary: Summary) -> list[dict[str, str]]:
    return ([{"kind": "rejected", "path": r.path, "reason": r.reason} for r in summary.rejected]
            + [{"kind": "warning", "path": w.path, "reason": w.reason}
               for w in summary.warnings]
            + [{"kind": f"lint {f.level}", "path": f.path, "reason": f.message}
               for f in sorted(summary.findings, key=lambda f: (f.path, f.code))])


def json_report(outcome: Outcome) -> dict[str, Any]:
    """The `--json` object. Counts are top-level numbers so a monitor can read them
    directly (`jq .sent`); `problems` lists every rejected page and warning."""
    s = outcome.summary
    report: dict[str, Any] = {
        "status": outcome.status.label, "exit_code": outcome.status.exit_code,
        "synced": not outcome.status.stopped and not outcome.dry_run,
        "vault": {"name": s.vault_name, "id": s.vault_id, "path": str(outcome.vault)},
        "url": outcome.url, "dry_run": outcome.dry_run, "full": outcome.full,
        "sent": s.sent, "deleted": s.deleted, "unchanged": s.unchanged,
        "rejected": len(s.rejected), "warnings": len(s.warnings),
        "lint": dict(zip(("errors", "warnings"), counts(s.findings), strict=True)),
        "stale": s.stale,
        "changing": s.changing, "batches": s.batches, "reconciled": s.reconciled,
        "healed": s.healed, "mass_delete": s.mass_delete,
        "duration_s": round(s.elapsed_s, 3), "error": outcome.error,
        "problems": _problems(s),
    }
    if outcome.dry_run and s.plan:
        report["would_send"] = [u.path for u in s.plan.upserts]
        report["would_delete"] = [d.path for d in s.plan.deletes]
    return report


def write_json(outcome: Outcome, out: TextIO) -> None:
    print(json.dumps(json_report(outcome), ensure_ascii=False), file=out)

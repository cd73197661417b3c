"""What one sync run did, as hub/report.py tells it: counts, problems, and why the state
was rebuilt or the identity file repaired."""

from __future__ import annotations

from dataclasses import dataclass, field

from hub.findings import Finding, counts
from hub.notes import Rejection
from hub.plan import Plan


@dataclass
class Summary:
    sent: int = 0
    unchanged: int = 0
    deleted: int = 0
    stale: int = 0
    batches: int = 0
    rejected: list[Rejection] = field(default_factory=list)
    warnings: list[Rejection] = field(default_factory=list)  # sent, but not split cleanly
    findings: list[Finding] = field(default_factory=list)  # lint of the pages read
    changing: int = 0  # files that changed while being read (the next run sends them)
    reconciled: str | None = None  # why the state was rebuilt from the manifest
    healed: str | None = None  # how the vault's identity file was repaired
    mass_delete: int | None = None  # the deletes a run stopped short of (--allow-mass-delete)
    elapsed_s: float = 0.0
    plan: Plan | None = None
    vault_name: str = ""
    vault_id: str | None = None  # None: a dry run of a vault never synced

    def counts(self) -> str:
        return (f"sent {self.sent}, unchanged {self.unchanged}, deleted {self.deleted}, "
                f"rejected {len(self.rejected)}, warnings {len(self.warnings)}")

    def line(self) -> str:
        notes = []
        if self.changing:
            notes.append(f"{self.changing} changed while being read, sent next run")
        if self.stale:
            notes.append(f"{self.stale} superseded on the Worker by a later run")
        if self.reconciled:
            notes.append(f"reconciled with the Worker: {self.reconciled}")
        if self.healed:
            notes.append(f"vault id repaired: {self.healed}")
        if self.findings:
            errors, warnings = counts(self.findings)
            notes.append(f"lint: {errors} error{'s' * (errors != 1)}, {warnings} "
                         f"warning{'s' * (warnings != 1)}")
        return (f"{self.counts()}, elapsed {self.elapsed_s:.1f}s"
                + "".join(f" ({n})" for n in notes))

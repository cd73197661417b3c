"""Where and on what a benchmark ran: the commit and the machine (docs/design.md,
"Release gates": figures carry their intervals and the machine they ran on)."""

from __future__ import annotations

import os
import platform
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RECORDED_RUNS = "bench/baselines"


def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                              timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip()


def commit() -> str | None:
    """HEAD, with "+dirty" when tracked files differ from it (the figures are then of
    uncommitted code). Recorded runs are outputs, not code: re-recording one after
    another leaves the commit clean."""
    head = _git("rev-parse", "HEAD")
    if head is None:
        return None
    dirty = _git("status", "--porcelain", "--untracked-files=no", "--", ".",
                 f":!{RECORDED_RUNS}")
    return f"{head}+dirty" if dirty else head


def provenance() -> dict[str, Any]:
    return {
        "commit": commit(),
        "measured_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "machine": {"python": platform.python_version(), "platform": platform.platform(),
                    "cpus": os.cpu_count()},
    }

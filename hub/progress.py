"""Progress bars for long syncs: rich bars on stderr when stderr is a terminal, and
nothing at all otherwise, so cron logs, pipes and `--json` stay plain lines.

One bar per phase of a run (hub/sync.py: reading the vault, sending the batches). The bars
are transient: when the run ends they are erased and the one-line summary is what stays
on screen.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from hub.sync import Progress as ProgressCallback

# A phase with fewer items than this (one batch's worth, hub/plan.BATCH_ITEMS) ends before
# a bar could tell anyone anything; it would only flicker.
MIN_ITEMS = 100


class Bars:
    """A `hub.sync.Progress` drawing one rich bar per phase; started lazily, so a run whose
    phases are all short draws nothing."""

    def __init__(self, console: Console, min_items: int = MIN_ITEMS) -> None:
        self.min_items = min_items
        self._progress = Progress(TextColumn("{task.description:<8}"), BarColumn(),
                                  MofNCompleteColumn(), TimeElapsedColumn(),
                                  TimeRemainingColumn(), console=console, transient=True)
        self._tasks: dict[str, TaskID] = {}

    def __call__(self, phase: str, done: int, total: int) -> None:
        if total < self.min_items:
            return
        if phase not in self._tasks:
            if not self._tasks:
                self._progress.start()
            self._tasks[phase] = self._progress.add_task(phase, total=total)
        self._progress.update(self._tasks[phase], completed=done, total=total)

    def close(self) -> None:
        if self._tasks:
            self._progress.stop()


@contextmanager
def progress_bars(stream: TextIO | None = None) -> Iterator[ProgressCallback | None]:
    """Bars on `stream` (stderr) when it is a terminal, else None (no progress at all)."""
    stream = stream or sys.stderr
    if not stream.isatty():
        yield None
        return
    bars = Bars(Console(file=stream))
    try:
        yield bars
    finally:
        bars.close()

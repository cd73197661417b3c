"""One run at a time per hub state: an exclusive lock on `<state dir>/lock` for the run.

Two runs sharing a state (cron and a run by hand, with the default state directory) would
overwrite each other's record of what the Worker holds. The lock is the kernel's
(flock), so a killed run leaves none behind. Runs from different states are kept apart
by the Worker's per-vault lease instead (migrations/0010).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

from hub.client import HubBusy

try:
    import fcntl
except ImportError:  # Windows: no flock; the Worker's lease still keeps runs apart
    fcntl = None  # type: ignore[assignment]


@contextlib.contextmanager
def state_lock(state_dir: Path) -> Iterator[None]:
    state_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(state_dir / "lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise HubBusy(f"another mallory-hub run is using the state in {state_dir}; "
                              "this run stops without sending anything (the next run "
                              "syncs)") from None
        yield
    finally:
        os.close(fd)

"""Hub runs as the CLI makes them: one sync with progress bars and an Outcome whatever
happens, and the watch loop that repeats it on an interval or soon after a file changes."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import httpx

from hub.client import HubBusy, HubError, WorkerClient
from hub.progress import progress_bars
from hub.report import Outcome, Status, write_human, write_json
from hub.state import default_state_dir
from hub.sync import MassDelete, Progress, Summary, Syncer
from hub.walk import walk_vault
from shared.api.protocol import DEFAULT_SYNC_INTERVAL_S

# What stops a run: the Worker refusing or unreachable, a broken vault or state file.
RUN_ERRORS = (HubError, ValueError, OSError, httpx.HTTPError)


def make_client(url: str, token: str) -> WorkerClient:
    return WorkerClient(url, token, access_id=os.environ.get("CF_ACCESS_CLIENT_ID"),
                        access_secret=os.environ.get("CF_ACCESS_CLIENT_SECRET"))


def _syncer(vault: Path, client: WorkerClient, vault_name: str | None,
            state_dir: Path | None, exclude: tuple[str, ...],
            progress: Progress | None) -> Syncer:
    return Syncer(vault, client, vault_name or vault.resolve().name,
                  state_dir or default_state_dir(vault), exclude, progress)


def run_sync(vault: Path, url: str, token: str, vault_name: str | None,
             state_dir: Path | None, full: bool = False, dry_run: bool = False,
             exclude: tuple[str, ...] = (), progress: Progress | None = None,
             allow_mass_delete: bool = False) -> Summary:
    """One run, raising what stops it (HubError, OSError, ...)."""
    client = make_client(url, token)
    try:
        return _syncer(vault, client, vault_name, state_dir, exclude, progress).run(
            full=full, dry_run=dry_run, allow_mass_delete=allow_mass_delete)
    finally:
        client.close()


def sync_once(vault: Path, url: str, token: str, vault_name: str | None,
              state_dir: Path | None, full: bool = False, dry_run: bool = False,
              exclude: tuple[str, ...] = (), allow_mass_delete: bool = False) -> Outcome:
    """One run as its user sees it: bars on a terminal, and an Outcome whatever happens,
    with what a failed run managed before it stopped."""
    started = time.monotonic()
    client = make_client(url, token)
    syncer = _syncer(vault, client, vault_name, state_dir, exclude, None)
    status, error = Status.OK, None
    try:
        with progress_bars() as bars:
            syncer.progress = bars
            summary = syncer.run(full=full, dry_run=dry_run,
                                 allow_mass_delete=allow_mass_delete)
        return Outcome.finished(summary, vault, url, dry_run=dry_run, full=full)
    except HubBusy as exc:
        status, error = Status.BUSY, str(exc)
    except MassDelete as exc:
        status, error = Status.MASS_DELETE, str(exc)
    except RUN_ERRORS as exc:
        status, error = Status.FAILED, str(exc)
    except KeyboardInterrupt:
        status, error = Status.INTERRUPTED, "the next run finishes the job"
    finally:
        client.close()
    syncer.summary.elapsed_s = time.monotonic() - started
    return Outcome(syncer.summary, status, vault, url, dry_run, full, error)


def emit(outcome: Outcome, as_json: bool) -> None:
    if as_json:
        write_json(outcome, sys.stdout)
    else:
        write_human(outcome, sys.stdout, sys.stderr)
    sys.stdout.flush()


def _stat_snapshot(vault: Path, exclude: tuple[str, ...]) -> dict[str, tuple[int, int]]:
    return {f.path: (f.mtime_ns, f.size) for f in walk_vault(vault, exclude)}


def run_watch(vault: Path, url: str, token: str, vault_name: str | None,
              state_dir: Path | None, interval_s: int = DEFAULT_SYNC_INTERVAL_S,
              poll_s: float = 0, exclude: tuple[str, ...] = (), quiet: bool = False,
              max_runs: int | None = None, as_json: bool = False,
              allow_mass_delete: bool = False) -> None:
    """Sync now and every interval; with poll_s > 0 also soon after a file changes. Every
    run checks the state against the Worker (hub/sync.py), so a Worker that lost or never
    had the data is repaired by whichever run meets it. The stat snapshot the poll compares
    against is taken before the run, so an edit made during a run triggers the next."""
    runs = 0
    while max_runs is None or runs < max_runs:
        snapshot = _stat_snapshot(vault, exclude) if poll_s else {}
        outcome = sync_once(vault, url, token, vault_name, state_dir, exclude=exclude,
                            allow_mass_delete=allow_mass_delete)
        s = outcome.summary
        if outcome.status is Status.INTERRUPTED:
            emit(outcome, as_json)
            return
        if not quiet or outcome.status is not Status.OK or s.sent or s.deleted:
            emit(outcome, as_json)
        runs += 1
        if max_runs is not None and runs >= max_runs:
            return
        deadline = time.monotonic() + interval_s
        while time.monotonic() < deadline:
            time.sleep(min(poll_s or interval_s, max(deadline - time.monotonic(), 0)))
            if poll_s and _stat_snapshot(vault, exclude) != snapshot:
                break

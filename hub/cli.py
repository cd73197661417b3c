"""`mallory-hub`: push an Obsidian vault to the Worker.

  mallory-hub sync    --vault DIR --url URL [--vault-name NAME] [--state-dir DIR] [--full]
                      [--dry-run] [--token T] [--json]
  mallory-hub watch   --vault DIR --url URL [--interval 900] [--poll 0] [--json]
  mallory-hub status  --vault DIR [--url URL]
  mallory-hub lint    --vault DIR [--exclude GLOB] [--strict]
  mallory-hub service --vault DIR --url URL [--vault-name NAME] [--systemd|--launchd]
                      [--env-file FILE] [--output-dir DIR]

On a terminal, long runs show progress bars on stderr; every run ends with a one-line
summary (or, with --json, one JSON object; exit 0 ok, 1 pages rejected, 2 failed).

Every run checks that its state agrees with the Worker and repairs any drift; `--full`
reads every file again and trusts only the Worker's manifest.

Behind Cloudflare Access, also set CF_ACCESS_CLIENT_ID and CF_ACCESS_CLIENT_SECRET (the
hub's service token); they are sent on every request.

`lint` checks every page's status, role and typed relations (hub/findings.py) and sends
nothing; it exits 1 when it finds an error (with --strict, any finding). A sync prints
the same findings for the pages it reads and never fails because of them.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx

from hub.client import HubError, WorkerClient
from hub.findings import Finding, counts
from hub.identity import read_vault_id
from hub.progress import progress_bars
from hub.report import Outcome, Status, write_human, write_json
from hub.service import SCHEDULERS, ServiceSpec, default_env_file, instructions
from hub.state import default_state_dir, load_state
from hub.sync import Progress, Summary, Syncer
from hub.vault_lint import lint_vault
from hub.walk import walk_vault
from shared.protocol import DEFAULT_SYNC_INTERVAL_S

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


def _print_findings(findings: list[Finding]) -> None:
    for f in sorted(findings, key=lambda f: (f.path, f.code)):
        print(f.line(), file=sys.stderr)


def run_sync(vault: Path, url: str, token: str, vault_name: str | None,
             state_dir: Path | None, full: bool = False, dry_run: bool = False,
             exclude: tuple[str, ...] = (), progress: Progress | None = None) -> Summary:
    """One run, raising what stops it (HubError, OSError, ...)."""
    client = make_client(url, token)
    try:
        return _syncer(vault, client, vault_name, state_dir, exclude, progress).run(
            full=full, dry_run=dry_run)
    finally:
        client.close()


def sync_once(vault: Path, url: str, token: str, vault_name: str | None,
              state_dir: Path | None, full: bool = False, dry_run: bool = False,
              exclude: tuple[str, ...] = ()) -> Outcome:
    """One run as its user sees it: bars on a terminal, and an Outcome whatever happens,
    with what a failed run managed before it stopped."""
    started = time.monotonic()
    client = make_client(url, token)
    syncer = _syncer(vault, client, vault_name, state_dir, exclude, None)
    status, error = Status.OK, None
    try:
        with progress_bars() as bars:
            syncer.progress = bars
            summary = syncer.run(full=full, dry_run=dry_run)
        return Outcome.finished(summary, vault, url, dry_run=dry_run, full=full)
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
              max_runs: int | None = None, as_json: bool = False) -> None:
    """Sync now and every interval; with poll_s > 0 also soon after a file changes. Every
    run checks the state against the Worker (hub/sync.py), so a Worker that lost or never
    had the data is repaired by whichever run meets it. The stat snapshot the poll compares
    against is taken before the run, so an edit made during a run triggers the next."""
    runs = 0
    while max_runs is None or runs < max_runs:
        snapshot = _stat_snapshot(vault, exclude) if poll_s else {}
        outcome = sync_once(vault, url, token, vault_name, state_dir, exclude=exclude)
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


def cmd_status(args: argparse.Namespace) -> int:
    state_dir = Path(args.state_dir) if args.state_dir else default_state_dir(Path(args.vault))
    state = load_state(state_dir)
    last = (datetime.fromtimestamp(state.last_sync_at / 1000, UTC).isoformat()
            if state.last_sync_at else "never")
    print(f"vault {args.vault}: {len(state.notes)} notes pushed, last sync {last}")
    try:
        vault_id = read_vault_id(Path(args.vault)) or "none yet (the first sync creates it)"
    except HubError as exc:
        vault_id = str(exc)
    print(f"vault id {vault_id}")
    print(f"state in {state_dir}")
    if args.url:
        try:
            remote = httpx.get(f"{args.url.rstrip('/')}/status", timeout=10).json()
            print("worker: " + json.dumps(remote))
        except (httpx.HTTPError, ValueError) as exc:
            print(f"worker unreachable: {exc}", file=sys.stderr)
            return 1
    return 0


def cmd_service(args: argparse.Namespace) -> int:
    kind = "launchd" if args.launchd or (not args.systemd and sys.platform == "darwin") \
        else "systemd"
    # Not resolved: `uv tool install` links ~/.local/bin/mallory-hub into a venv that an
    # upgrade replaces, and the link is what stays valid.
    executable = Path(shutil.which("mallory-hub") or sys.argv[0]).absolute()
    try:
        spec = ServiceSpec(
            executable=executable, vault=Path(args.vault).expanduser().resolve(),
            url=args.url, env_file=Path(args.env_file).expanduser().absolute(),
            vault_name=args.vault_name,
            state_dir=Path(args.state_dir).expanduser().resolve() if args.state_dir else None,
            exclude=tuple(args.exclude), interval_s=args.interval)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return Status.FAILED.exit_code
    scheduler = SCHEDULERS[kind]
    units = scheduler.units(spec)
    if args.output_dir:
        out = Path(args.output_dir)
        out.mkdir(parents=True, exist_ok=True)
        for unit in units:
            (out / unit.name).write_text(unit.text, encoding="utf-8")
            print(f"wrote {out / unit.name}", file=sys.stderr)
    else:
        for unit in units:
            print(f"# {unit.directory}/{unit.name}")
            print(unit.text)
    print(instructions(scheduler, spec, units), file=sys.stderr)
    return 0


def cmd_lint(args: argparse.Namespace) -> int:
    try:
        report = lint_vault(Path(args.vault), tuple(args.exclude))
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for r in report.rejected:
        print(f"rejected {r.path}: {r.reason}", file=sys.stderr)
    _print_findings(report.findings)
    errors, warnings = counts(report.findings)
    print(f"{report.pages} page{'s' * (report.pages != 1)}: {errors} "
          f"error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}, "
          f"{len(report.rejected)} unreadable")
    failed = errors or report.rejected or (args.strict and warnings)
    return 1 if failed else 0



def _sync_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--url", required=True, help="the Worker's base URL")
    p.add_argument("--vault-name", help="vault name for obsidian:// links "
                   "(default: the folder's name)")
    p.add_argument("--exclude", action="append", default=[],
                   help="glob of vault-relative paths to skip (repeatable)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mallory-hub", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p_sync = sub.add_parser("sync", help="push what changed in the vault")
    p_watch = sub.add_parser("watch", help="sync now and on an interval")
    p_status = sub.add_parser("status", help="what the hub has pushed")
    p_service = sub.add_parser("service", help="print a systemd timer or launchd agent that "
                               "syncs every 15 minutes")
    p_lint = sub.add_parser("lint", help="check statuses, roles and typed relations; "
                            "send nothing")
    for p in (p_sync, p_watch, p_status, p_service, p_lint):
        p.add_argument("--vault", required=True, help="the Obsidian vault folder")
    for p in (p_sync, p_watch, p_status, p_service):
        p.add_argument("--state-dir", help="where the hub keeps its state")
    for p in (p_sync, p_watch, p_service):
        _sync_options(p)
    for p in (p_sync, p_watch):
        p.add_argument("--token", help="sync token (default: $SYNC_TOKEN)")
        p.add_argument("--json", action="store_true",
                       help="print one JSON object per run (for cron and monitoring)")
    p_status.add_argument("--url", help="also ask the Worker's /status")
    p_lint.add_argument("--exclude", action="append", default=[],
                        help="glob of vault-relative paths to skip (repeatable)")
    p_lint.add_argument("--strict", action="store_true",
                        help="exit 1 on warnings too, not only on errors")
    p_sync.add_argument("--full", action="store_true",
                        help="reconcile with the Worker's manifest, deletes included")
    p_sync.add_argument("--dry-run", action="store_true", help="print what would be sent")
    for p in (p_watch, p_service):
        p.add_argument("--interval", type=int, default=DEFAULT_SYNC_INTERVAL_S,
                       help=f"seconds between syncs (default {DEFAULT_SYNC_INTERVAL_S})")
    p_watch.add_argument("--poll", type=float, default=0,
                         help="also check for file changes every N seconds and sync soon "
                         "after one (0: off)")
    kind = p_service.add_mutually_exclusive_group()
    kind.add_argument("--systemd", action="store_true",
                      help="a systemd user service and timer (the default except on macOS)")
    kind.add_argument("--launchd", action="store_true",
                      help="a launchd agent plist (the default on macOS)")
    p_service.add_argument("--env-file", default=str(default_env_file()),
                           help="the file holding SYNC_TOKEN=… (default: %(default)s)")
    p_service.add_argument("--output-dir", help="write the files there instead of printing")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "status":
        return cmd_status(args)
    if args.command == "service":
        return cmd_service(args)
    if args.command == "lint":
        return cmd_lint(args)
    vault = Path(args.vault)
    state_dir = Path(args.state_dir) if args.state_dir else None
    token = args.token or os.environ.get("SYNC_TOKEN", "")
    if not token:
        emit(Outcome(Summary(vault_name=args.vault_name or vault.resolve().name),
                     Status.FAILED, vault, args.url, getattr(args, "dry_run", False),
                     getattr(args, "full", False),
                     "no sync token: pass --token or set SYNC_TOKEN"), args.json)
        return Status.FAILED.exit_code
    if args.command == "watch":
        try:
            run_watch(vault, args.url, token, args.vault_name, state_dir, args.interval,
                      args.poll, tuple(args.exclude), as_json=args.json)
        except KeyboardInterrupt:
            print("interrupted: the next run finishes the job", file=sys.stderr)
            return Status.INTERRUPTED.exit_code
        return 0
    outcome = sync_once(vault, args.url, token, args.vault_name, state_dir, full=args.full,
                        dry_run=args.dry_run, exclude=tuple(args.exclude))
    emit(outcome, args.json)
    return outcome.status.exit_code


if __name__ == "__main__":
    sys.exit(main())

"""`mallory-hub`: push an Obsidian vault to the Worker.

  mallory-hub sync   --vault DIR --url URL [--vault-name NAME] [--state-dir DIR] [--full]
                     [--dry-run] [--token T]
  mallory-hub watch  --vault DIR --url URL [--interval 900] [--poll 0]
  mallory-hub status --vault DIR [--url URL]
  mallory-hub lint   --vault DIR [--exclude GLOB] [--strict]

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
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx

from hub.client import HubError, WorkerClient
from hub.findings import Finding, counts
from hub.identity import read_vault_id
from hub.state import default_state_dir, load_state
from hub.sync import Summary, Syncer
from hub.vault_lint import lint_vault
from hub.walk import walk_vault
from shared.protocol import DEFAULT_SYNC_INTERVAL_S


def _progress(done: int, total: int) -> None:
    if not sys.stderr.isatty() or total < 200:
        return
    width = 30
    filled = int(width * done / total)
    sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
    if done >= total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def _print_findings(findings: list[Finding]) -> None:
    for f in sorted(findings, key=lambda f: (f.path, f.code)):
        print(f.line(), file=sys.stderr)


def _report(summary: Summary, dry_run: bool) -> None:
    for r in summary.rejected:
        print(f"rejected {r.path}: {r.reason}", file=sys.stderr)
    for w in summary.warnings:
        print(f"warning {w.path}: {w.reason} (sent anyway)", file=sys.stderr)
    _print_findings(summary.findings)
    if dry_run and summary.plan:
        for u in summary.plan.upserts:
            print(f"would upsert {u.path} ({len(u.body)} chars, hash {u.content_hash[:10]})")
        for d in summary.plan.deletes:
            print(f"would delete {d.path}")
        print(f"dry run: {len(summary.plan.upserts)} to send, {len(summary.plan.deletes)} to "
              f"delete, {summary.unchanged} unchanged, {len(summary.rejected)} rejected")
        return
    print(summary.line())


def run_sync(vault: Path, url: str, token: str, vault_name: str | None,
             state_dir: Path | None, full: bool = False, dry_run: bool = False,
             exclude: tuple[str, ...] = ()) -> Summary:
    client = WorkerClient(url, token, access_id=os.environ.get("CF_ACCESS_CLIENT_ID"),
                          access_secret=os.environ.get("CF_ACCESS_CLIENT_SECRET"))
    try:
        syncer = Syncer(vault, client, vault_name or vault.resolve().name,
                        state_dir or default_state_dir(vault), exclude, _progress)
        return syncer.run(full=full, dry_run=dry_run)
    finally:
        client.close()


def _stat_snapshot(vault: Path, exclude: tuple[str, ...]) -> dict[str, tuple[int, int]]:
    return {f.path: (f.mtime_ns, f.size) for f in walk_vault(vault, exclude)}


def run_watch(vault: Path, url: str, token: str, vault_name: str | None,
              state_dir: Path | None, interval_s: int = DEFAULT_SYNC_INTERVAL_S,
              poll_s: float = 0, exclude: tuple[str, ...] = (), quiet: bool = False,
              max_runs: int | None = None) -> None:
    """Sync now and every interval; with poll_s > 0 also soon after a file changes. Every
    run checks the state against the Worker (hub/sync.py), so a Worker that lost or never
    had the data is repaired by whichever run meets it. The stat snapshot the poll compares
    against is taken before the run, so an edit made during a run triggers the next."""
    runs = 0
    while max_runs is None or runs < max_runs:
        snapshot = _stat_snapshot(vault, exclude) if poll_s else {}
        try:
            summary = run_sync(vault, url, token, vault_name, state_dir, exclude=exclude)
            if not quiet or summary.sent or summary.deleted or summary.rejected:
                _report(summary, dry_run=False)
        except (HubError, ValueError, OSError, httpx.HTTPError) as exc:
            print(f"sync failed: {exc}", file=sys.stderr)
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="mallory-hub", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p_sync = sub.add_parser("sync", help="push what changed in the vault")
    p_watch = sub.add_parser("watch", help="sync now and on an interval")
    p_status = sub.add_parser("status", help="what the hub has pushed")
    p_lint = sub.add_parser("lint", help="check statuses, roles and typed relations; "
                            "send nothing")
    for p in (p_sync, p_watch, p_status, p_lint):
        p.add_argument("--vault", required=True, help="the Obsidian vault folder")
    for p in (p_sync, p_watch, p_status):
        p.add_argument("--state-dir", help="where the hub keeps its state")
    for p in (p_sync, p_watch):
        p.add_argument("--url", required=True, help="the Worker's base URL")
        p.add_argument("--token", help="sync token (default: $SYNC_TOKEN)")
        p.add_argument("--vault-name", help="vault name for obsidian:// links "
                       "(default: the folder's name)")
        p.add_argument("--exclude", action="append", default=[],
                       help="glob of vault-relative paths to skip (repeatable)")
    p_status.add_argument("--url", help="also ask the Worker's /status")
    p_lint.add_argument("--exclude", action="append", default=[],
                        help="glob of vault-relative paths to skip (repeatable)")
    p_lint.add_argument("--strict", action="store_true",
                        help="exit 1 on warnings too, not only on errors")
    p_sync.add_argument("--full", action="store_true",
                        help="reconcile with the Worker's manifest, deletes included")
    p_sync.add_argument("--dry-run", action="store_true", help="print what would be sent")
    p_watch.add_argument("--interval", type=int, default=DEFAULT_SYNC_INTERVAL_S,
                         help="seconds between syncs (default 900)")
    p_watch.add_argument("--poll", type=float, default=0,
                         help="also check for file changes every N seconds and sync soon "
                         "after one (0: off)")
    args = parser.parse_args(argv)
    if args.command == "status":
        return cmd_status(args)
    if args.command == "lint":
        return cmd_lint(args)
    token = args.token or os.environ.get("SYNC_TOKEN", "")
    if not token:
        print("error: no sync token: pass --token or set SYNC_TOKEN", file=sys.stderr)
        return 2
    vault = Path(args.vault)
    state_dir = Path(args.state_dir) if args.state_dir else None
    try:
        if args.command == "watch":
            run_watch(vault, args.url, token, args.vault_name, state_dir, args.interval,
                      args.poll, tuple(args.exclude))
            return 0
        summary = run_sync(vault, args.url, token, args.vault_name, state_dir,
                           full=args.full, dry_run=args.dry_run, exclude=tuple(args.exclude))
    except (HubError, ValueError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted: the next run finishes the job", file=sys.stderr)
        return 130
    _report(summary, args.dry_run)
    return 1 if summary.rejected and not args.dry_run else 0


if __name__ == "__main__":
    sys.exit(main())

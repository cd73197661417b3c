"""`mallory-hub`: push an Obsidian vault to the Worker.

  mallory-hub sync    --vault DIR --url URL [--vault-name NAME] [--state-dir DIR] [--full]
                      [--dry-run] [--token-file FILE] [--json] [--allow-mass-delete]
  mallory-hub watch   --vault DIR --url URL [--interval 900] [--poll 0] [--json]
  mallory-hub status  --vault DIR [--url URL]
  mallory-hub lint    --vault DIR [--exclude GLOB] [--strict]
  mallory-hub service --vault DIR --url URL [--vault-name NAME] [--systemd|--launchd]
                      [--env-file FILE] [--output-dir DIR]

On a terminal, long runs show progress bars on stderr; every run ends with a one-line
summary (or, with --json, one JSON object). Exit 0 ok, 2 failed, 3 synced with rejected
pages, 4 stopped short of deleting over 20% of the vault (--allow-mass-delete), 5 another
run is syncing the vault, 130 interrupted.

The sync token comes from --token-file FILE (the token alone, or a SYNC_TOKEN=… line as
in the service's env file), else $SYNC_TOKEN, else ~/.config/mallory-hub/env.

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
import importlib
import sys

from hub.tokens import default_env_file
from shared.api.protocol import DEFAULT_SYNC_INTERVAL_S

# Each command's handler in hub/commands.py, imported once the arguments are parsed:
# `mallory-hub --help` loads neither httpx, pydantic nor the parsers (tests/hub/test_cli.py).
COMMANDS = {"sync": "cmd_sync", "watch": "cmd_watch", "status": "cmd_status",
            "service": "cmd_service", "lint": "cmd_lint"}


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
        p.add_argument("--token-file", help="a file holding the sync token (the token "
                       "alone, or SYNC_TOKEN=…)")
        p.add_argument("--token", help="the sync token itself; it shows in the process list, "
                       "prefer --token-file or $SYNC_TOKEN")
        p.add_argument("--allow-mass-delete", action="store_true",
                       help="let a run delete more than 20%% of the vault's notes")
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
    commands = importlib.import_module("hub.commands")
    return getattr(commands, COMMANDS[args.command])(args)


if __name__ == "__main__":
    sys.exit(main())

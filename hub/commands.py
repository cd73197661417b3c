"""The `mallory-hub` subcommand handlers (hub/cli.py parses and dispatches): sync, watch,
status, service and lint, each taking the parsed arguments and returning the exit code."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from datetime import UTC, datetime
from pathlib import Path

import httpx

from hub.client import HubError
from hub.findings import Finding, counts
from hub.identity import read_vault_id
from hub.report import Outcome, Status
from hub.runs import emit, run_watch, sync_once
from hub.service import SCHEDULERS, ServiceSpec, instructions
from hub.state import default_state_dir, load_state
from hub.sync import Summary
from hub.tokens import Token, TokenFileError, default_env_file, find_token
from hub.vault_lint import lint_vault


def _print_findings(findings: list[Finding]) -> None:
    for f in sorted(findings, key=lambda f: (f.path, f.code)):
        print(f.line(), file=sys.stderr)


def _token(args: argparse.Namespace) -> str | None:
    """The sync token (hub/tokens.py), or None after reporting (as the run's outcome) that
    there is none."""
    try:
        token = find_token(args.token_file, args.token)
        problem = "" if token.value else (
            f"no sync token: set SYNC_TOKEN, or pass --token-file FILE (or put SYNC_TOKEN=… "
            f"in {default_env_file()})")
    except TokenFileError as exc:
        token, problem = Token(""), str(exc)
    if token.warning:
        print(token.warning, file=sys.stderr)
    if token.value:
        return token.value
    vault = Path(args.vault)
    emit(Outcome(Summary(vault_name=args.vault_name or vault.resolve().name),
                 Status.FAILED, vault, args.url, getattr(args, "dry_run", False),
                 getattr(args, "full", False), problem), args.json)
    return None


def _state_dir(args: argparse.Namespace) -> Path | None:
    return Path(args.state_dir) if args.state_dir else None


def cmd_sync(args: argparse.Namespace) -> int:
    token = _token(args)
    if token is None:
        return Status.FAILED.exit_code
    outcome = sync_once(Path(args.vault), args.url, token, args.vault_name, _state_dir(args),
                        full=args.full, dry_run=args.dry_run, exclude=tuple(args.exclude),
                        allow_mass_delete=args.allow_mass_delete)
    emit(outcome, args.json)
    return outcome.status.exit_code


def cmd_watch(args: argparse.Namespace) -> int:
    token = _token(args)
    if token is None:
        return Status.FAILED.exit_code
    try:
        run_watch(Path(args.vault), args.url, token, args.vault_name, _state_dir(args),
                  args.interval, args.poll, tuple(args.exclude), as_json=args.json,
                  allow_mass_delete=args.allow_mass_delete)
    except KeyboardInterrupt:
        print("interrupted: the next run finishes the job", file=sys.stderr)
        return Status.INTERRUPTED.exit_code
    return 0


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

"""`mallory`: local tooling. `migrate` applies D1 migrations to a SQLite file; `serve`
runs the Worker's app on it under uvicorn (optionally syncing a vault with the hub);
`reindex` rebuilds its FTS indexes and brings its vectors in step with the embedder;
`feedback export` writes the owner's 👍/👎 judgments as regression cases."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from local import archive_cli

# Every module that loads the Worker, SQLite or the parser of migrations is imported by
# the command that needs it: `mallory --help` imports none of them (tests/local/test_cli.py).
if TYPE_CHECKING:
    from local.sqlite_db import SqliteDatabase

UVICORN_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access")


def _open_migrated(db_path: str, migrations: Path | None
                   ) -> tuple[SqliteDatabase, list[str]]:
    import asyncio

    from local.migrate import MIGRATIONS_DIR, migrate
    from local.sqlite_db import SqliteDatabase

    db = SqliteDatabase(db_path)
    return db, asyncio.run(migrate(db, migrations or MIGRATIONS_DIR))


def _migrations(args: argparse.Namespace) -> Path | None:
    return Path(args.migrations) if args.migrations else None


def cmd_migrate(args: argparse.Namespace) -> int:
    db, applied = _open_migrated(args.db, _migrations(args))
    db.close()
    print(f"applied {len(applied)} migration(s): {', '.join(applied)}" if applied
          else "database is up to date")
    return 0


def _wait_until_up(url: str, timeout_s: float = 30) -> None:
    import httpx

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:  # any answer means it is up (/status may want owner credentials)
            if httpx.get(f"{url}/status", timeout=2).status_code < 500:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)


def _sync_in_background(url: str, vault: Path, token: str, interval_s: int,
                        state_base: Path, allow_mass_delete: bool) -> None:
    import threading

    from hub.client import HubError
    from hub.runs import run_watch
    from hub.state import folder_state_dir

    def run() -> None:
        _wait_until_up(url)
        try:
            state_dir = folder_state_dir(state_base, vault)
        except (HubError, OSError, ValueError) as exc:  # e.g. a damaged identity file
            print(f"vault sync of {vault} not started: {exc}", file=sys.stderr)
            return
        run_watch(vault=vault, url=url, token=token, vault_name=None, state_dir=state_dir,
                  interval_s=interval_s, poll_s=5, quiet=True,
                  allow_mass_delete=allow_mass_delete)

    threading.Thread(target=run, name="vault-sync", daemon=True).start()


def cmd_serve(args: argparse.Namespace) -> int:
    import logging

    import uvicorn

    from local.server import local_app, local_runtime, local_settings, settings_for_bind
    from worker.config import OwnerAuth
    from worker.security.redact import install_log_redaction

    if args.create_dir:
        Path(args.db).parent.mkdir(parents=True, exist_ok=True)
    db, applied = _open_migrated(args.db, _migrations(args))
    if applied:
        print(f"applied {len(applied)} migration(s) to {args.db}")
    settings = settings_for_bind(local_settings(), args.host)
    runtime = local_runtime(db, settings)
    app = local_app(db, settings, runtime=runtime)
    url = f"http://{args.host}:{args.port}"
    if args.sync_vault:
        if not settings.sync_tokens:
            print("error: --sync-vault needs SYNC_TOKEN (environment or .dev.vars)",
                  file=sys.stderr)
            return 2
        # The hub's states live beside the database they describe, one per vault folder
        # (by its id): switching VAULT= between folders never mixes two vaults.
        _sync_in_background(url, Path(args.sync_vault), settings.sync_tokens[0],
                            settings.sync_interval_s, Path(f"{args.db}.hub-state"),
                            args.allow_mass_delete)
    print(f"Mallory Recall on {url}  (database {args.db}, model: {settings.model_provider}, "
          f"owner auth: {settings.owner_auth.value})")
    if settings.owner_auth is OwnerAuth.OWNER_TOKEN:
        print(f"Sign in once per browser at {url}/login.html with OWNER_TOKEN; scripts send "
              "'Authorization: Bearer <OWNER_TOKEN>'.")
    config = uvicorn.Config(app, host=args.host, port=args.port, log_level=args.log_level)
    install_log_redaction(logging.getLogger(), *(logging.getLogger(n) for n in UVICORN_LOGGERS))
    uvicorn.Server(config).run()
    return 0


async def _reindex(db: SqliteDatabase, args: argparse.Namespace) -> None:
    from local.reindex import opened_semantics, rebuild_fts, reindex_vectors, vector_summary
    from local.server import local_env
    from worker.config import wall_clock_ms

    def say(line: str) -> None:
        print(line, flush=True)

    if args.fts or not args.vectors:
        await rebuild_fts(db, say)
    if args.vectors or not args.fts:
        semantics, purged = opened_semantics(db, local_env(), args.threads)
        try:
            run = await reindex_vectors(db, semantics, say, wall_clock_ms(), force=args.force,
                                        purged=purged)
        finally:
            semantics.index.close()  # type: ignore[attr-defined]
        say(vector_summary(run))
        if run.embedded or run.removed or run.strays:
            say("a `mallory serve` already running on this database keeps the vectors it "
                "loaded: restart it to use these")


def cmd_reindex(args: argparse.Namespace) -> int:
    if args.force and args.fts:
        print("error: --force re-embeds vectors; it does not go with --fts", file=sys.stderr)
        return 2
    if args.threads < 1:
        print(f"error: --threads must be at least 1, not {args.threads}", file=sys.stderr)
        return 2
    if not Path(args.db).is_file():
        print(f"error: no database at {args.db}", file=sys.stderr)
        return 2
    db, applied = _open_migrated(args.db, _migrations(args))
    if applied:
        print(f"applied {len(applied)} migration(s) to {args.db}")
    import asyncio

    try:
        asyncio.run(_reindex(db, args))
    finally:
        db.close()


def cmd_feedback_export(args: argparse.Namespace) -> int:
    from local.feedback_export import collect, write

    vault = Path(args.vault) if args.vault else None
    if vault is not None and not vault.is_dir():
        print(f"error: --vault {vault} is not a folder", file=sys.stderr)
        return 2
    import asyncio

    db, _ = _open_migrated(args.db, _migrations(args))
    try:
        written = write(Path(args.out), *asyncio.run(collect(db)), vault)
    finally:
        db.close()
    print(f"wrote {written['queries']} case(s) to {Path(args.out) / 'queries.jsonl'}, "
          f"{written['irrelevant_only']} 👎-only to irrelevant.jsonl, "
          f"{written['messages']} message(s) to corpus/conversations.jsonl"
          + (f"; skipped {written['skipped_forgotten']} judgment(s) of forgotten questions"
             if written["skipped_forgotten"] else ""))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="mallory", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p_migrate = sub.add_parser("migrate", help="apply pending D1 migrations to a SQLite file")
    p_serve = sub.add_parser("serve", help="serve the Worker app locally on SQLite")
    p_reindex = sub.add_parser(
        "reindex", help="rebuild the FTS indexes and re-embed what the vector index lacks "
        "(both unless --fts or --vectors)")
    for p in (p_migrate, p_serve, p_reindex):
        p.add_argument("--db", required=True, help="SQLite database file")
        p.add_argument("--migrations", help=argparse.SUPPRESS)
    p_serve.add_argument("--port", type=int, default=8787)
    p_serve.add_argument("--host", default="127.0.0.1")
    p_serve.add_argument("--sync-vault", help="also sync this vault folder with the hub, "
                         "now and every SYNC_INTERVAL_S seconds")
    p_serve.add_argument("--allow-mass-delete", action="store_true",
                         help="let --sync-vault delete more than 20%% of a vault's notes")
    p_serve.add_argument("--create-dir", action="store_true", help="create the --db folder")
    p_serve.add_argument("--log-level", default="info")
    only = p_reindex.add_mutually_exclusive_group()
    only.add_argument("--fts", action="store_true", help="only the FTS indexes")
    only.add_argument("--vectors", action="store_true", help="only the vectors")
    p_reindex.add_argument("--force", action="store_true",
                           help="re-embed every unit, not only those without a current vector")
    # A batch job with the machine to itself: every core, where serve leaves one free.
    p_reindex.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                           help="threads for the local embedding model (default: all cores)")
    p_feedback = sub.add_parser("feedback", help="the owner's judgments of recalled sources")
    feedback_sub = p_feedback.add_subparsers(dest="feedback_command", required=True)
    p_export = feedback_sub.add_parser(
        "export", help="write explicit judgments as regression cases (DESIGN.md §6 format)")
    p_export.add_argument("--db", required=True, help="SQLite database file")
    p_export.add_argument("--out", required=True, help="folder to write the set into")
    p_export.add_argument("--vault", help="the vault the judged notes are in (linked as "
                          "corpus/notes)")
    p_export.add_argument("--migrations", help=argparse.SUPPRESS)
    archive_cli.add_parsers(sub)
    args = parser.parse_args(argv)
    import logging

    from local.migrate import MigrationError
    from shared.api.errors import ConfigError
    from worker.db import DatabaseError
    from worker.security.redact import install_log_redaction
    from worker.semantic.ports import SemanticError

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    install_log_redaction()
    try:
        if hasattr(args, "func"):
            return int(args.func(args))
        if args.command == "feedback":
            return cmd_feedback_export(args)
        return {"migrate": cmd_migrate, "serve": cmd_serve,
                "reindex": cmd_reindex}[args.command](args)
    except (MigrationError, DatabaseError, ConfigError, SemanticError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

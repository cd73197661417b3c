"""`mallory import FORMAT PATH` and `mallory export --out DIR`, on the local database.

The same parsers and store as `POST /api/import` and `GET /api/export` (shared/archive,
worker/store/archive.py). An export's ZIP (ChatGPT's, Claude's) can be given as it came:
its `conversations.json` is read from it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import zipfile
from pathlib import Path

# Imported by `mallory --help`: the parsers and the store are imported by each command.
from shared.archive.format_names import FORMATS

INNER_FILE = "conversations.json"


def read_export(path: Path) -> object:
    """The JSON of an export file, or of the conversations.json inside its ZIP."""
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            names = [n for n in z.namelist() if Path(n).name == INNER_FILE]
            if not names:
                raise ValueError(f"{path} is a ZIP without a {INNER_FILE}")
            return json.loads(z.read(names[0]).decode("utf-8"))
    return json.loads(path.read_text(encoding="utf-8"))


def _open(db_path: str, migrations: str | None):  # type: ignore[no-untyped-def]
    from local.cli import _open_migrated

    return _open_migrated(db_path, Path(migrations) if migrations else None)[0]


def cmd_import(args: argparse.Namespace) -> int:
    import asyncio

    from hub.progress import progress_bars
    from shared.archive.formats import PARSERS
    from shared.archive.records import Parsed
    from worker.store import archive

    path = Path(args.path)
    try:
        parsed: Parsed = PARSERS[args.format](read_export(path))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        print(f"error: cannot import {path}: {exc}", file=sys.stderr)
        return 2
    for problem in parsed.problems:
        print(f"{path.name}: {problem.item}: {problem.message}", file=sys.stderr)
    summary = (f"{len(parsed.conversations)} conversation(s), {parsed.message_count} "
               f"message(s) in {path.name}")
    if args.dry_run:
        print(f"dry run: {summary}; nothing stored")
        return 0 if parsed.conversations else 1
    db = _open(args.db, args.migrations)
    added = present = 0
    try:
        asyncio.run(archive.restore_forgotten(db, parsed.forgotten, int(time.time() * 1000)))
        with progress_bars() as progress:
            for i, conv in enumerate(parsed.conversations, 1):
                done = asyncio.run(archive.import_conversations(db, [conv]))
                added, present = added + done.added, present + done.present
                if progress is not None:
                    progress("import", i, len(parsed.conversations))
            extras = asyncio.run(archive.restore_extras(db, parsed.feedback,
                                                        parsed.saved_memories, parsed.quotes))
    finally:
        db.close()
    print(f"imported {summary}: {added} added, {present} already present"
          + (f", {extras.feedback} judgment(s) and {extras.saved_memories} saved "
             "memory(ies) restored" if extras.feedback or extras.saved_memories else "")
          + (f", {len(parsed.problems)} problem(s) above" if parsed.problems else ""))
    return 0 if parsed.conversations else 1


def cmd_export(args: argparse.Namespace) -> int:
    import asyncio

    from shared.archive import export
    from worker.store import archive, memories

    out = Path(args.out)
    db = _open(args.db, args.migrations)
    try:
        conversations, messages, feedback = asyncio.run(archive.export_rows(db))
        saved = asyncio.run(memories.list_memories(db))
        quotes = asyncio.run(archive.export_quotes(db))
        forgotten = asyncio.run(archive.export_forgotten(db))
    finally:
        db.close()
    doc = export.document(conversations, messages, feedback, int(time.time() * 1000), saved,
                          quotes, forgotten)
    (out / "conversations").mkdir(parents=True, exist_ok=True)
    (out / "mallory-export.json").write_text(json.dumps(doc, ensure_ascii=False, indent=1),
                                             encoding="utf-8")
    taken: set[str] = set()
    for conv in doc["conversations"]:
        (out / "conversations" / export.file_name(conv, taken)).write_text(
            export.markdown(conv), encoding="utf-8")
    print(f"exported {len(doc['conversations'])} conversation(s), {len(messages)} "
          f"message(s) and {len(doc['feedback'])} judgment(s) to {out}")
    return 0


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p_import = sub.add_parser("import", help="import past conversations from another "
                              "assistant's export file (or its ZIP)")
    p_import.add_argument("format", choices=FORMATS)
    p_import.add_argument("path", help="conversations.json, chat-export-….json, or the ZIP")
    p_import.add_argument("--dry-run", action="store_true",
                          help="read and check the file, store nothing")
    p_import.set_defaults(func=cmd_import)
    p_export = sub.add_parser("export", help="write every conversation, message, citation "
                              "and judgment as JSON plus one Markdown file per conversation")
    p_export.add_argument("--out", required=True, help="folder to write into")
    p_export.set_defaults(func=cmd_export)
    for p in (p_import, p_export):
        p.add_argument("--db", required=True, help="SQLite database file")
        p.add_argument("--migrations", help=argparse.SUPPRESS)

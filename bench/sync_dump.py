"""What a first push stores, table by table, to prove a change to the sync stores the same.

    uv run python -m bench.sync_dump [--notes N] --out FILE
    uv run python -m bench.sync_dump --compare OLD NEW

Pushes bench.sync's generated vault (the same notes for the same N) into a fresh local
Worker over HTTP, with the file times, the vault's id and the Worker's clock fixed, then
writes every table of the database (every row, sorted) as a digest and a row count:
the notes, their sections, dates and relations, the vault and its batches, the document
frequency and name-key columns, the FTS tables as they read (content and each fts5vocab
table) and FTS5's own shadow tables (its segments: the same bytes only when the same
statements wrote them). `--compare` prints each table whose rows differ; `--rows TABLE`
also writes that table's rows, to see how. The only values masked are the two the hub
draws at random or from the wall clock and this command cannot fix: the hub's id (a
lease holder), the Worker's id and when each migration was applied.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sqlite3
import sys
import tempfile
from pathlib import Path

from bench.sync import make_vault
from hub.client import WorkerClient
from hub.identity import ensure_vault_id
from hub.sync import Syncer
from local.thread_server import running_server

VAULT_ID = "00000000-0000-4000-8000-000000005eed"
FILE_TIME_S = 1_767_268_800  # 2026-01-01 12:00 UTC: past, so no file is racy
CLOCK_MS = 1_767_355_200_000  # a day later: the Worker's clock for every request
# Random ids (hub/state.py new_hub_id, migrations/0002) and wall-clock times of the
# migrations: masked, not compared.
MASKED = {("vaults", "lease_holder"), ("worker_identity", "id"),
          ("worker_identity", "created_at"), ("d1_migrations", "applied_at")}
# FTS5's own tables: what it wrote, not what it answers.
SHADOW_SUFFIXES = ("_data", "_idx", "_docsize", "_config", "_content")


def push(root: Path, notes: int) -> Path:
    vault = root / "Personal"
    make_vault(vault, notes)
    for path in vault.rglob("*.md"):
        os.utime(path, (FILE_TIME_S, FILE_TIME_S))
    ensure_vault_id(vault, VAULT_ID)
    db_path = root / "worker.sqlite"
    with running_server(db_path, clock=lambda: CLOCK_MS) as server:
        client = WorkerClient(server.url, server.token)
        Syncer(vault, client, "Personal", root / "state").run()
        client.close()
    return db_path


def _rows(conn: sqlite3.Connection, table: str) -> list[str] | None:
    try:
        cursor = conn.execute(f'SELECT * FROM "{table}"')
    except sqlite3.OperationalError:  # a contentless FTS table reads nothing
        return None
    columns = [c[0] for c in cursor.description]
    rows = []
    for row in cursor:
        values = ["<masked>" if (table, c) in MASKED else v.hex() if isinstance(v, bytes)
                  else v for c, v in zip(columns, row, strict=True)]
        rows.append(json.dumps(values, ensure_ascii=False))
    return sorted(rows)


def dump(db_path: Path, rows_of: set[str]) -> dict[str, dict]:
    conn = sqlite3.connect(db_path)
    tables = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")]
    out: dict[str, dict] = {}
    for table in tables:
        rows = _rows(conn, table)
        if rows is None:
            continue
        entry: dict = {"rows": len(rows), "sha256": hashlib.sha256(
            "\n".join(rows).encode()).hexdigest(),
            "shadow": table.endswith(SHADOW_SUFFIXES) and any(
                table.startswith(t) for t in tables if table != t and table.startswith(t))}
        if table in rows_of:
            entry["all"] = rows
        out[table] = entry
    conn.close()
    return out


def compare(old: dict[str, dict], new: dict[str, dict]) -> int:
    differ = 0
    for table in sorted(set(old) | set(new)):
        a, b = old.get(table), new.get(table)
        if a is None or b is None:
            print(f"{table}: only in {'new' if a is None else 'old'}")
            differ += 1
        elif (a["rows"], a["sha256"]) != (b["rows"], b["sha256"]):
            kind = "FTS5 segments" if a["shadow"] else "rows"
            print(f"{table}: {kind} differ ({a['rows']:,} → {b['rows']:,} rows)")
            differ += 1
    same = len(set(old) & set(new)) - differ
    print(f"{same} tables identical, {differ} differ "
          f"({sum(e['rows'] for e in new.values()):,} rows in the new dump)")
    return 1 if differ else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--notes", type=int, default=2_000)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--rows", action="append", default=[], metavar="TABLE")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("OLD", "NEW"))
    args = parser.parse_args(argv)
    if args.compare:
        old, new = (json.loads(p.read_text()) for p in args.compare)
        return compare(old, new)
    if not args.out:
        parser.error("--out FILE or --compare OLD NEW")
    with tempfile.TemporaryDirectory(prefix="mallory-sync-dump-") as tmp:
        tables = dump(push(Path(tmp), args.notes), set(args.rows))
    args.out.write_text(json.dumps(tables, indent=1, ensure_ascii=False))
    print(f"{len(tables)} tables, {sum(e['rows'] for e in tables.values()):,} rows → {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

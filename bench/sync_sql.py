"""Where the SQL of a first push goes: the Worker's write batches, replayed.

    uv run python -m bench.sync_sql [--notes N] [--setup SQL ...]

Pushes bench.sync's generated vault into a local Worker over HTTP once, keeping every
sync batch's statements as the store planned them (worker/store/notes.py), then applies
them again, batch by batch, into a fresh migrated database file (one transaction each, as
SqliteDatabase.batch does) and prints this process's CPU seconds per statement. `--setup`
runs SQL on the fresh database first, to measure what a trigger or an index costs: e.g.
`--setup "DROP TRIGGER note_sections_ai_df"` (the document-frequency staging), or
`--setup "INSERT INTO note_sections_fts (note_sections_fts, rank) VALUES ('automerge', 0)"`
(FTS5 merging segments). The triggers' work is in the statement that fired them.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from bench.sync import make_vault
from hub.client import WorkerClient
from hub.sync import Syncer
from local.migrate import migrate
from local.sqlite_db import SqliteDatabase
from local.thread_server import running_server
from worker.db.port import BoundStatement, Result, Value
from worker.store.notes import RECORD_BATCH_SQL, TOUCH_VAULT_SQL

Batch = list[tuple[str, tuple[Value, ...]]]


def capture(root: Path, notes: int) -> list[Batch]:
    """The statements of every sync batch of a first push of `notes` notes."""
    batches: list[Batch] = []
    run_batch = SqliteDatabase._batch_now

    def keeping(db: SqliteDatabase, statements: Sequence[BoundStatement]) -> list[Result]:
        if statements and statements[0].sql == RECORD_BATCH_SQL:
            batches.append([(s.sql, tuple(s.params)) for s in statements])
        return run_batch(db, statements)

    vault = root / "Personal"
    make_vault(vault, notes)
    SqliteDatabase._batch_now = keeping  # type: ignore[method-assign, assignment]
    try:
        with running_server(root / "pushed.sqlite") as server:
            client = WorkerClient(server.url, server.token)
            Syncer(vault, client, "Personal", root / "state").run()
            client.close()
    finally:
        SqliteDatabase._batch_now = run_batch  # type: ignore[method-assign]
    return batches


def replay(path: Path, batches: list[Batch], setup: list[str]
           ) -> tuple[dict[str, float], float]:
    db = SqliteDatabase(path)
    asyncio.run(migrate(db))
    conn = db.connection
    for sql in setup:
        conn.executescript(sql)
    # The vault the batches name (vid 1, the first a fresh Worker registers), at their run.
    vid, _, name, seq, _ = next(p for sql, p in batches[0] if sql == TOUCH_VAULT_SQL)
    conn.execute("INSERT INTO vaults (vid, name, seq, created_at) VALUES (?, ?, ?, 0)",
                 (vid, name, seq))
    spent: dict[str, float] = defaultdict(float)
    started = time.process_time()
    for batch in batches:
        conn.execute("BEGIN IMMEDIATE")
        for sql, params in batch:
            before = time.process_time()
            conn.execute(sql, params).fetchall()
            spent[" ".join(sql.split())[:72]] += time.process_time() - before
        conn.execute("COMMIT")
    total = time.process_time() - started
    db.close()
    return spent, total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--setup", action="append", default=[], metavar="SQL")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="mallory-sync-sql-") as tmp:
        batches = capture(Path(tmp), args.notes)
        spent, total = replay(Path(tmp) / "replayed.sqlite", batches, args.setup)
    print(f"{len(batches)} batches of {args.notes:,} notes replayed: {total:.2f} s CPU")
    for sql, seconds in sorted(spent.items(), key=lambda item: -item[1]):
        print(f"{seconds:7.3f} s  {sql}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

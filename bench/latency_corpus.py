"""The latency benchmark's database: generated messages and notes written through the
current schema, as production writes them.

- Messages: each row, then the conversation-unit statements the chat store adds to the
  same batch (worker/store/units.py), so units, their FTS rows and corpus_stats are what
  the chat path leaves (the question-only unit replaced by the exchange, long turns split).
- Notes: each `vault_notes` row carries the section spans the hub's Markdown parser sends
  (hub/notes.py) and the name keys the sync store writes (shared/knowledge/names.py), and
  the 0005 triggers materialise `note_sections` and its FTS rows, as a sync batch does,
  which ends by folding the sections' document frequencies (worker/store/frequencies.py).
  A corpus cached before notes held name keys gets them when opened, as a re-sync writes
  them.
- Vectors (semantic modes): the embedder's model recorded in `vector_units` through the
  indexer's own statement, and vectors upserted through the index port. `random` vectors
  are unit vectors drawn per unit: a scan and the resolve cost the same whatever the
  values, and 150,000 units would take the local model hours (bench.embed).

Raw `executemany` on one connection in one transaction, for speed; the SQL is the
production SQL.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from bench.corpus import Generator
from hub.notes import section_spans
from local.migrate import migrate
from local.sqlite_db import SqliteDatabase
from shared.knowledge import names
from worker.corpora import registry
from worker.indexing.indexer import RECORD_SQL, index_pending
from worker.semantic.ports import VectorRecord, vector_id
from worker.semantic.semantics import Semantics
from worker.store import frequencies
from worker.store.units import unit_statements

NOW_MS = 1_780_000_000_000
SECTIONS_PER_NOTE = 5  # 10,000 notes → about 50,000 sections
UPSERT_BATCH = 1_000  # Vectorize's (and the local index's) per-call ceiling

INSERT_MESSAGE = ("INSERT INTO messages (id, conversation_id, seq, role, content, created_at) "
                  "VALUES (?, ?, ?, ?, ?, ?)")
INSERT_CONVERSATION = ("INSERT OR IGNORE INTO conversations (id, title, created_at, updated_at) "
                       "VALUES (?, ?, ?, ?)")
INSERT_VAULT = "INSERT INTO vaults (uuid, name, created_at) VALUES (?, ?, ?)"
INSERT_NOTE = ("INSERT INTO vault_notes (path, vid, title, name, aliases, tags, folder, body, "
               "mtime, note_date, content_hash, synced_at, sections, name_keys) "
               "VALUES (?,(SELECT vid FROM vaults WHERE name = ?),?,?,?,?,?,?,?,?,?,?,?,?)")
UNKEYED_NOTES = "SELECT rid, title, name, aliases FROM vault_notes WHERE name_keys IS NULL"
SET_NAME_KEYS = "UPDATE vault_notes SET name_keys = ? WHERE rid = ?"


def _with_sections(row: tuple) -> tuple:
    """A generated note's row with its section spans and name keys (title, file name,
    aliases are its 3rd to 5th values)."""
    spans, _ = section_spans(row[7])
    return (*row, json.dumps([s.model_dump() for s in spans], separators=(",", ":")),
            names.stored(row[2:5]))


def _key_names(db: SqliteDatabase) -> None:
    conn = db.connection
    keys = [(names.stored((r["title"], r["name"], r["aliases"])), r["rid"])
            for r in conn.execute(UNKEYED_NOTES).fetchall()]
    if keys:
        conn.execute("BEGIN")
        conn.executemany(SET_NAME_KEYS, keys)
        conn.execute("COMMIT")


def build(path: Path, messages: int, notes: int,
          phases: dict[str, float] | None = None) -> SqliteDatabase:
    """The corpus written to `path`; `phases` (when given) receives the seconds each step
    took: generating the rows, writing messages with their units and FTS rows, writing
    notes with their sections and FTS rows, and PRAGMA optimize (bench.scale)."""
    times = phases if phases is not None else {}
    db = SqliteDatabase(path)
    asyncio.run(migrate(db))
    gen = Generator()
    conn = db.connection
    conn.execute("BEGIN")
    started = time.perf_counter()
    rows = gen.messages(messages, NOW_MS)
    note_rows = [_with_sections(r) for r in
                 gen.notes(notes, NOW_MS, sections=SECTIONS_PER_NOTE)]
    times["generate_s"] = time.perf_counter() - started
    started = time.perf_counter()
    conn.executemany(INSERT_CONVERSATION, {(r[1], "bench", r[5], r[5]) for r in rows})
    for row in rows:
        conn.execute(INSERT_MESSAGE, row)
        for stmt in unit_statements(db, row[0], row[3], row[4]):
            conn.execute(stmt.sql, stmt.params)
    times["messages_s"] = time.perf_counter() - started
    started = time.perf_counter()
    conn.execute(INSERT_VAULT, ("00000000-0000-4000-8000-00000000bec4", "Bench", NOW_MS))
    conn.executemany(INSERT_NOTE, note_rows)
    for sql in frequencies.FOLD:
        conn.execute(sql)
    times["notes_s"] = time.perf_counter() - started
    started = time.perf_counter()
    conn.execute("COMMIT")
    conn.execute("PRAGMA optimize")
    times["commit_optimize_s"] = time.perf_counter() - started
    return db


def cached(folder: Path, messages: int, notes: int) -> SqliteDatabase:
    """The corpus of this size kept in `folder` (an ignored folder such as .data/bench):
    built once, then opened and brought to the current schema by the migration runner,
    as an upgraded install would be."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"latency-{messages}-{notes}.sqlite"
    if not path.exists():
        partial = path.with_suffix(".building")
        partial.unlink(missing_ok=True)
        build(partial, messages, notes).close()
        partial.rename(path)
    db = SqliteDatabase(path)
    asyncio.run(migrate(db))
    _key_names(db)
    return db


def units(db: SqliteDatabase) -> dict[str, int]:
    row = db.connection.execute(
        "SELECT (SELECT count(*) FROM note_sections) AS sections, "
        "(SELECT count(*) FROM conversation_units) AS exchanges").fetchone()
    return {"sections": int(row["sections"]), "exchanges": int(row["exchanges"])}


def _pending(db: SqliteDatabase, model: str) -> Iterable[tuple[str, str, str | None]]:
    """(corpus, unit id, vault) of every unit without a vector of `model`."""
    for corpus in registry.vector_corpora():
        for r in db.connection.execute(corpus.units_sql, (model, -1)).fetchall():
            yield corpus.name, str(r["unit_id"]), r["vault"]


async def random_vectors(db: SqliteDatabase, sem: Semantics, seed: int = 13) -> int:
    rng = np.random.default_rng(seed)
    model, dims = sem.embedder.model, sem.embedder.dimensions
    pending = list(_pending(db, model))
    kinds = {c.name: c.kind for c in registry.vector_corpora()}
    for start in range(0, len(pending), UPSERT_BATCH):
        chunk = pending[start:start + UPSERT_BATCH]
        values = rng.standard_normal((len(chunk), dims)).astype(np.float32)
        values /= np.linalg.norm(values, axis=1, keepdims=True)
        records = [VectorRecord(id=vector_id(unit), values=v.tolist(), metadata={
            "kind": kinds[corpus], **({"vault": str(vault)} if vault else {})})
            for (corpus, unit, vault), v in zip(chunk, values, strict=True)]
        await sem.index.upsert(records)
        await db.batch([db.prepare(RECORD_SQL).bind(r.id, corpus, unit, model, dims, NOW_MS)
                        for r, (corpus, unit, _) in zip(records, chunk, strict=True)])
    return len(pending)


async def model_vectors(db: SqliteDatabase, sem: Semantics) -> int:
    """Every unit embedded by the indexer (slow; use with a CachedEmbedder)."""
    done = 0
    while True:
        run = await index_pending(db, sem, NOW_MS, limit=UPSERT_BATCH)
        done += run.embedded
        if not run.more:
            return done

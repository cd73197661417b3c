"""The vault store: applying sync batches and answering the manifest.

A batch is applied in one D1 batch (one transaction): all of it or none of it.
- Idempotent: the batch id is recorded first; a replayed id fails that insert and the
  whole batch is reported as a duplicate without touching anything.
- Monotonic: an upsert only replaces a note whose mtime is older, and never resurrects a
  path deleted at or after its mtime (tombstones); a delete only removes a note that is
  not newer than the deletion.
- Deletes remove the row; the FTS triggers remove it from the index.
"""

from __future__ import annotations

from typing import Any

from shared.schemas import NoteDelete, NoteUpsert, SyncBatch, SyncResult
from worker.db import ConstraintError, Database, Statement

RECORD_BATCH_SQL = """
INSERT INTO vault_sync_batches (batch_id, applied_at, upserts, deletes) VALUES (?, ?, ?, ?)
"""
BATCH_EXISTS_SQL = "SELECT 1 AS present FROM vault_sync_batches WHERE batch_id = ?"
UPSERT_NOTE_SQL = """
INSERT INTO vault_notes (path, vault, title, name, aliases, tags, folder, body, note_type,
                         status, mtime, note_date, content_hash, synced_at, properties)
SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15
WHERE NOT EXISTS (SELECT 1 FROM vault_tombstones WHERE path = ?1 AND deleted_at >= ?11)
ON CONFLICT (path) DO UPDATE SET
    vault = excluded.vault, title = excluded.title, name = excluded.name,
    aliases = excluded.aliases, tags = excluded.tags, folder = excluded.folder,
    properties = excluded.properties, body = excluded.body,
    note_type = excluded.note_type, status = excluded.status,
    mtime = excluded.mtime, note_date = excluded.note_date,
    content_hash = excluded.content_hash, synced_at = excluded.synced_at
WHERE excluded.mtime > vault_notes.mtime
   OR (excluded.mtime = vault_notes.mtime AND excluded.content_hash <> vault_notes.content_hash)
RETURNING path
"""
CLEAR_TOMBSTONE_SQL = "DELETE FROM vault_tombstones WHERE path = ? AND deleted_at < ?"
DELETE_NOTE_SQL = "DELETE FROM vault_notes WHERE path = ? AND mtime <= ? RETURNING path"
TOMBSTONE_SQL = """
INSERT INTO vault_tombstones (path, deleted_at) VALUES (?1, ?2)
ON CONFLICT (path) DO UPDATE SET deleted_at = max(deleted_at, excluded.deleted_at)
"""
MANIFEST_SQL = """
SELECT path, content_hash, mtime FROM vault_notes WHERE path > ? ORDER BY path LIMIT ?
"""
def split_path(path: str) -> tuple[str, str]:
    """(folder, file name without .md)"""
    folder, _, file = path.rpartition("/")
    return folder, file[:-3] if file.lower().endswith(".md") else file


def _upsert(db: Database, vault: str, note: NoteUpsert, now_ms: int) -> list[Statement]:
    folder, name = split_path(note.path)
    return [
        db.prepare(UPSERT_NOTE_SQL).bind(
            note.path, vault, note.title, name, "\n".join(note.aliases), " ".join(note.tags),
            folder, note.body, note.type, note.status, note.mtime,
            note.note_date, note.content_hash, now_ms, note.properties),
        db.prepare(CLEAR_TOMBSTONE_SQL).bind(note.path, note.mtime),
    ]


def _delete(db: Database, note: NoteDelete) -> list[Statement]:
    return [db.prepare(DELETE_NOTE_SQL).bind(note.path, note.deleted_at),
            db.prepare(TOMBSTONE_SQL).bind(note.path, note.deleted_at)]


async def apply_batch(db: Database, batch: SyncBatch, now_ms: int) -> SyncResult:
    statements = [db.prepare(RECORD_BATCH_SQL).bind(
        batch.batch_id, now_ms, len(batch.upserts), len(batch.deletes))]
    for note in batch.upserts:
        statements += _upsert(db, batch.vault, note, now_ms)
    for gone in batch.deletes:
        statements += _delete(db, gone)
    try:
        results = await db.batch(statements)
    except ConstraintError:
        if await db.prepare(BATCH_EXISTS_SQL).bind(batch.batch_id).first():
            return SyncResult(batch_id=batch.batch_id, status="duplicate")
        raise
    upsert_results = results[1:1 + 2 * len(batch.upserts):2]
    delete_results = results[1 + 2 * len(batch.upserts)::2]
    upserted = sum(1 for r in upsert_results if r.results)
    return SyncResult(batch_id=batch.batch_id, status="applied", upserted=upserted,
                      skipped_stale=len(batch.upserts) - upserted,
                      deleted=sum(1 for r in delete_results if r.results))


async def manifest_page(db: Database, after: str, limit: int) -> list[dict[str, Any]]:
    return (await db.prepare(MANIFEST_SQL).bind(after, limit).all()).results

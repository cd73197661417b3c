"""The vault store: applying sync batches and answering the manifest, per vault.

A batch is applied in one D1 batch (one transaction): all of it or none of it.
- Scoped: every statement names the batch's vault (vid); nothing of another vault changes.
- Idempotent: the batch id is recorded first; a replayed id fails that insert and the
  whole batch is reported as a duplicate without touching anything.
- Ordered by sync sequence, not by file times: every write carries the `seq` of the hub
  run that sent it (handed out by POST /vault/heartbeat). An upsert applies when no later
  run has written or deleted the path (note.seq and tombstone.seq ≤ its seq); a delete
  applies when no later run has written the path. A restored file with its old mtime is
  a later run's upsert and comes back; a delayed batch of an earlier run never overrides.
- A note's dates (shared/time/note_dates.py) go in `dates`; triggers index them (0007).
- Deletes remove the row; the FTS triggers remove it from the index. Answers that cited a
  deleted note, or a note edited so that the cited excerpt is gone, are withdrawn in the
  same D1 batch (worker/store/citations.py).
- Relations travel with their note (JSON); triggers keep the adjacency table in step
  (migrations/0006): a deleted or renamed note takes its edges with it, and edges that
  point at it are resolved when read, so they lapse with it and return with it.
- Statuses are stored as shared.knowledge.roles knows them: an unknown one is none.
"""

from __future__ import annotations

import json
from typing import Any

from shared.api.errors import Conflict, InvalidPayload
from shared.api.protocol import LEASE_MS
from shared.api.sync_payload import NoteDelete, NoteUpsert, SyncBatch, SyncResult
from shared.api.vault_digest import note_digest
from shared.knowledge.roles import normal_status
from shared.time.note_dates import dates_json
from worker.db import ConstraintError, Database, Statement
from worker.store import citations, vaults

RECORD_BATCH_SQL = """
INSERT INTO vault_sync_batches (batch_id, applied_at, upserts, deletes, vid)
VALUES (?, ?, ?, ?, ?)
"""
BATCH_OWNER_SQL = "SELECT vid FROM vault_sync_batches WHERE batch_id = ?"
# A batch renames its vault only to a name no other vault holds (the heartbeat refuses
# a taken name with 409: worker/store/vaults.py).
# ... and only when no later run has started (?4, the batch's sequence: a stalled older
# run never renames the vault back). A batch of the run holding the vault's lease
# (migrations/0010) extends it by ?5 (LEASE_MS).
TOUCH_VAULT_SQL = """
UPDATE vaults SET last_sync_at = ?2,
                  last_contact_at = max(coalesce(last_contact_at, 0), ?2),
                  name = CASE WHEN ?4 < seq OR EXISTS (SELECT 1 FROM vaults AS o
                                           WHERE o.name = ?3 AND o.vid != ?1) THEN name
                              ELSE ?3 END,
                  lease_until = iif(lease_seq = ?4, max(lease_until, ?2 + ?5), lease_until)
WHERE vid = ?1
"""
UPSERT_NOTE_SQL = """
INSERT INTO vault_notes (vid, path, title, name, aliases, tags, folder, body, note_type,
                         status, mtime, note_date, content_hash, synced_at, properties, seq,
                         digest, sections, role, relations, dates)
SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19,
       ?20, ?21
WHERE NOT EXISTS (SELECT 1 FROM vault_tombstones WHERE vid = ?1 AND path = ?2 AND seq > ?16)
ON CONFLICT (vid, path) DO UPDATE SET
    title = excluded.title, name = excluded.name,
    aliases = excluded.aliases, tags = excluded.tags, folder = excluded.folder,
    properties = excluded.properties, body = excluded.body,
    note_type = excluded.note_type, status = excluded.status,
    mtime = excluded.mtime, note_date = excluded.note_date,
    content_hash = excluded.content_hash, synced_at = excluded.synced_at,
    seq = excluded.seq, digest = excluded.digest, sections = excluded.sections,
    role = excluded.role, relations = excluded.relations, dates = excluded.dates
WHERE excluded.seq >= vault_notes.seq
RETURNING path
"""
CLEAR_TOMBSTONE_SQL = "DELETE FROM vault_tombstones WHERE vid = ? AND path = ? AND seq <= ?"
DELETE_NOTE_SQL = "DELETE FROM vault_notes WHERE vid = ? AND path = ? AND seq <= ? RETURNING path"
# A tombstone only where the path is now gone (a delete refused as stale leaves none).
TOMBSTONE_SQL = """
INSERT INTO vault_tombstones (vid, path, seq, deleted_at)
SELECT ?1, ?2, ?3, ?4 WHERE NOT EXISTS (SELECT 1 FROM vault_notes WHERE vid = ?1 AND path = ?2)
ON CONFLICT (vid, path) DO UPDATE SET seq = excluded.seq, deleted_at = excluded.deleted_at
WHERE excluded.seq > vault_tombstones.seq
"""
MANIFEST_SQL = """
SELECT path, content_hash, mtime, seq FROM vault_notes
WHERE vid = ? AND path > ? ORDER BY path LIMIT ?
"""


def split_path(path: str) -> tuple[str, str]:
    """(folder, file name without .md)"""
    folder, _, file = path.rpartition("/")
    return folder, file[:-3] if file.lower().endswith(".md") else file


def sections_json(note: NoteUpsert) -> str:
    """The note's section spans as the vault_notes triggers read them (0005)."""
    return json.dumps([s.model_dump() for s in note.sections], ensure_ascii=False,
                      separators=(",", ":"))


def relations_json(note: NoteUpsert) -> str:
    """The note's relations as the vault_notes triggers read them (0006)."""
    return json.dumps([r.model_dump() for r in note.relations], ensure_ascii=False,
                      separators=(",", ":"))


def _upsert(db: Database, vid: int, seq: int, note: NoteUpsert, now_ms: int
            ) -> list[Statement]:
    folder, name = split_path(note.path)
    return [
        db.prepare(UPSERT_NOTE_SQL).bind(
            vid, note.path, note.title, name, "\n".join(note.aliases), " ".join(note.tags),
            folder, note.body, note.type, normal_status(note.status), note.mtime,
            note.note_date, note.content_hash, now_ms, note.properties, seq,
            note_digest(note.path, note.content_hash), sections_json(note), note.role,
            relations_json(note), dates_json(note.path, note.days, note.times, note.note_date)),
        db.prepare(CLEAR_TOMBSTONE_SQL).bind(vid, note.path, seq),
    ]


def _delete(db: Database, vid: int, seq: int, note: NoteDelete) -> list[Statement]:
    return [db.prepare(DELETE_NOTE_SQL).bind(vid, note.path, seq),
            db.prepare(TOMBSTONE_SQL).bind(vid, note.path, seq, note.deleted_at)]


async def _read_before(db: Database, batch: SyncBatch
                       ) -> tuple[vaults.Vault, list[dict[str, Any]]]:
    """One round trip before the write: the batch's vault (checked) and the citations of
    the notes it upserts (for withdrawal)."""
    reads = [db.prepare(vaults.GET_VAULT_SQL).bind(batch.vault_id)]
    if batch.upserts:
        reads.append(citations.cited_statement(db, batch.vault_id, batch.upserts))
    results = await db.batch(reads)
    row = results[0].results[0] if results[0].results else None
    vault = vaults.Vault.from_row(row) if row else None
    if vault is None:
        raise Conflict(f"vault {batch.vault_id} is not registered on this Worker (its "
                       "database may be new): the hub registers it with POST /vault/heartbeat "
                       "at the start of every run; run it again")
    if batch.seq > vault.seq:
        raise InvalidPayload("the sync batch carries a sequence this Worker never handed out; "
                             "nothing was applied",
                             [{"item": None, "field": "seq",
                               "message": f"seq {batch.seq} is beyond the vault's latest "
                                          f"({vault.seq}): take one from POST /vault/heartbeat"}])
    return vault, results[1].results if batch.upserts else []


async def apply_batch(db: Database, batch: SyncBatch, now_ms: int) -> SyncResult:
    vault, cited = await _read_before(db, batch)
    vid, seq = vault.vid, batch.seq
    statements = [
        db.prepare(RECORD_BATCH_SQL).bind(batch.batch_id, now_ms, len(batch.upserts),
                                          len(batch.deletes), vid),
        db.prepare(TOUCH_VAULT_SQL).bind(vid, now_ms, batch.vault, seq, LEASE_MS),
    ]
    for note in batch.upserts:
        statements += _upsert(db, vid, seq, note, now_ms)
    for gone in batch.deletes:
        statements += _delete(db, vid, seq, gone)
    withdraw = citations.withdrawal(db, vid, batch.upserts, batch.deletes, cited, now_ms)
    statements += withdraw.statements
    try:
        results = await db.batch(statements)
    except ConstraintError:
        owner = await db.prepare(BATCH_OWNER_SQL).bind(batch.batch_id).first()
        if owner is None:
            raise
        if owner["vid"] != vid:
            raise Conflict(f"batch_id {batch.batch_id} was already used by another vault; "
                           "nothing was applied") from None
        return SyncResult(batch_id=batch.batch_id, status="duplicate")
    first, last = 2, len(results) - len(withdraw.statements)
    upsert_results = results[first:first + 2 * len(batch.upserts):2]
    delete_results = results[first + 2 * len(batch.upserts):last:2]
    upserted = sum(1 for r in upsert_results if r.results)
    withdrawn = sum(len(r.results) for r, counts in zip(results[last:], withdraw.withdrawing,
                                                        strict=True) if counts)
    return SyncResult(batch_id=batch.batch_id, status="applied", upserted=upserted,
                      skipped_stale=len(batch.upserts) - upserted,
                      deleted=sum(1 for r in delete_results if r.results), withdrawn=withdrawn)


async def manifest_page(db: Database, vid: int, after: str, limit: int) -> list[dict[str, Any]]:
    return (await db.prepare(MANIFEST_SQL).bind(vid, after, limit).all()).results

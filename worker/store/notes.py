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
- Deletes remove the row; the FTS triggers remove it from the index. The batch ends by
  folding its sections' terms into the document frequencies (worker/store/frequencies.py).
  Answers that cited a deleted note, or a note edited so that the cited excerpt is gone,
  are withdrawn in the same D1 batch (worker/store/citations.py).
- Relations travel with their note (JSON); triggers keep the adjacency table in step
  (migrations/0006): a deleted or renamed note takes its edges with it, and edges that
  point at it are resolved when read, so they lapse with it and return with it.
- Statuses are stored as shared.knowledge.roles knows them: an unknown one is none.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from shared.api.errors import Conflict, InvalidPayload
from shared.api.protocol import LEASE_MS
from shared.api.sync_payload import NoteDelete, NoteUpsert, SyncBatch, SyncResult
from shared.api.vault_digest import note_digest
from shared.knowledge import names
from shared.knowledge.roles import normal_status
from shared.time.note_dates import dates_json
from worker.db import ConstraintError, Database
from worker.db.planned import Planned, StatementKey, run
from worker.db.port import MAX_VALUE_BYTES
from worker.store import citations, frequencies, vaults

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


class NoteRow(NamedTuple):
    """A vault_notes row as an upsert writes it: its fields are the columns, in the order
    the upsert binds them, so the SQL and its values cannot drift apart."""

    vid: int
    path: str
    title: str
    name: str  # the file name without .md
    aliases: str  # one per line
    tags: str  # space-separated
    folder: str
    body: str
    note_type: str | None
    status: str | None  # as shared.knowledge.roles knows it
    mtime: int
    note_date: int
    content_hash: str
    synced_at: int
    properties: str | None
    seq: int
    digest: int  # shared/api/vault_digest.py
    sections: str  # JSON, read by the triggers (0005)
    role: str | None
    relations: str  # JSON, read by the triggers (0006)
    dates: str  # JSON, read by the triggers (0007)
    name_keys: str  # shared/knowledge/names.py's stored form (0015)


NOTE_COLUMNS = NoteRow._fields
_KEY_COLUMNS = ("vid", "path")


def _at(column: str) -> str:
    return f"?{NOTE_COLUMNS.index(column) + 1}"


def _upsert_sql(value: Callable[[str], str], source: str = "") -> str:
    """The note upsert, taking each column's value from `value(column)` (FROM `source`)."""
    return f"""
INSERT INTO vault_notes ({", ".join(NOTE_COLUMNS)})
SELECT {", ".join(value(c) for c in NOTE_COLUMNS)}{source}
WHERE NOT EXISTS (SELECT 1 FROM vault_tombstones AS t
                  WHERE t.vid = {value("vid")} AND t.path = {value("path")}
                    AND t.seq > {value("seq")})
ON CONFLICT (vid, path) DO UPDATE SET
    {", ".join(f"{c} = excluded.{c}" for c in NOTE_COLUMNS if c not in _KEY_COLUMNS)}
WHERE excluded.seq >= vault_notes.seq
RETURNING path
"""


# Many notes in one statement, their rows a JSON array of NoteRow arrays (one bound
# value): SQLite opens a savepoint for each statement of a batch after the first, and
# FTS5 writes its pending terms out as a new segment at each, so one statement per note
# cost a segment and its merging per note (2.1 of 5.6 s CPU of applying 10,000 notes,
# bench.sync --profile). A row that does not fit in one bound value, or that holds a NUL
# (SQLite's JSON functions end a string there), is upserted alone, its values bound.
UPSERT_NOTES_SQL = _upsert_sql(lambda c: f"json_extract(j.value, '$[{NOTE_COLUMNS.index(c)}]')",
                               "\nFROM json_each(?1) AS j")
UPSERT_NOTE_SQL = _upsert_sql(_at)
# The batch's upserted paths in one statement (a JSON list: no per-note statement, and
# within D1's bound parameters however large the batch).
CLEAR_TOMBSTONES_SQL = """
DELETE FROM vault_tombstones
WHERE vid = ?1 AND seq <= ?2 AND path IN (SELECT value FROM json_each(?3))
"""
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


def note_row(vid: int, seq: int, note: NoteUpsert, now_ms: int) -> NoteRow:
    folder, name = split_path(note.path)
    aliases = "\n".join(note.aliases)
    return NoteRow(
        vid=vid, path=note.path, title=note.title, name=name,
        aliases=aliases, tags=" ".join(note.tags), folder=folder,
        body=note.body, note_type=note.type, status=normal_status(note.status),
        mtime=note.mtime, note_date=note.note_date, content_hash=note.content_hash,
        synced_at=now_ms, properties=note.properties, seq=seq,
        digest=note_digest(note.path, note.content_hash), sections=sections_json(note),
        role=note.role, relations=relations_json(note),
        dates=dates_json(note.path, note.days, note.times, note.note_date),
        name_keys=names.stored((note.title, name, aliases)))


# Keys of a sync batch's statements: (step, path or "", the index of its first item).
RECORD_KEY: StatementKey = ("record", "", 0)
TOUCH_KEY: StatementKey = ("touch", "", 0)
CLEAR_KEY: StatementKey = ("clear_tombstones", "", 0)


def _upserts(vid: int, seq: int, upserts: list[NoteUpsert], now_ms: int
             ) -> Iterator[Planned]:
    """The batch's upserts in order, in as few statements as D1's bound-value size allows
    (keyed by the index of each statement's first note)."""
    chunk: list[str] = []
    first = size = 0
    for index, note in enumerate(upserts):
        row = note_row(vid, seq, note, now_ms)
        text = json.dumps(row, ensure_ascii=False, separators=(",", ":"))
        row_bytes = len(text.encode("utf-8")) + 1  # and its comma
        alone = row_bytes + 1 > MAX_VALUE_BYTES or "\\u0000" in text
        if chunk and (alone or size + row_bytes + 1 > MAX_VALUE_BYTES):
            yield Planned(("upsert", "", first), UPSERT_NOTES_SQL, (f"[{','.join(chunk)}]",))
            chunk, size = [], 0
        if alone:
            yield Planned(("upsert", "", index), UPSERT_NOTE_SQL, tuple(row))
            continue
        if not chunk:
            first = index
        chunk.append(text)
        size += row_bytes
    if chunk:
        yield Planned(("upsert", "", first), UPSERT_NOTES_SQL, (f"[{','.join(chunk)}]",))


def _clear_tombstones(vid: int, seq: int, upserts: list[NoteUpsert]) -> Planned:
    """After the upserts (each refused by a later tombstone), the earlier ones go."""
    return Planned(CLEAR_KEY, CLEAR_TOMBSTONES_SQL,
                   (vid, seq, json.dumps([n.path for n in upserts], ensure_ascii=False)))


def _delete(index: int, vid: int, seq: int, note: NoteDelete) -> list[Planned]:
    return [Planned(("delete", note.path, index), DELETE_NOTE_SQL, (vid, note.path, seq)),
            Planned(("tombstone", note.path, index), TOMBSTONE_SQL,
                    (vid, note.path, seq, note.deleted_at))]


def _withdrawal_key(index: int, withdrawing: bool) -> StatementKey:
    return ("withdraw" if withdrawing else "follow", "", index)


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
    planned = [
        Planned(RECORD_KEY, RECORD_BATCH_SQL, (batch.batch_id, now_ms, len(batch.upserts),
                                               len(batch.deletes), vid)),
        Planned(TOUCH_KEY, TOUCH_VAULT_SQL, (vid, now_ms, batch.vault, seq, LEASE_MS)),
    ]
    planned += _upserts(vid, seq, batch.upserts, now_ms)
    if batch.upserts:
        planned.append(_clear_tombstones(vid, seq, batch.upserts))
    for index, gone in enumerate(batch.deletes):
        planned += _delete(index, vid, seq, gone)
    withdraw = citations.withdrawal(db, vid, batch.upserts, batch.deletes, cited, now_ms)
    steps = zip(withdraw.statements, withdraw.withdrawing, strict=True)
    planned += [Planned.of(_withdrawal_key(i, withdrawing), statement)
                for i, (statement, withdrawing) in enumerate(steps)]
    planned += frequencies.fold()
    try:
        rows = await run(db, planned)
    except ConstraintError:
        owner = await db.prepare(BATCH_OWNER_SQL).bind(batch.batch_id).first()
        if owner is None:
            raise
        if owner["vid"] != vid:
            raise Conflict(f"batch_id {batch.batch_id} was already used by another vault; "
                           "nothing was applied") from None
        return SyncResult(batch_id=batch.batch_id, status="duplicate")
    upserted = sum(len(found) for (step, _, _), found in rows.items() if step == "upsert")
    deleted = sum(1 for i, gone in enumerate(batch.deletes)
                  if rows[("delete", gone.path, i)])
    withdrawn = sum(len(found) for (step, _, _), found in rows.items() if step == "withdraw")
    return SyncResult(batch_id=batch.batch_id, status="applied", upserted=upserted,
                      skipped_stale=len(batch.upserts) - upserted, deleted=deleted,
                      withdrawn=withdrawn)


async def manifest_page(db: Database, vid: int, after: str, limit: int) -> list[dict[str, Any]]:
    return (await db.prepare(MANIFEST_SQL).bind(vid, after, limit).all()).results

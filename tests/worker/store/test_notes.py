"""The vault store on real SQLite: the note upsert names its columns once (NoteRow), and a
sync batch's counts are read by statement key, whatever the mix of items."""

from __future__ import annotations

import re
from collections.abc import Sequence

from local.sqlite_db import SqliteDatabase
from shared.api.sync_payload import NoteDelete, NoteUpsert, SyncBatch
from tests.conftest import LIFE_ID, NOW_MS, note
from worker.db.port import MAX_VALUE_BYTES
from worker.store import notes, vaults
from worker.store.notes import (
    NOTE_COLUMNS,
    UPSERT_NOTE_SQL,
    UPSERT_NOTES_SQL,
    NoteRow,
    note_row,
)


def test_the_upsert_writes_and_updates_every_column_of_a_note_row() -> None:
    [named] = re.findall(r"INSERT INTO vault_notes \(([^)]*)\)", UPSERT_NOTE_SQL)
    assert tuple(c.strip() for c in named.split(",")) == NoteRow._fields == NOTE_COLUMNS
    [values] = re.findall(r"SELECT (\?1, .*?)\n", UPSERT_NOTE_SQL)
    assert values.split(", ") == [f"?{i}" for i in range(1, len(NOTE_COLUMNS) + 1)]
    updated = re.findall(r"(\w+) = excluded\.(\w+)", UPSERT_NOTE_SQL)
    assert [a for a, b in updated if a == b] == [c for c in NOTE_COLUMNS
                                                 if c not in ("vid", "path")]
    assert "seq > ?16" in UPSERT_NOTE_SQL and NOTE_COLUMNS[15] == "seq"


async def test_a_stored_note_holds_the_values_of_its_row(db: SqliteDatabase) -> None:
    beat = await vaults.heartbeat(db, LIFE_ID, "Life", NOW_MS)
    upsert = note("Garden/Tomatoes.md", "Water them at dawn.", tags=["garden"],
                  aliases=["toms"], status="draft")
    await notes.apply_batch(db, SyncBatch(batch_id="b", vault_id=LIFE_ID, vault="Life",
                                          seq=beat.vault.seq, upserts=[upsert]), NOW_MS)
    stored = await db.prepare(f"SELECT {', '.join(NOTE_COLUMNS)} FROM vault_notes").first()
    assert stored == note_row(beat.vault.vid, beat.vault.seq, upsert, NOW_MS)._asdict()


async def test_a_mixed_batch_counts_each_item_by_its_key(db: SqliteDatabase) -> None:
    first = (await vaults.heartbeat(db, LIFE_ID, "Life", NOW_MS)).vault.seq
    later = (await vaults.heartbeat(db, LIFE_ID, "Life", NOW_MS + 1)).vault.seq

    def batch(batch_id: str, seq: int, upserts: list[NoteUpsert],
              deletes: Sequence[str] = ()) -> SyncBatch:
        return SyncBatch(batch_id=batch_id, vault_id=LIFE_ID, vault="Life", seq=seq,
                         upserts=upserts, deletes=[NoteDelete(path=p, deleted_at=NOW_MS)
                                                   for p in deletes])

    await notes.apply_batch(db, batch("early", first, [note("E.md", "early one")]), NOW_MS)
    await notes.apply_batch(db, batch("late", later, [note("A.md", "a, later"),
                                                      note("C.md", "c, later")]), NOW_MS)
    # A delayed batch of the first run: its A and its delete of C lose to the later run;
    # B is new, D was never there, E is the first run's own.
    delayed = batch("delayed", first, [note("A.md", "a, older"), note("B.md", "b")],
                    ["C.md", "D.md", "E.md"])
    result = await notes.apply_batch(db, delayed, NOW_MS)
    assert (result.status, result.upserted, result.skipped_stale, result.deleted) == (
        "applied", 1, 1, 1)
    rows = await db.prepare("SELECT path, body FROM vault_notes ORDER BY path").all()
    assert [(r["path"], r["body"]) for r in rows.results] == [
        ("A.md", "a, later"), ("B.md", "b"), ("C.md", "c, later")]


ODD_TEXTS = ["emoji 😀 and 𝄞", "line\u2028and\u2029para", 'quotes " and \\ backslashes \\u0041',
             "\x01\x1f\x7f controls\ttab\r\n", "é, ü, ß and ﬁ", "\ufeffa BOM first",
             "a NUL \x00 inside"]


async def test_a_batch_upserts_many_notes_per_statement_and_stores_each_exactly(
        db: SqliteDatabase) -> None:
    """Notes travel as one JSON array per statement, within D1's bound-value size; a note
    that alone fills a value, or holds a NUL (where SQLite's JSON ends a string), is
    upserted alone. Every stored row equals its NoteRow either way."""
    earlier = (await vaults.heartbeat(db, LIFE_ID, "Life", NOW_MS)).vault.seq
    beat = await vaults.heartbeat(db, LIFE_ID, "Life", NOW_MS)
    upserts = [note(f"Odd/{i}.md", text, title=f"{text[:20]} {i}", aliases=[text[:30]])
               for i, text in enumerate(ODD_TEXTS)]
    upserts += [note(f"Big/{i}.md", f"{i} " + "x" * 600_000) for i in range(5)]
    upserts.append(note("Big/escaped.md", '"' * 1_000_000))  # its JSON is over 2 MB
    upserts += [note(f"Small/{i}.md", f"small note {i}") for i in range(40)]
    planned = list(notes._upserts(beat.vault.vid, beat.vault.seq, upserts, NOW_MS))
    alone = {p.key[2] for p in planned if p.sql == UPSERT_NOTE_SQL}
    assert {upserts[i].path for i in alone} == {"Odd/6.md", "Big/escaped.md"}
    starts = [p.key[2] for p in planned]
    assert starts == sorted(starts) and starts[0] == 0  # in the batch's order
    for p in planned:
        if p.sql == UPSERT_NOTES_SQL:
            assert len(str(p.params[0]).encode()) <= MAX_VALUE_BYTES
    assert starts[-1] <= len(upserts) - 40  # the small notes share one statement
    result = await notes.apply_batch(db, SyncBatch(batch_id="b", vault_id=LIFE_ID,
                                                   vault="Life", seq=beat.vault.seq,
                                                   upserts=upserts), NOW_MS)
    assert (result.upserted, result.skipped_stale) == (len(upserts), 0)
    stored = {r["path"]: r for r in (await db.prepare(
        f"SELECT {', '.join(NOTE_COLUMNS)} FROM vault_notes").all()).results}
    assert stored == {u.path: note_row(beat.vault.vid, beat.vault.seq, u, NOW_MS)._asdict()
                      for u in upserts}
    again = await notes.apply_batch(db, SyncBatch(batch_id="b2", vault_id=LIFE_ID,
                                                  vault="Life", seq=earlier,
                                                  upserts=upserts[:8]), NOW_MS)
    assert (again.upserted, again.skipped_stale) == (0, 8)  # an older run's copies lose

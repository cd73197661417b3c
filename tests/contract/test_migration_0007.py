"""migrations/0007 on a database holding notes from before it, on the local SQLite adapter
and on real D1 in Miniflare: every note is dated by its note_date until its hub sends it
again, and a note sent again is dated by what it states."""

from __future__ import annotations

from pathlib import Path

import pytest

from local.migrate import migrate
from tests.conftest import LIFE_ID, NOW_MS, note, store_notes
from tests.contract.history import migrations_before
from tests.rows import one
from worker.db import Database

pytestmark = pytest.mark.miniflare

# What the store wrote before 0007 (worker/store/notes.py, without `dates`).
OLD_UPSERT = """
INSERT INTO vault_notes (vid, path, title, name, body, mtime, note_date, content_hash,
                         synced_at, seq)
VALUES (?1, ?2, 'Boiler', 'Boiler', 'the boiler pressure was low', ?3, ?3, ?4, ?3, 1)
"""


OLD_VAULT = "INSERT INTO vaults (uuid, name, created_at) VALUES (?1, 'Life', ?2) RETURNING vid"


async def before_0007(db: Database, tmp_path: Path) -> None:
    await migrate(db, migrations_before(tmp_path, "0007"))


async def dates_of(db: Database, path: str) -> list[tuple[int | None, int | None]]:
    rows = (await db.prepare(
        "SELECT d.day, d.at FROM note_dates d JOIN vault_notes n ON n.rid = d.note_rid"
        " WHERE n.path = ? ORDER BY d.day, d.at").bind(path).all()).results
    return [(r["day"], r["at"]) for r in rows]


async def test_existing_notes_are_dated_by_note_date(blank: Database, tmp_path: Path
                                                     ) -> None:
    await before_0007(blank, tmp_path)
    # The vault as 0006 holds it (today's heartbeat reads columns of later migrations).
    vid = (await one(blank.prepare(OLD_VAULT).bind(LIFE_ID, NOW_MS)))["vid"]
    old = note("Home/Boiler.md", "the boiler pressure was low")
    await blank.prepare(OLD_UPSERT).bind(vid, old.path, NOW_MS - 5, old.content_hash).run()
    assert await migrate(blank, migrations_before(tmp_path, "0008")) == [
        "0007_dates_and_feedback.sql"]
    assert await dates_of(blank, "Home/Boiler.md") == [(None, NOW_MS - 5)]
    again = old.model_copy(update={"days": ["2026-03-14"]})
    await migrate(blank)  # today's sync writes columns of later migrations
    await store_notes(blank, again, batch_id="again")
    assert await dates_of(blank, "Home/Boiler.md") == [(20_526, None)]

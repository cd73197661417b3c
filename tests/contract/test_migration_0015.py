"""migrations/0015 on the local SQLite adapter and on real D1 in Miniflare: the sync store
writes each note's name keys, recall reads them with the note, and a note synced before
the column existed (no keys) is still named by its title, file name and aliases."""

from __future__ import annotations

from pathlib import Path

import pytest

from local.migrate import migrate
from shared.knowledge import names
from tests.conftest import LIFE_ID, NOW_MS, note, store_notes
from tests.contract.history import migrations_before
from tests.rows import one
from worker.db import Database
from worker.recall.explicit import search

pytestmark = pytest.mark.miniflare

KEYS_SQL = "SELECT name_keys FROM vault_notes WHERE path = ?"


async def test_synced_notes_carry_their_name_keys(port: Database) -> None:
    await store_notes(port, note("Home/Kitchen 2026.md", "Tiles, budget and the plumber.",
                                 title="Kitchen renovation", aliases=["Kitchen reno"]),
                      note("Home/Garden.md", "The kitchen garden and its renovation."))
    row = await one(port.prepare(KEYS_SQL).bind("Home/Kitchen 2026.md"))
    assert names.read(row["name_keys"]) == names.keys_of(
        ["Kitchen renovation", "Kitchen 2026", "Kitchen reno"])
    found = await search(port, "kitchen renovation", NOW_MS)
    assert found.hits[0].identity.id == "Home/Kitchen 2026.md"
    assert found.hits[0].note.name_keys == names.keys_of(
        ["Kitchen renovation", "Kitchen 2026", "Kitchen reno"])
    assert found.hits[0].scores.standing > 1.0  # the query names it


# What the store wrote before 0015 (no name keys).
OLD_VAULT = "INSERT INTO vaults (uuid, name, created_at) VALUES (?1, 'Life', ?2) RETURNING vid"
OLD_UPSERT = """
INSERT INTO vault_notes (vid, path, title, name, aliases, body, mtime, note_date,
                         content_hash, synced_at, seq)
VALUES (?1, 'Home/Kitchen 2026.md', 'Kitchen renovation', 'Kitchen 2026', 'Kitchen reno',
        'Tiles, budget and the plumber.', ?2, ?2, 'h', ?2, 1)
"""


async def test_a_note_synced_before_is_named_by_its_fields(blank: Database,
                                                          tmp_path: Path) -> None:
    await migrate(blank, migrations_before(tmp_path, "0014"))
    vid = (await one(blank.prepare(OLD_VAULT).bind(LIFE_ID, NOW_MS)))["vid"]
    await blank.prepare(OLD_UPSERT).bind(vid, NOW_MS).run()
    assert "0015_note_name_keys.sql" in await migrate(blank)
    assert (await one(blank.prepare(KEYS_SQL).bind("Home/Kitchen 2026.md"))) == {
        "name_keys": None}
    found = await search(blank, "kitchen reno", NOW_MS)
    [hit] = found.hits
    assert hit.note.name_keys is None and hit.scores.standing > 1.0

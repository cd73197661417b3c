"""migrations/0016 on the local SQLite adapter and on real D1 in Miniflare: a citation
stored before it names the path its answer's source names, and once its note moves the
answer's Sources link opens the note at its new path."""

from __future__ import annotations

from pathlib import Path

import pytest

from local.migrate import migrate
from shared.api.wire import Source
from shared.block.citations import note_href
from tests.conftest import LIFE_ID, NOW_MS
from tests.contract.history import migrations_before
from tests.rows import one
from worker.db import Database
from worker.store import chats

pytestmark = pytest.mark.miniflare

OLD_VAULT = "INSERT INTO vaults (uuid, name, created_at) VALUES (?1, 'Life', ?2) RETURNING vid"
# What citations.RECORD_SQL wrote before 0016 (no cited path).
OLD_CITATION = """
INSERT INTO message_citations (message_rid, vid, path, content_hash, excerpt)
SELECT rid, ?2, 'Recipes/Sourdough.md', 'h', 'bake at 250 C' FROM messages WHERE id = ?1
"""
MOVED = "UPDATE message_citations SET path = 'Archive/Bread.md'"


async def test_a_citation_stored_before_follows_its_note(blank: Database,
                                                        tmp_path: Path) -> None:
    await migrate(blank, migrations_before(tmp_path, "0016"))
    vid = (await one(blank.prepare(OLD_VAULT).bind(LIFE_ID, NOW_MS)))["vid"]
    conversation = await chats.create_conversation(blank, "bread", NOW_MS)
    source = Source(n=1, kind="note", id="Recipes/Sourdough.md", label="Sourdough",
                    snippet="bake at 250 C", href=note_href("Life", "Recipes/Sourdough.md"))
    answer = await chats.append_message(blank, conversation, "assistant", "Bake at 250 C [1].",
                                        NOW_MS, sources=[source])
    await blank.prepare(OLD_CITATION).bind(answer.id, vid).run()
    assert "0016_citation_source_paths.sql" in await migrate(blank)
    row = await one(blank.prepare("SELECT path, cited_path FROM message_citations"))
    assert row == {"path": "Recipes/Sourdough.md", "cited_path": "Recipes/Sourdough.md"}
    read, _ = await chats.get_message(blank, answer.id)
    assert read.sources == [source]
    await blank.prepare(MOVED).run()  # as citations.FOLLOW_MOVES_SQL moves it
    read, _ = await chats.get_message(blank, answer.id)
    assert read.sources == [source.model_copy(update={
        "id": "Archive/Bread.md", "href": note_href("Life", "Archive/Bread.md")})]

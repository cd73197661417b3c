"""migrations/0014 on the local SQLite adapter and on real D1 in Miniflare: each index's
document-frequency table holds what its fts5vocab 'row' table answers, row for row, after
every kind of write (chat turns and their replies, long turns split into parts, an
import, forgetting a message and a conversation, a withdrawal, note upserts, edits and
deletes through the sync batch, paused memory), and the migration fills it from the
indexes an older schema built."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from local.migrate import migrate
from shared.archive.records import ImportedConversation, ImportedMessage
from tests.conftest import LIFE_ID, NOW_MS, note, store_notes
from tests.contract.history import migrations_before
from tests.rows import one
from worker.corpora import registry
from worker.db import Database
from worker.store import archive, chats, forget, pause

pytestmark = pytest.mark.miniflare

VOCAB = {"messages": "conversation_units_vocab", "notes": "note_sections_vocab"}


async def frequencies(db: Database, table: str) -> dict[str, int]:
    rows = (await db.prepare(f"SELECT term, doc FROM {table} WHERE doc > 0").all()).results
    return {str(r["term"]): int(r["doc"]) for r in rows}


async def assert_kept(db: Database) -> None:
    """Both corpora's tables equal their fts5vocab counts, and the indexes the triggers
    count through are empty again (the sync batch folded what it wrote)."""
    for corpus in registry.corpora():
        kept = await frequencies(db, corpus.df_table)
        assert kept == await frequencies(db, VOCAB[corpus.name]), corpus.name
        zero = (await db.prepare(f"SELECT count(*) AS n FROM {corpus.df_table} WHERE doc <= 0")
                .first())
        assert zero == {"n": 0}
    for scratch in ("conversation_units_terms_vocab", "note_sections_added_vocab",
                    "note_sections_removed_vocab"):
        assert (await db.prepare(f"SELECT count(*) AS n FROM {scratch}").first()) == {"n": 0}


async def test_the_tables_follow_every_writer(port: Database) -> None:
    await chats.append_message(port, "c1", "user", "Mein Café serves crème brûlée; CAFÉS "
                               "and cafe au lait", NOW_MS, message_id="q1",
                               new_conversation=True)
    await assert_kept(port)
    await chats.append_message(port, "c1", "assistant", "The café's brûlée [1] is famous. "
                               + "Custard sets slowly in the oven. " * 150, NOW_MS + 1,
                               message_id="a1")  # the question's unit, answered in parts
    assert len((await port.prepare("SELECT id FROM conversation_units").all()).results) > 1
    await assert_kept(port)
    await chats.append_message(port, "c1", "user", "and the oven temperature?", NOW_MS + 2,
                               message_id="q2")
    await chats.append_message(port, "c1", "assistant", "About 150 degrees for custard.",
                               NOW_MS + 3, message_id="a2")
    await archive.import_conversations(port, [ImportedConversation(
        id="imp", title="Imported", created_at=NOW_MS, updated_at=NOW_MS + 5,
        messages=(ImportedMessage("i1", "user", "naïve question about okapis", NOW_MS),
                  ImportedMessage("i2", "assistant", "Okapis live in the forest.",
                                  NOW_MS + 1)))])
    await assert_kept(port)

    await forget.delete_message(port, "a1", NOW_MS + 10)  # its question is indexed alone
    await assert_kept(port)
    await forget.delete_conversation(port, "imp", NOW_MS + 11)  # through the cascade
    await assert_kept(port)

    await pause.pause(port, NOW_MS + 12)
    await chats.append_message(port, "c1", "user", "zebras while paused", NOW_MS + 13,
                               message_id="q3")
    assert "zebra" not in await frequencies(port, "conversation_units_df")
    await pause.resume(port)
    await assert_kept(port)

    await store_notes(port, note("Food/Custard.md", "# Custard\n\nBake at 150.\n\n## Crème\n\n"
                                 "Brûlée with a torch.", aliases=["crème anglaise"],
                                 tags=["dessert"]), batch_id="1")
    await store_notes(port, note("Food/Okapi.md", "The okapi is shy."), batch_id="2")
    await assert_kept(port)
    await store_notes(port, note("Food/Custard.md", "# Custard\n\nSteam it instead.",
                                 mtime=NOW_MS), batch_id="3")  # an edit: sections rebuilt
    await assert_kept(port)
    await store_notes(port, note("Food/Tart.md", "A custard tart, baked slowly."),
                      deletes=[{"path": "Food/Okapi.md", "deleted_at": NOW_MS + 20}],
                      batch_id="4")  # one batch writes and removes sections
    await assert_kept(port)
    assert "okapi" not in await frequencies(port, "note_sections_df")
    await store_notes(port, note("Food/Tart.md", "A custard tart, baked slowly."),
                      batch_id="5")  # sent again unchanged: its sections stay
    await assert_kept(port)

    await forget.delete_conversation(port, "c1", NOW_MS + 21)
    await store_notes(port, deletes=[{"path": "Food/Custard.md", "deleted_at": NOW_MS + 22},
                                     {"path": "Food/Tart.md", "deleted_at": NOW_MS + 22}],
                      batch_id="6")
    for corpus in registry.corpora():
        assert await frequencies(port, corpus.df_table) == {}


async def test_a_withdrawn_answer_leaves_the_counts(port: Database) -> None:
    from tests.worker.store.test_withdrawn import chain

    await chats.append_message(port, "fact", "user", "the garage locker code is 4471", NOW_MS,
                               message_id="fact", new_conversation=True)
    await chain(port, ["fact"])  # type: ignore[arg-type]
    await assert_kept(port)
    forgotten = await forget.delete_message(port, "fact", NOW_MS + 100)
    assert forgotten.withdrawn_ids
    await assert_kept(port)


# What the store wrote before 0014 (today's sync batch ends with the fold into 0014's
# tables).
OLD_VAULT = "INSERT INTO vaults (uuid, name, created_at) VALUES (?1, 'Life', ?2) RETURNING vid"
OLD_UPSERT = """
INSERT INTO vault_notes (vid, path, title, name, aliases, body, mtime, note_date,
                         content_hash, synced_at, seq, sections)
VALUES (?1, 'Zoo/Aardvark.md', 'Aardvark', 'Aardvark', 'earth pig', ?2, ?3, ?3, 'h', ?3, 1,
        ?4)
"""
BODY = "# Aardvark\n\nIt eats ants.\n\n## Burrows\n\nThe aardvark digs at dusk."


async def test_the_migration_fills_the_tables_from_the_indexes(blank: Database,
                                                               tmp_path: Path) -> None:
    await migrate(blank, migrations_before(tmp_path, "0014"))
    await chats.append_message(blank, "c", "user", "the aardvark digs at dusk", NOW_MS,
                               message_id="q", new_conversation=True)
    await chats.append_message(blank, "c", "assistant", "Aardvarks dig burrows.", NOW_MS + 1,
                               message_id="a")
    vid = (await one(blank.prepare(OLD_VAULT).bind(LIFE_ID, NOW_MS)))["vid"]
    spans = [{"s": 0, "e": 25, "h": "Aardvark"}, {"s": 25, "e": len(BODY), "h": "Burrows"}]
    await blank.prepare(OLD_UPSERT).bind(vid, BODY, NOW_MS, json.dumps(spans)).run()
    assert await migrate(blank, migrations_before(tmp_path, "0015")) == [
        "0014_document_frequencies.sql"]
    await assert_kept(blank)
    assert (await frequencies(blank, "conversation_units_df"))["aardvark"] == 1
    assert (await frequencies(blank, "note_sections_df"))["aardvark"] == 2  # both sections

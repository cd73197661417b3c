"""migrations/0002 on a database holding 0001-era data, on the local SQLite adapter and on
real D1 in Miniflare: rows, rids and the FTS index are kept, each old vault name becomes
a legacy vault that the first heartbeat with that name adopts, old answers' citations are
recorded (and those citing a note already gone withdrawn), and everything 0002 adds
(sequences, digests, per-vault scoping) works on the migrated data."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from local.migrate import MIGRATIONS_DIR, migrate
from shared.api.errors import VaultNameTaken
from shared.api.vault_digest import vault_checksum
from tests.conftest import NOW_MS, note, store_notes
from worker.db import Database, QueryError
from worker.recall.explicit import search
from worker.store import chats, citations, vaults
from worker.store.notes import split_path

pytestmark = pytest.mark.miniflare

NEW_ID = "33333333-3333-4333-8333-333333333333"
# What 0001's store wrote (worker/store/notes.py before 0002).
LEGACY_UPSERT = """
INSERT INTO vault_notes (path, vault, title, name, aliases, tags, folder, body, note_type,
                         status, mtime, note_date, content_hash, synced_at, properties)
VALUES (?1, ?2, ?3, ?4, '', '', ?5, ?6, NULL, NULL, ?7, ?7, ?8, ?9, '')
"""
LEGACY_NOTES = [  # (vault name, path, body)
    ("Life", "Home/Plants.md", "water the monstera on sunday"),
    ("Life", "Recipes/Bread.md", "bake the sourdough at 250 C with steam"),
    ("Life", "Gone.md", "a private note deleted before the upgrade"),
    ("Work", "Projects/Kiln.md", "the kiln firing schedule"),
]


async def at_0001(db: Database, tmp_path: Path) -> None:
    only_first = tmp_path / "migrations-0001"
    only_first.mkdir()
    shutil.copy(MIGRATIONS_DIR / "0001_initial.sql", only_first)
    assert await migrate(db, only_first) == ["0001_initial.sql"]


async def legacy_data(db: Database) -> dict[str, int]:
    """0001-era notes, a tombstone, and two answers citing notes in their sources."""
    for i, (vault, path, body) in enumerate(LEGACY_NOTES):
        folder, name = split_path(path)
        await db.prepare(LEGACY_UPSERT).bind(path, vault, name, name, folder, body,
                                             NOW_MS - 100 + i, note(path, body).content_hash,
                                             NOW_MS - 50 + i).run()
    await db.prepare("DELETE FROM vault_notes WHERE path = 'Gone.md'").run()
    await db.prepare("INSERT INTO vault_tombstones (path, deleted_at) VALUES ('Gone.md', ?)"
                     ).bind(2**53 - 1).run()
    await db.prepare("INSERT INTO conversations (id, title, created_at, updated_at) "
                     "VALUES ('c1', 'bread', 1, 1)").run()
    for seq, (msg_id, cited) in enumerate([("kept", "Recipes/Bread.md"),
                                           ("orphan", "Gone.md")], start=1):
        sources = [{"n": 1, "kind": "note", "id": cited, "label": "x",
                    "snippet": "bake the sourdough", "href": "obsidian://open?vault=Life"}]
        await db.prepare("INSERT INTO messages (id, conversation_id, seq, role, content, "
                         "sources, created_at) VALUES (?, 'c1', ?, 'assistant', ?, ?, 1)"
                         ).bind(msg_id, seq, f"answer [1] {seq}", json.dumps(sources)).run()
    rows = (await db.prepare("SELECT path, rid FROM vault_notes").all()).results
    return {r["path"]: r["rid"] for r in rows}


async def rows(db: Database, sql: str) -> list[dict]:
    return (await db.prepare(sql).all()).results


async def test_0002_keeps_0001_data_and_its_index(blank: Database, tmp_path: Path) -> None:
    await at_0001(blank, tmp_path)
    rids = await legacy_data(blank)
    upto_0002 = tmp_path / "migrations-0002"
    upto_0002.mkdir()
    shutil.copy(MIGRATIONS_DIR / "0001_initial.sql", upto_0002)
    shutil.copy(MIGRATIONS_DIR / "0002_vaults.sql", upto_0002)
    assert await migrate(blank, upto_0002) == ["0002_vaults.sql"]
    migrated = await rows(blank, "SELECT n.path, n.rid, v.name, v.uuid, n.seq, n.digest "
                                 "FROM vault_notes n JOIN vaults v ON v.vid = n.vid")
    assert {r["path"]: r["rid"] for r in migrated} == rids
    assert {(r["path"], r["name"]) for r in migrated} == {
        ("Home/Plants.md", "Life"), ("Recipes/Bread.md", "Life"), ("Projects/Kiln.md", "Work")}
    assert all(r["uuid"] is None and r["seq"] == 0 and r["digest"] is None for r in migrated)
    # The FTS index still maps to the same rows, and passes FTS5's own integrity check.
    hits = await rows(blank, "SELECT n.path FROM vault_notes_fts JOIN vault_notes n "
                             "ON n.rid = vault_notes_fts.rowid WHERE vault_notes_fts MATCH "
                             "'monstera OR kiln' ORDER BY n.path")
    assert [h["path"] for h in hits] == ["Home/Plants.md", "Projects/Kiln.md"]
    await blank.prepare("INSERT INTO vault_notes_fts (vault_notes_fts) VALUES "
                        "('integrity-check')").run()
    assert await rows(blank, "SELECT docs FROM corpus_stats WHERE corpus = 'notes'") == [
        {"docs": 3}]
    per_vault = await rows(blank, "SELECT name, notes, uuid FROM vaults ORDER BY name")
    assert per_vault == [{"name": "Life", "notes": 2, "uuid": None},
                         {"name": "Work", "notes": 1, "uuid": None}]
    # The later migrations carry the same notes on into their sections index.
    assert await migrate(blank) == sorted(p.name for p in MIGRATIONS_DIR.glob("*.sql"))[2:]
    hits = await rows(blank, "SELECT n.path FROM note_sections_fts JOIN note_sections s "
                             "ON s.rid = note_sections_fts.rowid JOIN vault_notes n "
                             "ON n.rid = s.note_rid WHERE note_sections_fts MATCH "
                             "'monstera OR kiln' ORDER BY n.path")
    assert [h["path"] for h in hits] == ["Home/Plants.md", "Projects/Kiln.md"]
    await blank.prepare("INSERT INTO note_sections_fts (note_sections_fts) VALUES "
                        "('integrity-check')").run()
    assert await rows(blank, "SELECT docs FROM corpus_stats WHERE corpus = 'notes'") == [
        {"docs": 3}]
    assert await rows(blank, "SELECT count(*) AS n FROM vault_tombstones") == [{"n": 0}]
    [identity] = await rows(blank, "SELECT id FROM worker_identity")
    assert len(identity["id"]) == 32


async def test_old_answers_get_citations_and_those_citing_gone_notes_are_withdrawn(
        blank: Database, tmp_path: Path) -> None:
    await at_0001(blank, tmp_path)
    await legacy_data(blank)
    await migrate(blank)
    cited = await rows(blank, "SELECT m.id, c.path, c.excerpt FROM message_citations c "
                              "JOIN messages m ON m.rid = c.message_rid")
    assert cited == [{"id": "kept", "path": "Recipes/Bread.md",
                      "excerpt": "bake the sourdough"}]
    withdrawn = await rows(blank, "SELECT id FROM messages WHERE withdrawn_at IS NOT NULL")
    assert withdrawn == [{"id": "orphan"}]


async def test_the_first_heartbeat_adopts_the_legacy_vault_of_its_name(
        blank: Database, tmp_path: Path) -> None:
    await at_0001(blank, tmp_path)
    await legacy_data(blank)
    await migrate(blank)
    contact = await vaults.heartbeat(blank, NEW_ID, "Life", NOW_MS)
    assert contact.adopted and contact.vault.seq == 1 and contact.vault.notes == 2
    # The Worker computed the digests SQLite could not, so the checksum is the hub's.
    pairs = [(r["path"], r["content_hash"]) for r in await rows(
        blank, f"SELECT path, content_hash FROM vault_notes WHERE vid = {contact.vault.vid}")]
    assert contact.vault.checksum == vault_checksum(pairs) != 0
    again = await vaults.heartbeat(blank, NEW_ID, "Life", NOW_MS + 1)
    assert not again.adopted and again.vault.vid == contact.vault.vid and again.vault.seq == 2
    # Another id with the same name is refused: it adopts nothing and registers nothing.
    with pytest.raises(VaultNameTaken):
        await vaults.heartbeat(blank, "44444444-4444-4444-8444-444444444444", "Life", NOW_MS)
    assert [v.uuid for v in await vaults.list_vaults(blank)] == [
        NEW_ID, None]  # "Work" waits for its hub


async def test_migrated_data_syncs_and_searches_per_vault(blank: Database, tmp_path: Path
                                                          ) -> None:
    await at_0001(blank, tmp_path)
    await legacy_data(blank)
    await migrate(blank)
    result = await store_notes(blank, note("Home/Plants.md", "water the fern instead"),
                               deletes=[{"path": "Recipes/Bread.md", "deleted_at": NOW_MS}],
                               vault="Life", vault_id=NEW_ID)
    assert (result.upserted, result.deleted, result.withdrawn) == (1, 1, 1)
    hits = (await search(blank, "monstera fern kiln", NOW_MS, vault="Life")).hits
    assert [(h.identity.vault, h.identity.id) for h in hits] == [("Life", "Home/Plants.md")]
    everywhere = (await search(blank, "kiln", NOW_MS)).hits
    assert [(h.identity.vault, h.identity.id) for h in everywhere] == [("Work", "Projects/Kiln.md")]
    await blank.prepare("INSERT INTO note_sections_fts (note_sections_fts) VALUES "
                        "('integrity-check')").run()
    [life] = [v for v in await vaults.list_vaults(blank) if v.uuid == NEW_ID]
    pairs = [(r["path"], r["content_hash"]) for r in await rows(
        blank, f"SELECT path, content_hash FROM vault_notes WHERE vid = {life.vid}")]
    assert (life.notes, life.checksum) == (1, vault_checksum(pairs))


async def test_the_new_schema_refuses_a_second_row_for_a_vault_and_path(port: Database
                                                                        ) -> None:
    contact = await vaults.heartbeat(port, NEW_ID, "Life", NOW_MS)
    insert = ("INSERT INTO vault_notes (vid, path, title, name, body, mtime, note_date, "
              "content_hash, synced_at) VALUES (?, 'a.md', 't', 'a', 'b', 1, 1, 'h', 1)")
    await port.prepare(insert).bind(contact.vault.vid).run()
    with pytest.raises(QueryError):
        await port.prepare(insert).bind(contact.vault.vid).run()
    with pytest.raises(QueryError):  # and a vault that does not exist (foreign key)
        await port.prepare(insert).bind(contact.vault.vid + 100).run()


async def test_citation_and_withdrawal_statements_run_on_both(port: Database) -> None:
    bread = note("Bread.md", "bake the sourdough at 250 C with steam")
    await store_notes(port, bread, vault_id=NEW_ID, batch_id="1")
    [vault] = await vaults.list_vaults(port)
    await chats.create_conversation(port, "bread", NOW_MS, "c1")
    for message_id, excerpt in (("a1", "bake the sourdough"), ("a2", "250 C with steam")):
        await chats.append_message(
            port, "c1", "assistant", f"{excerpt} [1]", NOW_MS, message_id=message_id,
            after=citations.record_statements(
                port, message_id, [citations.Citation(vault.vid, "Bread.md", excerpt)], NOW_MS))
    edited = note("Bread.md", "bake the sourdough at 230 C under a lid")  # a2's quote is gone
    result = await store_notes(port, edited, vault_id=NEW_ID, batch_id="2")
    assert result.withdrawn == 1
    assert await rows(port, "SELECT id FROM messages WHERE withdrawn_at IS NOT NULL") == [
        {"id": "a2"}]
    kept = await rows(port, "SELECT content_hash FROM message_citations c JOIN messages m "
                            "ON m.rid = c.message_rid WHERE m.id = 'a1'")
    assert kept == [{"content_hash": edited.content_hash}]  # follows the new version
    moved = edited.model_copy(update={"path": "Archive/Bread.md"})
    result = await store_notes(port, moved, deletes=[{"path": "Bread.md", "deleted_at": NOW_MS}],
                               vault_id=NEW_ID, batch_id="3")
    assert result.withdrawn == 0
    assert await rows(port, "SELECT path FROM message_citations c JOIN messages m "
                            "ON m.rid = c.message_rid WHERE m.id = 'a1'") == [
        {"path": "Archive/Bread.md"}]

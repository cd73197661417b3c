"""migrations/0006 (knowledge model) on a database holding 0005-era notes, on the local
SQLite adapter and on real D1 in Miniflare: statuses normalised, rows and sections kept,
relations materialised by the triggers, and the conflict query of worker/recall/together
(json_each, a window function, FTS5 with a rowid filter) answering the same on both."""

from __future__ import annotations

from pathlib import Path

import pytest

from hub.notes import section_spans
from local.migrate import migrate
from shared.knowledge.relations import RelationEdge
from shared.text.sanitiser import Mode, build_query
from tests.builders import candidate
from tests.conftest import NOW_MS, note, store_notes
from tests.contract.history import migrations_before
from tests.rows import one
from worker.db import Database
from worker.recall.together import neighbourhood
from worker.store.notes import sections_json, split_path

pytestmark = pytest.mark.miniflare

# What 0005's store wrote (worker/store/notes.py before 0006): no role, no relations.
UPSERT_0005 = """
INSERT INTO vault_notes (vid, path, title, name, aliases, tags, folder, body, note_type,
                         status, mtime, note_date, content_hash, synced_at, properties, seq,
                         digest, sections)
VALUES (1, ?1, ?2, ?3, '', '', ?4, ?5, ?6, ?7, ?8, ?8, ?9, ?8, '', 1, NULL, ?10)
"""


async def at_0005(db: Database, tmp_path: Path) -> None:
    await migrate(db, migrations_before(tmp_path, "0006"))
    await db.prepare("INSERT INTO vaults (vid, uuid, name, created_at, seq) VALUES "
                     "(1, '11111111-1111-4111-8111-111111111111', 'Life', 1, 1)").run()


async def test_0006_normalises_statuses_and_keeps_every_note(blank: Database,
                                                             tmp_path: Path) -> None:
    await at_0005(blank, tmp_path)
    for path, status in [("a.md", " Stable "), ("b.md", "active"), ("c.md", None),
                         ("d.md", "DEPRECATED")]:
        upsert = note(path, f"text of {path}")
        folder, name = split_path(path)
        await blank.prepare(UPSERT_0005).bind(
            path, name, name, folder, upsert.body, "decision", status, NOW_MS,
            upsert.content_hash, sections_json(upsert)).run()
    sections = (await one(blank.prepare("SELECT count(*) AS n FROM note_sections")))["n"]
    assert await migrate(blank, migrations_before(tmp_path, "0007")) == [
        "0006_note_relations.sql"]
    rows = (await blank.prepare("SELECT path, status, role, relations FROM vault_notes "
                                "ORDER BY path").all()).results
    assert [(r["path"], r["status"], r["role"], r["relations"]) for r in rows] == [
        ("a.md", "stable", None, "[]"), ("b.md", None, None, "[]"), ("c.md", None, None, "[]"),
        ("d.md", "deprecated", None, "[]")]
    assert (await one(blank.prepare("SELECT count(*) AS n FROM note_sections")))["n"] \
        == sections
    assert (await one(blank.prepare("SELECT count(*) AS n FROM note_relations")))["n"] == 0


OLD_BODY = ("## Why\n" + "There was no history of versions, only one mirror. " * 6
            + "\n\n## How\n" + "A cron job ran rsync to the USB disk every night. " * 6)


def rel(target: str, type_: str, linked: bool = True) -> RelationEdge:
    return RelationEdge(target=target, type=type_, linked=linked)


async def test_relations_and_the_conflict_query_behave_the_same(port: Database) -> None:
    await store_notes(port,
                      note("Backups/New.md", "Déjà Dup to the NAS. Replaces [[Old]].",
                           status="stable", type="decision",
                           relations=[rel("Backups/Old.md", "supersedes")]),
                      note("Backups/Old.md", OLD_BODY, status="deprecated", type="decision",
                           sections=section_spans(OLD_BODY)[0]),
                      note("Backups/Clip.md", "A forum post on rsync.", type="clipping",
                           relations=[rel("Backups/Old.md", "contradicts", linked=False),
                                      rel("Backups/New.md", "qualifies")]))
    rows = (await port.prepare("SELECT target_path, type, linked FROM note_relations "
                               "ORDER BY target_path, type").all()).results
    assert [(r["target_path"], r["type"], r["linked"]) for r in rows] == [
        ("Backups/New.md", "qualifies", 1), ("Backups/Old.md", "contradicts", 0),
        ("Backups/Old.md", "supersedes", 1)]
    old = await one(port.prepare(
        "SELECT vid FROM vault_notes WHERE path = 'Backups/Old.md'"))
    query = build_query("rsync usb disk", Mode.AUTOMATIC)
    seed = candidate("Backups/Old.md", group=f"{old['vid']}:Backups/Old.md",
                     vid=old["vid"], related=True)  # retrieval flags notes with relations
    found = await neighbourhood(port, [seed], query, NOW_MS)
    assert [(e.source.split(":", 1)[1], e.target.split(":", 1)[1], e.type)
            for e in found.edges] == [("Backups/New.md", "Backups/Old.md", "supersedes")]
    assert sorted(c.identity.id for c in found.notes.values()) == ["Backups/New.md",
                                                                   "Backups/Old.md"]
    old_note = next(c for c in found.notes.values() if c.identity.id == "Backups/Old.md")
    assert old_note.identity.heading == "How"  # its section that matches the query
    assert (old_note.note.status, old_note.identity.knowledge_role) == ("deprecated", "canonical")

"""`mallory reindex` as a real process on a real SQLite file: FTS rebuilt from the content
tables, vectors brought in step with the local embedder (only what is missing, stale or
changed is embedded), idempotent, with progress, a summary and clear errors."""

from __future__ import annotations

import asyncio
import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from hub.notes import parse_note
from local.migrate import migrate
from local.semantic.vector_sql import TABLE
from local.sqlite_db import SqliteDatabase
from shared.api.sync_payload import NoteUpsert
from tests.conftest import NOW_MS, store_notes
from worker.recall.explicit import search
from worker.store import chats

ROOMS = ["kitchen", "hall", "bathroom", "study", "bedroom", "attic"]
LONG_NOTE = "\n\n".join(
    [f"## The {room}\n\nThe {room} has its own paint: colour code C{i:03d}, bought at the "
     f"shop on the corner. Two coats, the second one {i + 2} hours after the first; the "
     f"{room} ceiling stays white. Keep the leftover tin of C{i:03d} in the garage, on the "
     f"shelf by the door, for touching up the {room} walls later." for i, room in
     enumerate(ROOMS)])


def hub_note(path: str, text: str) -> NoteUpsert:
    parsed = parse_note(path, text.encode(), NOW_MS - 1_000)
    assert isinstance(parsed, NoteUpsert)
    return parsed


async def seed(path: Path) -> None:
    db = SqliteDatabase(path)
    await migrate(db)
    await store_notes(db, hub_note("Home/Paint.md", "# Paint\n\n" + LONG_NOTE),
                      hub_note("Garden/Roses.md", "Prune the roses in late winter."))
    conversation = await chats.create_conversation(db, "cleaning", NOW_MS)
    await chats.append_message(db, conversation, "user", "how do I clean the kettle?", NOW_MS)
    await chats.append_message(db, conversation, "assistant", "Boil water with citric acid "
                               "in it, then rinse twice.", NOW_MS + 1)
    db.close()


def reindex(db: Path, *flags: str, env: dict[str, str] | None = None
            ) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("EMBEDDINGS_")}
    return subprocess.run([sys.executable, "-m", "local.cli", "reindex", "--db", str(db),
                           *flags], capture_output=True, text=True, cwd=db.parent,
                          env={**clean, **(env or {})}, timeout=120)


def untimed(output: str) -> str:
    return re.sub(r"in [0-9.]+ s", "in … s", output)


def rows(db: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(sql).fetchall()


def units(db: Path) -> int:
    [(n,)] = rows(db, "SELECT (SELECT count(DISTINCT unit_id) FROM note_sections) + "
                      "(SELECT count(*) FROM conversation_units)")
    return n


def found(db: Path, text: str) -> list[str]:
    database = SqliteDatabase(db)
    try:
        result = asyncio.run(search(database, text, NOW_MS))
    finally:
        database.close()
    return [h.identity.id for h in result.hits]


@pytest.fixture
def seeded(tmp_path: Path) -> Path:
    path = tmp_path / "mallory.sqlite"
    asyncio.run(seed(path))
    return path


@pytest.fixture(scope="module")
def embedded_once(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seeded database after one `reindex --vectors`: each process loads the model, so
    the tests that start from an embedded index share this first run."""
    path = tmp_path_factory.mktemp("embedded") / "mallory.sqlite"
    asyncio.run(seed(path))
    first = reindex(path, "--vectors")
    assert first.returncode == 0, first.stderr
    return path


@pytest.fixture
def embedded(embedded_once: Path, tmp_path: Path) -> Path:
    path = tmp_path / "mallory.sqlite"
    with sqlite3.connect(embedded_once) as source, sqlite3.connect(path) as target:
        source.backup(target)
    return path


def test_fts_is_rebuilt_from_the_content_tables_and_recounted(seeded: Path) -> None:
    with sqlite3.connect(seeded) as conn:  # an index and counts that lost their rows
        for fts in ("note_sections_fts", "conversation_units_fts"):
            conn.execute(f"INSERT INTO {fts} ({fts}) VALUES ('delete-all')")
        conn.execute("UPDATE corpus_stats SET docs = 0")
    assert found(seeded, "colour code C004") == []
    result = reindex(seeded, "--fts")
    assert result.returncode == 0, result.stderr
    sections = rows(seeded, "SELECT count(*) FROM note_sections")[0][0]
    assert f"note_sections_fts rebuilt from {sections} rows of note_sections" in result.stdout
    assert "conversation_units_fts rebuilt from 1 rows" in result.stdout
    assert "vectors" not in result.stdout
    assert rows(seeded, "SELECT corpus, docs FROM corpus_stats ORDER BY corpus") == [
        ("messages", 1), ("notes", sections)]
    assert found(seeded, "colour code C004") == ["Home/Paint.md"]
    again = reindex(seeded, "--fts")  # idempotent
    assert again.returncode == 0 and untimed(again.stdout) == untimed(result.stdout)
    assert found(seeded, "colour code C004") == ["Home/Paint.md"]
    assert rows(seeded, "SELECT corpus, docs FROM corpus_stats ORDER BY corpus") == [
        ("messages", 1), ("notes", sections)]


@pytest.mark.embed
def test_vectors_embed_what_is_missing_once(seeded: Path) -> None:
    total = units(seeded)
    first = reindex(seeded, "--vectors")
    assert first.returncode == 0, first.stderr
    assert f"vectors: {total} units to embed with local/all-MiniLM-L6-v2-int8@" in first.stdout
    assert f"vectors: {total}/{total} units embedded" in first.stdout
    assert f"vectors: {total} indexed, 0 pending, 0 stale" in first.stdout
    assert "restart it" in first.stdout
    recorded = rows(seeded, "SELECT vector_id, model, dimensions, embedded_at FROM vector_units "
                            "ORDER BY vector_id")
    assert len(recorded) == total and {r[2] for r in recorded} == {384}
    assert rows(seeded, f"SELECT count(*) FROM {TABLE}") == [(total,)]

    second = reindex(seeded, "--vectors")  # nothing to do, nothing touched
    assert second.returncode == 0, second.stderr
    assert "vectors: 0 units to embed" in second.stdout
    assert "vectors: 0 units embedded" in second.stdout and "restart" not in second.stdout
    assert rows(seeded, "SELECT vector_id, model, dimensions, embedded_at FROM vector_units "
                        "ORDER BY vector_id") == recorded


@pytest.mark.embed
def test_an_edit_re_embeds_only_the_sections_whose_text_changed(embedded: Path) -> None:
    before = {r[0] for r in rows(embedded, "SELECT unit_id FROM vector_units")}
    edited = LONG_NOTE.replace("colour code C004", "colour code C004 (and a third coat)")
    database = SqliteDatabase(embedded)
    asyncio.run(store_notes(database, hub_note("Home/Paint.md", "# Paint\n\n" + edited),
                            batch_id="edit"))
    database.close()
    now = {r[0] for r in rows(embedded, "SELECT unit_id FROM note_sections")}
    changed = now - before
    assert 1 <= len(changed) < len([u for u in now if "Paint" in u])
    result = reindex(embedded, "--vectors")
    assert result.returncode == 0, result.stderr
    assert f"vectors: {len(changed)} units embedded" in result.stdout
    gone = {u for u in before if u.startswith("n:")} - now  # the edited section's old text
    assert len(gone) == len(changed)
    assert f"{len(gone)} vectors of deleted units removed" in result.stdout
    assert {r[0] for r in rows(embedded, "SELECT unit_id FROM vector_units")} == \
        now | {u for u in before if not u.startswith("n:")}


@pytest.mark.embed
def test_stale_missing_stray_and_wrongly_sized_vectors_are_repaired(embedded: Path) -> None:
    total = units(embedded)
    with sqlite3.connect(embedded) as conn:
        conn.execute("UPDATE vector_units SET model = 'local/an-older-model' "
                     "WHERE corpus = 'messages'")  # stale
        [(gone,)] = conn.execute("SELECT vector_id FROM vector_units WHERE corpus = 'notes' "
                                 "LIMIT 1").fetchall()
        conn.execute(f"DELETE FROM {TABLE} WHERE id = ?", (gone,))  # missing
        conn.execute(f"INSERT INTO {TABLE} VALUES ('v-stray', "
                     f"(SELECT vec FROM {TABLE} LIMIT 1), '{{}}')")  # stray
        conn.execute(f"INSERT INTO {TABLE} VALUES ('v-short', zeroblob(8), '{{}}')")  # size
    result = reindex(embedded, "--vectors")
    assert result.returncode == 0, result.stderr
    assert ("vectors: 2 units embedded" in result.stdout
            and "1 vectors of another size purged, 1 records without a vector dropped, "
                "1 vectors without a record deleted" in result.stdout), result.stdout
    assert f"vectors: {total} indexed, 0 pending, 0 stale" in result.stdout
    assert rows(embedded, f"SELECT count(*) FROM {TABLE}") == [(total,)]
    forced = reindex(embedded, "--vectors", "--force")
    assert forced.returncode == 0 and f"vectors: {total} units embedded" in forced.stdout


def test_bad_invocations_are_one_clear_error(seeded: Path, tmp_path: Path) -> None:
    missing = reindex(tmp_path / "absent.sqlite")
    assert missing.returncode == 2 and "error: no database at" in missing.stderr
    assert not (tmp_path / "absent.sqlite").exists()
    both = reindex(seeded, "--fts", "--force")
    assert both.returncode == 2 and "--force re-embeds vectors" in both.stderr
    none = reindex(seeded, "--threads", "0")
    assert none.returncode == 2 and "--threads must be at least 1" in none.stderr
    unreachable = reindex(seeded, "--vectors", env={
        "EMBEDDINGS_BASE_URL": "http://127.0.0.1:9/v1", "EMBEDDINGS_MODEL": "m",
        "EMBEDDINGS_DIMENSIONS": "384"})
    assert unreachable.returncode == 2, unreachable.stdout
    assert unreachable.stderr.startswith("error: ") and "Traceback" not in unreachable.stderr
    assert rows(seeded, "SELECT count(*) FROM vector_units") == [(0,)]

"""`mallory import` and `mallory export` as the owner runs them: real processes on a real
SQLite file, the export files as the assistants ship them (JSON, or the ZIP)."""

from __future__ import annotations

import json
import os
import pty
import sqlite3
import subprocess
import sys
import zipfile
from pathlib import Path

from hub.progress import MIN_ITEMS
from tests.conftest import ROOT

EXPORTS = ROOT / "tests" / "fixtures" / "exports"


def mallory(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "local.cli", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)


def count(db: Path, table: str) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def test_dry_run_then_import_then_again(tmp_path: Path) -> None:
    db = tmp_path / "mallory.sqlite"
    chatgpt = str(EXPORTS / "chatgpt_conversations.json")
    dry = mallory("import", "chatgpt", chatgpt, "--db", str(db), "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "dry run: 1 conversation(s), 4 message(s)" in dry.stdout
    assert "conversation 1: " in dry.stderr and "mapping" in dry.stderr  # the bad item
    assert not db.exists() or count(db, "messages") == 0
    first = mallory("import", "chatgpt", chatgpt, "--db", str(db))
    assert first.returncode == 0, first.stderr
    assert "4 added, 0 already present" in first.stdout
    again = mallory("import", "chatgpt", chatgpt, "--db", str(db))
    assert "0 added, 4 already present" in again.stdout
    assert count(db, "messages") == 4 and count(db, "conversation_units") >= 2


def test_a_zip_as_it_came_and_the_export_folder(tmp_path: Path) -> None:
    db, archive = tmp_path / "mallory.sqlite", tmp_path / "claude-export.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.write(EXPORTS / "claude_conversations.json", "conversations.json")
        z.writestr("users.json", "[]")
    done = mallory("import", "claude", str(archive), "--db", str(db))
    assert done.returncode == 0, done.stderr
    assert "2 added" in done.stdout
    out = tmp_path / "export"
    exported = mallory("export", "--out", str(out), "--db", str(db))
    assert exported.returncode == 0, exported.stderr
    doc = json.loads((out / "mallory-export.json").read_text())
    assert [c["title"] for c in doc["conversations"]] == ["Sourdough starter schedule"]
    [page] = (out / "conversations").iterdir()
    assert page.name == "2026-01-03 Sourdough starter schedule.md"
    assert "once a week" in page.read_text()
    # and the export imports into another, empty database as the same messages
    other = tmp_path / "other.sqlite"
    back = mallory("import", "mallory", str(out / "mallory-export.json"), "--db", str(other))
    assert back.returncode == 0 and "2 added" in back.stdout, back.stderr
    with sqlite3.connect(db) as a, sqlite3.connect(other) as b:
        query = "SELECT id, role, content, created_at FROM messages ORDER BY id"
        assert a.execute(query).fetchall() == b.execute(query).fetchall()


def test_a_file_that_is_not_an_export_is_one_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "notes.json"
    bad.write_text('{"hello": 1}')
    done = mallory("import", "openwebui", str(bad), "--db", str(tmp_path / "m.sqlite"))
    assert done.returncode == 2
    assert "JSON list of conversations" in done.stderr
    missing = mallory("import", "chatgpt", str(tmp_path / "nope.json"), "--db",
                      str(tmp_path / "m.sqlite"))
    assert missing.returncode == 2 and "cannot import" in missing.stderr


def in_a_terminal(*args: str) -> tuple[int, str]:
    """`mallory ARGS` with its stderr on a pseudo-terminal, as an owner at a shell sees it:
    the exit code and everything the terminal was sent."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "local.cli", *args], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=slave,
                            env={**os.environ, "COLUMNS": "100", "TERM": "xterm"})
    os.close(slave)
    screen = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed the terminal (EIO on Linux)
            break
        if not chunk:
            break
        screen += chunk
    os.close(master)
    return proc.wait(timeout=120), screen.decode(errors="replace")


def test_a_terminal_sees_the_progress_bar_of_a_long_import(tmp_path: Path) -> None:
    [first, *_] = json.loads((EXPORTS / "chatgpt_conversations.json").read_text())
    many = [{**first, "title": f"Tyres {i}", "id": f"conv-{i}", "conversation_id": f"conv-{i}"}
            for i in range(MIN_ITEMS + 20)]
    export = tmp_path / "conversations.json"
    export.write_text(json.dumps(many))
    db = tmp_path / "mallory.sqlite"
    code, screen = in_a_terminal("import", "chatgpt", str(export), "--db", str(db))
    assert code == 0, screen
    assert "import" in screen and f"{len(many)}/{len(many)}" in screen, screen
    assert count(db, "conversations") == len(many)
    # Not on a terminal (a pipe, cron): no bar, only the summary.
    again = mallory("import", "chatgpt", str(export), "--db", str(db))
    assert f"/{len(many)}" not in again.stderr and "0 added" in again.stdout

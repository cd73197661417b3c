"""The local migration runner and its D1 checks."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from local.migrate import (
    MIGRATIONS_DIR,
    MigrationError,
    load_migrations,
    migrate,
    split_statements,
)
from local.sqlite_db import SqliteDatabase
from tests.conftest import ROOT


def tables(path: Path) -> set[str]:
    conn = sqlite3.connect(path)
    try:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_schema WHERE type='table'")}
    finally:
        conn.close()


def write(folder: Path, name: str, sql: str) -> Path:
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(sql)
    return folder


async def test_applies_once_and_records_in_wranglers_table(tmp_path: Path) -> None:
    db = SqliteDatabase(tmp_path / "m.sqlite")
    every = sorted(p.name for p in MIGRATIONS_DIR.glob("*.sql"))
    assert every[0] == "0001_initial.sql"
    assert await migrate(db) == every
    assert await migrate(db) == []
    rows = (await db.prepare("SELECT name FROM d1_migrations").all()).results
    assert rows == [{"name": name} for name in every]
    assert {"vault_notes", "vaults", "messages", "conversations", "conversation_units",
            "vector_units"} <= tables(tmp_path / "m.sqlite")


async def test_failing_migration_leaves_database_unchanged(tmp_path: Path) -> None:
    folder = write(tmp_path / "mig", "0001_ok.sql", "CREATE TABLE a (x INTEGER);")
    write(folder, "0002_bad.sql", "CREATE TABLE b (y INTEGER);\nINSERT INTO missing VALUES (1);")
    db = SqliteDatabase(tmp_path / "m.sqlite")
    with pytest.raises(MigrationError, match=r"0002_bad\.sql failed and was rolled back"):
        await migrate(db, folder)
    assert "a" in tables(tmp_path / "m.sqlite")
    assert "b" not in tables(tmp_path / "m.sqlite")
    rows = (await db.prepare("SELECT name FROM d1_migrations").all()).results
    assert rows == [{"name": "0001_ok.sql"}]


@pytest.mark.parametrize(("sql", "message"), [
    ("BEGIN;\nCREATE TABLE a (x);\nCOMMIT;", "D1 does not allow BEGIN"),
    ("SAVEPOINT s;", "D1 does not allow SAVEPOINT"),
    ("ATTACH DATABASE 'x.db' AS x;", "D1 does not allow ATTACH"),
    ("PRAGMA journal_mode = WAL;", "PRAGMA journal_mode"),
    ("VACUUM;", "D1 does not allow VACUUM"),
    ("CREATE TABLE a (x INTEGER", "incomplete statement"),
    ("CREATE TABLE a (x 'unterminated);", "incomplete statement"),
    ("SELECT FROM WHERE;", "does not parse as SQLite"),
])
def test_check_refuses_what_d1_rejects(tmp_path: Path, sql: str, message: str) -> None:
    folder = write(tmp_path / "mig", "0001_x.sql", sql)
    with pytest.raises(MigrationError, match=message) as info:
        load_migrations(folder)
    assert "0001_x.sql" in str(info.value)


def test_defer_foreign_keys_is_allowed(tmp_path: Path) -> None:
    folder = write(tmp_path / "mig", "0001_x.sql", "PRAGMA defer_foreign_keys = on;\n"
                   "CREATE TABLE a (x INTEGER);")
    assert len(load_migrations(folder)[0].statements) == 2


def test_badly_named_file_is_refused(tmp_path: Path) -> None:
    folder = write(tmp_path / "mig", "initial.sql", "CREATE TABLE a (x);")
    with pytest.raises(MigrationError, match=r"NNNN_name\.sql"):
        load_migrations(folder)


def test_triggers_split_as_one_statement() -> None:
    statements = split_statements(
        "CREATE TABLE t (x);\n-- note; with semicolon\nCREATE TRIGGER t_ai AFTER INSERT ON t "
        "BEGIN\n  SELECT 1;\n  SELECT 2;\nEND;\n")
    assert len(statements) == 2
    assert statements[1].startswith("CREATE TRIGGER") and statements[1].endswith("END")


def test_project_migrations_pass_the_check() -> None:
    assert next(m.name for m in load_migrations(MIGRATIONS_DIR)) == "0001_initial.sql"


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "local.cli", *args], capture_output=True,
                          text=True, cwd=cwd or ROOT,
                          timeout=60)


def test_cli_migrate_twice(tmp_path: Path) -> None:
    first = run_cli("migrate", "--db", str(tmp_path / "x.sqlite"))
    assert first.returncode == 0, first.stderr
    every = sorted(p.name for p in MIGRATIONS_DIR.glob("*.sql"))
    assert f"applied {len(every)} migration(s)" in first.stdout
    second = run_cli("migrate", "--db", str(tmp_path / "x.sqlite"))
    assert second.returncode == 0 and "up to date" in second.stdout


def test_cli_corrupt_database_is_one_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"this is not a database" * 100)
    result = run_cli("migrate", "--db", str(bad))
    assert result.returncode == 2
    assert result.stderr.strip().startswith("error: cannot open database")
    assert "Traceback" not in result.stderr
    assert bad.read_bytes() == b"this is not a database" * 100


def test_cli_wrong_db_path(tmp_path: Path) -> None:
    result = run_cli("migrate", "--db", str(tmp_path / "no" / "such" / "dir" / "x.sqlite"))
    assert result.returncode == 2
    assert "does not exist" in result.stderr and "Traceback" not in result.stderr


def test_cli_broken_migrations_folder(tmp_path: Path) -> None:
    folder = write(tmp_path / "mig", "0001_x.sql", "BEGIN;")
    result = run_cli("migrate", "--db", str(tmp_path / "x.sqlite"), "--migrations", str(folder))
    assert result.returncode == 2
    assert "0001_x.sql" in result.stderr and "Traceback" not in result.stderr


def test_a_comment_after_a_statement_stays_out_of_it() -> None:
    """D1 refuses a statement that is only a comment, which is what a comment after `;`
    becomes when the runner sends the statement (found by the Miniflare contract suite)."""
    assert split_statements("ALTER TABLE t ADD COLUMN c TEXT;  -- why c\nSELECT 1; -- one\n") \
        == ["ALTER TABLE t ADD COLUMN c TEXT", "SELECT 1"]
